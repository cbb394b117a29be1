"""The dropped asks' meaning indexes kept in the store, one family per reading
(``asks-restates``, ``asks-resembles``): a list per key (``key_lists``) — the asks posted under
a term's key, the asks pivoting on it, the words under a slip key — as
:meth:`MeaningIndex.filing` makes them, so a lookup reads the lists of the new text's keys in
a statement or two, never the whole index (the wide reading files each ask under every
WordNet sense of its words: a row per key and ask would be 150 rows an ask).

A family is caught up by the writer that first looks in it (a unit deciding an agent's open),
inside its transaction: the asks moved since its position are taken out and the dropped among
them filed again by the same :meth:`~MeaningIndex.filing` over the index as the store holds it.
Its stamp is of the matcher's code, the Python and Unicode it folds text with, the stemmers'
files and, for the wide reading, WordNet's files by name and size: the same on a team's
machines that run the same Orbital, so a shared PostgreSQL store is not made again by each.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

from orbital.catalogue import ASK_PREFIX
from orbital.domain.asks import Ask
from orbital.domain.layered import Layered, Many
from orbital.domain.lazy_meanings import ReadingName, reading_named
from orbital.domain.meaning_index import MeaningIndex, Reading
from orbital.domain.rephrase import Meaning
from orbital.domain.wordnet import WordNet
from orbital.service._stream_keys import SEP, behind, source_digest
from orbital.store import EventStore, Projected, Reader, Writer

#: The modules a text's terms and their keys come from (what the stamp is of).
_MATCHER = (
    "orbital.domain.meaning_index",
    "orbital.domain.rephrase",
    "orbital.domain.rephrase_lexicon",
    "orbital.grammar.text",
)
_WIDE = ("orbital.domain.resemble", "orbital.domain.wordnet")
V = TypeVar("V")
#: Stream states read (and dropped asks filed) at a time when a family is caught up.
STATES_PAGE = 5_000


def family(reading: ReadingName) -> str:
    return f"asks-{reading}"


@functools.cache
def _sources(modules: tuple[str, ...]) -> bytes:
    """The modules' sources and the stemmers' files by name and size."""
    digest = hashlib.sha256(source_digest(modules))
    stemmers = importlib.util.find_spec("snowballstemmer")
    if stemmers is not None and stemmers.origin is not None:
        folder = Path(stemmers.origin).parent
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.is_file():
                digest.update(f"{entry.name}:{entry.stat().st_size};".encode())
    return digest.digest()


def stamp(reading: ReadingName, lexicon: WordNet) -> str:
    """What a family's keys depend on besides the dropped asks (see the module's text)."""
    wide = reading == "resembles"
    digest = hashlib.sha256(_sources(_MATCHER + (_WIDE if wide else ())))
    digest.update(f"{sys.version_info[:2]};{unicodedata.unidata_version}".encode())
    if wide:  # the files by name and size (not where they are, nor when they were written)
        digest.update(
            ";".join(p.rsplit(":", 1)[0] for p in lexicon.identity.split(";")[1:]).encode()
        )
    return digest.hexdigest()


class _Read(Many[str, V]):
    """What a lookup read of one kind of list, kept for the rest of the transaction: each key
    read once, many in one statement (:meth:`many`)."""

    def __init__(self, r: Reader, project: str, family: str) -> None:
        self._r, self._project, self._family = r, project, family
        self._known: dict[str, V | None] = {}

    def _read(self, keys: list[str]) -> dict[str, V]:
        raise NotImplementedError

    def many(self, keys: list[str]) -> dict[str, V]:
        unread = [k for k in keys if k not in self._known]
        if unread:
            found = self._read(unread)
            self._known.update((k, found.get(k)) for k in unread)
        return {k: v for k in keys if (v := self._known[k]) is not None}

    def __getitem__(self, key: str) -> V:
        found = self.many([key])
        if key not in found:
            raise KeyError(key)
        return found[key]

    def __iter__(self) -> Iterator[str]:
        raise TypeError("a meaning index in the store is read by key, never whole")

    def __len__(self) -> int:
        raise TypeError("a meaning index in the store is read by key, never whole")


class _Items(_Read[tuple[str, ...]]):
    """The ids kept under a key of one kind (``p``: posted, ``v``: pivot)."""

    def __init__(self, r: Reader, project: str, family: str, kind: str) -> None:
        super().__init__(r, project, family)
        self._kind = f"{kind}{SEP}"

    def _read(self, keys: list[str]) -> dict[str, tuple[str, ...]]:
        found = self._r.lists(self._project, self._family, (self._kind + k for k in keys))
        start = len(self._kind)
        return {key[start:]: tuple(items) for key, items in found.items()}

    def sizes(self, keys: list[str]) -> dict[str, int]:
        """The lengths kept beside the lists, those read already counted."""
        found = {k: len(v) for k in keys if (v := self._known.get(k)) is not None}
        unread = [k for k in keys if k not in self._known]
        kept = self._r.list_sizes(self._project, self._family, (self._kind + k for k in unread))
        start = len(self._kind)
        return found | {key[start:]: size for key, size in kept.items()}


class _Spellings(_Read[frozenset[str]]):
    """The words kept under a slip key (``s``)."""

    def _read(self, keys: list[str]) -> dict[str, frozenset[str]]:
        found = self._r.lists(self._project, self._family, (f"s{SEP}{k}" for k in keys))
        return {key[2:]: frozenset(words) for key, words in found.items()}


class _Meanings(_Read[Meaning]):
    """A filed ask's meaning, worked out from its text when a lookup compares with it."""

    def __init__(self, r: Reader, project: str, family: str, reading: Reading) -> None:
        super().__init__(r, project, family)
        self._reading = reading

    def _read(self, keys: list[str]) -> dict[str, Meaning]:
        states = self._r.states_of(self._project, (ASK_PREFIX + k for k in keys))
        asks: list[Ask] = [a for a in states.values() if a is not None]
        return {a.id: self._reading.meaning(a.text) for a in asks}


