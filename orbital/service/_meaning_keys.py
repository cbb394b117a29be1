"""The dropped asks' meaning indexes kept in the store as families of keys, one per reading
(``asks-restates``, ``asks-resembles``): each dropped ask is filed under the keys of its terms,
its pivot's keys and its words' slip keys, where :meth:`MeaningIndex.filing` puts it, and a
lookup reads the rows under the keys of the new text's terms, never the whole index.

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
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from orbital.catalogue import ASK_PREFIX
from orbital.domain.asks import Ask
from orbital.domain.layered import Layered, Many
from orbital.domain.lazy_meanings import ReadingName, reading_named
from orbital.domain.meaning_index import Filed, MeaningIndex, Reading
from orbital.domain.rephrase import Meaning
from orbital.domain.wordnet import WordNet
from orbital.service._stream_keys import SEP
from orbital.store import Reader, Writer

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
STATES_PAGE = 2_000


def family(reading: ReadingName) -> str:
    return f"asks-{reading}"


@functools.cache
def _sources(modules: tuple[str, ...]) -> bytes:
    digest = hashlib.sha256()
    for module in modules:
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        digest.update(Path(spec.origin).read_bytes())
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
    """What a lookup read of one kind of row, kept for the rest of the transaction: each key
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

    def _all(self) -> list[str]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _Items(_Read[tuple[str, ...]]):
    """The ids filed under a key of one kind (``p``: posted, ``v``: pivot)."""

    def __init__(self, r: Reader, project: str, family: str, kind: str) -> None:
        super().__init__(r, project, family)
        self._kind = f"{kind}{SEP}"

    def _read(self, keys: list[str]) -> dict[str, tuple[str, ...]]:
        rows = self._r.filed_under(self._project, self._family, (self._kind + k for k in keys))
        start, ids = len(self._kind), len(ASK_PREFIX)
        return {key[start:]: tuple(s[ids:] for s in streams) for key, streams in rows.items()}

    def _all(self) -> list[str]:
        ranges = [(self._kind, self._kind[:-1] + "\x02")]
        return [
            key[len(self._kind) :] for key in self._r.keys_in(self._project, self._family, ranges)
        ]


class _Spellings(_Read[frozenset[str]]):
    """The words filed with a slip key (rows ``s<slip><word>``)."""

    def _read(self, keys: list[str]) -> dict[str, frozenset[str]]:
        ranges = [(f"s{SEP}{slip}{SEP}", f"s{SEP}{slip}\x02") for slip in keys]
        words: dict[str, set[str]] = {}
        for key in self._r.keys_in(self._project, self._family, ranges):
            _, slip, word = key.split(SEP)
            words.setdefault(slip, set()).add(word)
        return {slip: frozenset(found) for slip, found in words.items()}

    def _all(self) -> list[str]:
        keys = self._r.keys_in(self._project, self._family, [(f"s{SEP}", "s\x02")])
        return list(dict.fromkeys(key.split(SEP)[1] for key in keys))


class _Meanings(_Read[Meaning]):
    """A filed ask's meaning, worked out from its text when a lookup compares with it."""

    def __init__(self, r: Reader, project: str, family: str, reading: Reading) -> None:
        super().__init__(r, project, family)
        self._reading = reading

    def _read(self, keys: list[str]) -> dict[str, Meaning]:
        states = self._r.states_of(self._project, (ASK_PREFIX + k for k in keys))
        asks: list[Ask] = [a for a in states.values() if a is not None]
        return {a.id: self._reading.meaning(a.text) for a in asks}

    def _all(self) -> list[str]:
        ranges = [(f"p{SEP}", "p\x02")]
        keys = self._r.keys_in(self._project, self._family, ranges)
        streams = self._r.filed_under(self._project, self._family, keys)
        return sorted({s[len(ASK_PREFIX) :] for found in streams.values() for s in found})


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


def _rows(filings: list[Filed[str]]) -> list[tuple[str, str]]:
    """The family's ``(key, stream)`` rows of the items filed."""
    rows: list[tuple[str, str]] = []
    for f in filings:
        stream = ASK_PREFIX + f.item
        rows += [(f"p{SEP}{key}", stream) for key in sorted(f.keys)]
        rows += [(f"v{SEP}{key}", stream) for key in sorted(f.pivots)]
        rows += [(f"s{SEP}{slip}{SEP}{word}", stream) for slip, word in sorted(f.spellings)]
    return rows


def caught_up(w: Writer, project: str, reading: ReadingName, lexicon: WordNet) -> MeaningIndex[str]:
    """The family's index, brought up to the asks' head inside ``w``'s transaction first: the
    asks moved since its position taken out and the dropped ones filed again, over the index
    as the store holds it. Made whole (never made, or by other code), every dropped ask is
    filed a page at a time, each page over an index of its own: any needed term of an ask is
    a correct pivot (the rarest within its page is nearly always the rarest of all), and the
    memory a pass holds is a page's."""
    name, code = family(reading), stamp(reading, lexicon)
    head = w.prefix_head(project, ASK_PREFIX)
    found = w.keys_projected(project, name)
    if found is not None and found[1] == code and found[0] >= head:
        return stored_index(w, project, reading, lexicon)
    whole = found is None or found[1] != code
    if whole:
        w.drop_family(project, name)
    after = 0 if whole or found is None else found[0]
    fresh = MeaningIndex[str](reading=reading_named(reading, lexicon))
    for moved in w.state_pages(project, ASK_PREFIX, after=after, size=STATES_PAGE):
        # The moved ones' rows go before any is filed again (a reopened ask leaves the index).
        w.file_keys(project, name, [] if whole else list(moved), [], position=after, stamp=code)
        index = fresh if whole else stored_index(w, project, reading, lexicon)
        dropped = sorted(
            (a for a in moved.values() if a is not None and a.state == "dropped"),
            key=lambda a: a.seq,
        )
        _, filings = index.filing((a.id, a.text) for a in dropped)
        w.file_keys(project, name, [], _rows(filings), position=after, stamp=code)
    w.file_keys(project, name, [], [], position=head, stamp=code)
    return stored_index(w, project, reading, lexicon)
