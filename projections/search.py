"""The search index's projector: the texts a project's memory ever held, each with what a
search filters by, from the events of one ``entry:<id>`` or ``ask:<id>`` stream; and the
checked search a person or an agent asks for.

A stream's texts are a function of its own events, so the index is kept by projecting again
the streams that moved since the position it was projected at (:mod:`orbital.service._search`).
Which words match, and how hits rank, is the database's own full-text engine's (SQLite FTS5,
PostgreSQL ``tsvector``: :mod:`orbital.store._search`); the text a person types is cut into
words here, so nothing they type is ever read as the engine's query syntax.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import msgspec

from orbital.catalogue import ARCHIVE_FILES, ASK_PREFIX, ASKS_KEY, MEMORY_FILES
from orbital.domain.asks import fold as fold_asks
from orbital.domain.entries import fold_entry
from orbital.errors import InvalidInput
from orbital.events import Actor, RecordedEvent
from orbital.events.entries import EntryCreated, EntryRetitled, EntryRevised
from projections.words import words_of

MAX_QUERY = 200
#: What a search text must hold: a letter or a digit (:func:`projections.words.words_of`).
WORD_PATTERN = r"[^\W_]"
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
TRUST_STATES = ("held", "disputed", "superseded", "retracted")
#: Searched only when asked (``past``): entries no longer believed or no longer kept, and the
#: texts an entry had before its current one.
PAST_TRUST = frozenset({"superseded", "retracted"})
PAST_STATUSES = frozenset({"retired", "version"})
#: Where a text that no file shows lives: the project's history (``orbital history``).
HISTORY = "history"

_TEXT_EVENTS = (EntryCreated, EntryRevised, EntryRetitled)


class SearchDoc(msgspec.Struct, frozen=True):
    """One searchable text: ``doc`` names it in its project (``entry:<id>``, a past version
    ``entry:<id>@<position>``, ``ask:<id>``); ``item`` is the entry's or ask's id; ``status``
    the entry's (``live``, ``archived``, ``merged``, ``retired``; ``version`` for a past text)
    or the ask's (``open``, ``done``, ``dropped``); ``trust`` the entry's ("" for the rest);
    ``actor``, ``at`` and ``position``: who wrote this text, when, at which event."""

    doc: str
    kind: str
    item: str
    file: str
    status: str
    trust: str
    actor: str
    at: dt.datetime
    position: int
    text: str


def stream_docs(stream: str, events: Sequence[RecordedEvent]) -> list[SearchDoc]:
    """The searchable texts of one ``entry:`` or ``ask:`` stream, from all its events."""
    if not events:
        return []
    if stream.startswith(ASK_PREFIX):
        asks = fold_asks((n, e.event) for n, e in enumerate(events, 1))
        opened, last = events[0], events[-1]
        return [
            SearchDoc(
                f"ask:{ask.id}",
                "ask",
                ask.id,
                ASKS_KEY,
                ask.state,
                "",
                opened.actor.value,
                opened.recorded_at,
                last.position,
                ask.text,
            )
            for ask in asks.values()
        ]
    entry = fold_entry(e.event for e in events)
    if entry is None:
        return []
    texts = [e for e in events if isinstance(e.event, _TEXT_EVENTS)]
    docs = []
    for n, written in enumerate(texts):
        text = getattr(written.event, "text", "")
        current = n == len(texts) - 1
        doc = f"entry:{entry.entry_id}"
        docs.append(
            SearchDoc(
                doc if current else f"{doc}@{written.position}",
                "entry" if current else "version",
                entry.entry_id,
                entry.file,
                entry.status if current else "version",
                entry.trust.state if current else "",
                written.actor.value,
                written.recorded_at,
                written.position,
                entry.text if current else text,
            )
        )
    return docs


class SearchQuery(msgspec.Struct, frozen=True):
    """A checked search (build it with :func:`search_query`)."""

    words: tuple[str, ...]
    #: A memory file's key (``decisions``; ``asks``), "" for all.
    file: str = ""
    #: One of :data:`TRUST_STATES`, "" for any.
    trust: str = ""
    #: One actor's texts, "" for anyone's.
    actor: str = ""
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    #: Also superseded, retracted and retired entries and past versions.
    past: bool = False
    limit: int = DEFAULT_LIMIT

    @property
    def untrusted(self) -> bool:
        """Whether superseded and retracted entries are searched: with the past, or when
        the trust filter names one of them."""
        return self.past or self.trust in PAST_TRUST


def search_query(
    text: str,
    *,
    file: str = "",
    trust: str = "",
    actor: str = "",
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    past: bool = False,
    limit: int = DEFAULT_LIMIT,
) -> SearchQuery:
    """A checked search: the words of ``text`` (letters and digits; the rest separates them,
    so no character is ever the engine's syntax) and the filters, or what is wrong with them."""
    if len(text) > MAX_QUERY:
        raise InvalidInput(f"the search text is {len(text)} characters; at most {MAX_QUERY}")
    words = tuple(words_of(text))
    if not words:
        raise InvalidInput(f"the search {text!r} has no word to look for (letters or digits)")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be from 1 to {MAX_LIMIT}, not {limit}")
    if trust and trust not in TRUST_STATES:
        raise InvalidInput(f"trust must be one of {', '.join(TRUST_STATES)}, not {trust!r}")
    actors = [a.value for a in Actor]
    if actor and actor not in actors:
        raise InvalidInput(f"actor must be one of {', '.join(actors)}, not {actor!r}")
    return SearchQuery(words, file_key(file), trust, actor, since, until, past, limit)


#: Every name a search's ``file`` may be: a key, a memory file's or an archive's name.
FILE_CHOICES = ["", *MEMORY_FILES, *MEMORY_FILES.values(), *ARCHIVE_FILES.values()]


def file_key(name: str) -> str:
    """A memory file's key from its key or its (or its archive's) name, in any case."""
    name = name.strip()
    if not name:
        return ""
    names = {key: key for key in MEMORY_FILES}
    names |= {n.casefold(): key for key, n in MEMORY_FILES.items()}
    names |= {n.casefold(): key for key, n in ARCHIVE_FILES.items()}
    found = names.get(name.casefold())
    if found is None:
        listed = ", ".join([*MEMORY_FILES.values(), *ARCHIVE_FILES.values()])
        raise InvalidInput(f"file must be one of {listed} (or its key), not {name!r}")
    return found


class SearchHit(msgspec.Struct, frozen=True):
    """One text found: the entry's or ask's ``id`` (open it with ``memory_get``), its
    ``state`` (an entry's status and trust, a past version, an ask's state), ``where`` it
    lives (a memory file, an archive, ASKS.md, or the history at ``position``), who wrote this
    text and when."""

    id: str
    kind: str
    state: str
    where: str
    title: str
    text: str
    actor: str
    at: dt.datetime
    position: int
    score: float


def where_of(kind: str, file: str, status: str) -> str:
    """Where a text lives: its memory file, the file's archive, or the history."""
    if kind == "ask":
        return MEMORY_FILES[ASKS_KEY]
    if status == "live":
        return MEMORY_FILES.get(file, file)
    if status in ("archived", "merged"):
        return ARCHIVE_FILES.get(file, file)
    return HISTORY


def state_of(kind: str, status: str, trust: str) -> str:
    """How a hit reads its state: ``live, held``, ``archived, superseded``, ``open``…"""
    return f"{status}, {trust}" if kind == "entry" else status