def stored_index(
    r: Reader, project: str, reading: ReadingName, lexicon: WordNet
) -> MeaningIndex[str]:
    """The family's index as ``r`` reads it (each list and meaning read when looked up)."""
    name, read = family(reading), reading_named(reading, lexicon)
    return MeaningIndex(
        Layered(_Meanings(r, project, name, read)),
        Layered(_Items(r, project, name, "p")),
        Layered(_Spellings(r, project, name)),
        Layered(_Items(r, project, name, "v")),
        read,
    )


def _written(w: Writer, project: str, name: str, grown: MeaningIndex[str]) -> None:
    """The lists a filing changed (over a base the store holds), or all of them (an index
    made in memory), written back."""

    def written(found: Layered[str, V]) -> Mapping[str, V]:
        return found.changed if isinstance(found.base, Many) else found.merged

    lists = {f"p{SEP}{k}": list(v) for k, v in written(grown.postings).items()}
    lists.update((f"v{SEP}{k}", list(v)) for k, v in written(grown.pivots).items())
    lists.update((f"s{SEP}{k}", sorted(v)) for k, v in written(grown.spellings).items())
    w.put_lists(project, name, lists)


#: The key of the row that marks an ask filed in a family (``stream_keys``): a catch-up
#: takes out of the lists only the moved asks marked so.
FILED = "filed"


def _taken_out(w: Writer, project: str, name: str, read: Reading, asks: list[Ask]) -> None:
    """Those of ``asks`` filed in the family out of every posting and pivot list their
    meanings file them under (their words' spellings stay: a word another ask may share,
    and a slip key only leads to posting lists), and their marks gone."""
    streams = [ASK_PREFIX + a.id for a in asks]
    marked = {stream for stream, key in w.keys_of(project, name, streams) if key == FILED}
    filed = [a for a in asks if ASK_PREFIX + a.id in marked]
    w.file_keys(project, name, list(marked), [])
    if not filed:
        return
    _, filings = MeaningIndex[str](reading=read).filing((a.id, a.text) for a in filed)
    gone = {a.id for a in filed}
    keys = [f"{kind}{SEP}{key}" for f in filings for key in f.keys for kind in "pv"]
    found = w.lists(project, name, keys)
    w.put_lists(project, name, {k: [i for i in v if i not in gone] for k, v in found.items()})


def _marked(w: Writer, project: str, name: str, ask_ids: Iterable[str]) -> None:
    """The asks just filed marked so (:data:`FILED`)."""
    w.file_keys(project, name, [], [(FILED, ASK_PREFIX + ask_id) for ask_id in ask_ids])


def caught_up(w: Writer, project: str, reading: ReadingName, lexicon: WordNet) -> MeaningIndex[str]:
    """The family's index, brought up to the asks' head inside ``w``'s transaction first: the
    asks moved since its position taken out of it and the dropped ones filed again by
    :meth:`MeaningIndex.filing` over the lists as the store holds them. Made whole (never
    made, or by other code: :func:`made_whole`) when :func:`made_ahead` did not make it
    first, which is the same but holds no lock while it files."""
    name, code, read = family(reading), stamp(reading, lexicon), reading_named(reading, lexicon)
    head, found = behind(w, project, name, ASK_PREFIX, code)
    if found is None:
        made = made_whole(w, project, read)
        _write_whole(w, project, name, code, made)
        found = Projected(made.position, code, {})
    if found.position < head:
        for moved in w.state_pages(project, ASK_PREFIX, after=found.position, size=STATES_PAGE):
            _taken_out(w, project, name, read, [a for a in moved.values() if a is not None])
            dropped = _dropped(moved)
            _written(w, project, name, stored_index(w, project, reading, lexicon).added(dropped))
            _marked(w, project, name, (ask_id for ask_id, _ in dropped))
        w.keys_at(project, name, Projected(head, code, {}))
    return stored_index(w, project, reading, lexicon)


def made_ahead(store: EventStore, project: str, reading: ReadingName, lexicon: WordNet) -> None:
    """The family made whole, when it is not there for this code, ahead of a decision that
    looks in it: every dropped ask filed in a read transaction (minutes at a million events,
    and the store's writers go on meanwhile), then written in a write transaction of its own
    that catches it up to the head (:func:`caught_up`). A family another process made in the
    meantime is kept and this one let go, and so is this one when the keys were dropped in
    the meantime (a purge, an import)."""
    name, code = family(reading), stamp(reading, lexicon)
    filed = filed_ahead(store, project, reading, lexicon)
    if filed is None:
        return
    drops, made = filed
    with store.writing() as w:
        found = w.keys_projected(project, name)
        # Keys dropped since (a purge: the states read held its text) make it under the lock.
        if (found is None or found.stamp != code) and w.key_drops(project) == drops:
            w.drop_family(project, name)
            _write_whole(w, project, name, code, made)
        caught_up(w, project, reading, lexicon)


def filed_ahead(
    store: EventStore, project: str, reading: ReadingName, lexicon: WordNet
) -> tuple[int, Made] | None:
    """The family made whole in a read transaction, with how many times the project's keys
    had been dropped then (None: it is there for this code)."""
    name, code, read = family(reading), stamp(reading, lexicon), reading_named(reading, lexicon)
    with store.reader() as r:
        found = r.keys_projected(project, name)
        if found is not None and found.stamp == code:
            return None
        # The drops are counted before a state is read: on PostgreSQL a reader's statements
        # each see what was committed before them, so a purge after this count is caught.
        drops = r.key_drops(project)
        return drops, made_whole(r, project, read)


class Made(NamedTuple):
    """A family made whole from the asks one transaction read, at their head ``position``:
    the index (its lists: ``whole``) and the asks it filed."""

    position: int
    whole: MeaningIndex[str]
    filed: list[str]


def made_whole(r: Reader, project: str, read: Reading) -> Made:
    """Every dropped ask ``r`` reads filed into an index in memory, a page of states at a
    time, its meanings let go after each page (a store keeps none)."""
    position = r.prefix_head(project, ASK_PREFIX)
    whole, filed = MeaningIndex[str](reading=read), []
    for moved in r.state_pages(project, ASK_PREFIX, size=STATES_PAGE):
        dropped = _dropped(moved)
        whole = _without_meanings(whole.added(dropped))
        filed += [ask_id for ask_id, _ in dropped]
    return Made(position, whole, filed)


def _write_whole(w: Writer, project: str, name: str, code: str, made: Made) -> None:
    """A family made whole written (over none), its asks marked filed, at its position."""
    _written(w, project, name, made.whole)
    _marked(w, project, name, made.filed)
    w.keys_at(project, name, Projected(made.position, code, {}))


def _dropped(states: dict[str, Ask | None]) -> list[tuple[str, str]]:
    """The dropped asks among ``states``, oldest drop first, as filed: ``(id, text)``."""
    dropped = sorted((a for a in states.values() if a is not None and a.state == "dropped"),
                     key=lambda a: a.seq)  # fmt: skip
    return [(a.id, a.text) for a in dropped]


def _without_meanings(index: MeaningIndex[str]) -> MeaningIndex[str]:
    """``index`` without the meanings it filed (filing more reads none; the store keeps
    none)."""
    return MeaningIndex(Layered(), index.postings, index.spellings, index.pivots, index.reading)
