"""The index that finds, among many texts (10,000 dropped asks), those a new text restates or
resembles, without comparing it with each: texts filed by the keys of their terms
(:mod:`orbital.domain.rephrase`). What a text's terms are and when two terms match is the
index's :class:`Reading`: the rephrasing guard's own (:data:`RESTATES`), or the wider one of
:mod:`orbital.domain.resemble`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import msgspec

from orbital.domain.layered import Layered
from orbital.domain.rephrase import (
    MIN_SHARED,
    Meaning,
    Overlap,
    Term,
    _matches,
    meaning,
    overlap,
)

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Reading:
    """How an index reads texts and compares terms. A term is filed under its ``keys`` and
    looks up its ``probes``; ``matches`` must hold only for terms one of whose probes is the
    other's key, or whose words share a slip key (what the index finds)."""

    meaning: Callable[[str], Meaning]
    matches: Callable[[Term, Term], bool]
    probes: Callable[[Term], frozenset[str]] = operator.attrgetter("keys")
    #: The least share of the longer text's terms two must have in common.
    min_shared: float = MIN_SHARED
    #: Whether an overlap is one this reading finds (the guard's: :meth:`Overlap.same_at`
    #: ``min_shared``); it must need one side's terms all matched, as the index files by.
    accepts: Callable[[Overlap, float], bool] = Overlap.same_at
    #: Whether two texts ask for opposite things without a negation (the wide reading's
    #: antonyms): read as a negation on one side only.
    opposed: Callable[[Meaning, Meaning], bool] | None = None

    def overlap(self, a: Meaning, b: Meaning) -> Overlap:
        found = overlap(a, b, self.matches)
        if self.opposed is not None and self.opposed(a, b):
            return msgspec.structs.replace(found, negation_differs=not found.negation_differs)
        return found

    def same(self, found: Overlap) -> bool:
        """Whether two texts that line up as ``found`` are one for this reading."""
        return self.accepts(found, self.min_shared)


#: The rephrasing guard's reading: a restatement, certainly the same ask.
RESTATES = Reading(meaning, _matches)


@dataclass(frozen=True)
class MeaningIndex(Generic[K]):
    """Texts filed by the keys of their terms, to find which of many (10,000 dropped asks)
    a new text restates without comparing it with each. Two terms match only when they
    share a key or their words are one typo apart (found through :attr:`spellings`), and a
    restatement has every needed term of one side matched. So the only items compared are
    those whose *pivot* the text matches (one needed term of each item, the rarest when it
    was filed: if all of an item's needed terms are matched, that one is) and those that
    match every needed term of the text (the intersection of its terms' postings, rarest
    first). Grows by :meth:`added`; rebuild it to take items out (rare: a dropped ask
    reopened)."""

    meanings: Layered[K, Meaning] = field(default_factory=Layered)
    #: key (and ``~word``) -> the items with a term carrying it
    postings: Layered[str, tuple[K, ...]] = field(default_factory=Layered)
    #: slip key -> the words filed that have it
    spellings: Layered[str, frozenset[str]] = field(default_factory=Layered)
    #: key -> the items whose pivot carries it. Which term is an item's pivot depends on
    #: what was filed before it (any needed term is correct; the rarest keeps the lists
    #: short), so an index grown item by item equals one built at once but for these.
    pivots: Layered[str, tuple[K, ...]] = field(default_factory=Layered, compare=False)
    reading: Reading = field(default=RESTATES, compare=False)

    def added(self, items: Iterable[tuple[K, str]]) -> MeaningIndex[K]:
        filed = [(item, self.reading.meaning(text)) for item, text in items]
        if not filed:
            return self
        grown: dict[str, list[K]] = {}
        spelt: dict[str, set[str]] = {}
        for item, found in filed:
            for term in found.terms:
                for key in _filed_keys(term):
                    if key not in grown:
                        grown[key] = list(self.postings.get(key, ()))
                    if not grown[key] or grown[key][-1] != item:
                        grown[key].append(item)
                for slip in term.slips:
                    if slip not in spelt:
                        spelt[slip] = set(self.spellings.get(slip, ()))
                    spelt[slip].add(term.word)

        def filed_with(term: Term) -> int:
            return sum(len(grown[key]) for key in _filed_keys(term))

        pivoted: dict[str, list[K]] = {}
        for item, found in filed:
            needed = [t for t in found.terms if not t.generic]
            # Without a needed term, any term matched makes the item's side covered.
            for term in [min(needed, key=filed_with)] if needed else found.terms:
                for key in _filed_keys(term):
                    if key not in pivoted:
                        pivoted[key] = list(self.pivots.get(key, ()))
                    pivoted[key].append(item)
        return MeaningIndex(
            self.meanings.updated(filed),
            self.postings.updated((key, tuple(v)) for key, v in grown.items()),
            self.spellings.updated((key, frozenset(v)) for key, v in spelt.items()),
            self.pivots.updated((key, tuple(v)) for key, v in pivoted.items()),
            self.reading,
        )

    def restated_by(self, text: str) -> dict[K, float]:
        """The items ``text`` restates, with their :attr:`Overlap.strength`."""
        query = self.reading.meaning(text)
        lookups = [self._lookup(term) for term in query.terms]
        candidates = {i for keys in lookups for key in keys for i in self.pivots.get(key, ())}
        candidates |= self._covering(query, lookups)
        meanings = self.meanings  # a lookup per candidate item
        found: dict[K, float] = {}
        for item in candidates:
            match = self.reading.overlap(meanings[item], query)
            if self.reading.same(match):
                found[item] = match.strength
        return found

    def _lookup(self, term: Term) -> set[str]:
        """The keys under which the terms ``term`` matches are filed."""
        keys = set(self.reading.probes(term))
        near = set().union(*(self.spellings.get(slip, ()) for slip in term.slips))
        keys.update("~" + w for w in near)  # the reading's ``matches`` tells a slip
        return keys

    def _items(self, keys: Iterable[str]) -> set[K]:
        return {item for key in keys for item in self.postings.get(key, ())}

    def _covering(self, query: Meaning, lookups: list[set[str]]) -> set[K]:
        """The items with a term matching each needed term of ``query`` (with none needed:
        the items matching any of its terms)."""
        needed = [(t, keys) for t, keys in zip(query.terms, lookups, strict=True) if not t.generic]
        if not needed:
            return self._items(k for keys in lookups for k in keys)
        needed.sort(key=lambda pair: sum(len(self.postings.get(k, ())) for k in pair[1]))
        items = self._items(needed[0][1])
        for term, keys in needed[1:]:
            if len(items) > _FEW:
                items &= self._items(keys)
            else:  # a few left: look at their terms rather than at a long posting list
                matches = self.reading.matches
                items = {i for i in items if any(matches(term, u) for u in self.meanings[i].terms)}
            if not items:
                break
        return items


#: Candidates few enough to check term by term instead of intersecting posting lists.
_FEW = 32


def _filed_keys(term: Term) -> frozenset[str]:
    """The keys a term is filed under: its keys, and its word when a typo may reach it."""
    return term.keys | {"~" + term.word} if term.slips else term.keys


#: How a built index is kept: each map merged (the base/overlay split is not kept); read
#: back, each meaning, posting list and pivot list apart (:class:`_Encoded`).
_Stored = tuple[
    dict[str, msgspec.Raw],
    dict[str, msgspec.Raw],
    dict[str, frozenset[str]],
    dict[str, msgspec.Raw],
]


def encode_index(index: MeaningIndex[str]) -> bytes:
    """A built index as bytes (msgpack), for :func:`decode_index` in another process."""
    stored = (
        index.meanings.merged,
        index.postings.merged,
        index.spellings.merged,
        index.pivots.merged,
    )
    return msgspec.msgpack.encode(stored)


def decode_index(data: bytes, reading: Reading = RESTATES) -> MeaningIndex[str]:
    """The index :func:`encode_index` kept (``msgspec.DecodeError`` when it is not one)."""
    meanings, postings, spellings, pivots = msgspec.msgpack.decode(data, type=_Stored)
    return MeaningIndex(
        Layered(_Encoded(meanings, _MEANING)),
        Layered(_Encoded(postings, _ITEMS)),
        Layered(spellings),
        Layered(_Encoded(pivots, _ITEMS)),
        reading,
    )


_MEANING = msgspec.msgpack.Decoder(Meaning)
_ITEMS = msgspec.msgpack.Decoder(tuple[str, ...])


class _Encoded(Mapping[str, V]):
    """Kept meanings or lists of items, each decoded the first time it is read: a lookup
    compares the text with a few meanings and reads the lists of a few keys, and decoding
    them all cost it more than the rest (10,000 dropped asks: the meanings ~50 ms of ~60;
    the wide reading's 190,000 posted items, with WordNet's senses, 85 M instructions)."""

    def __init__(
        self, encoded: dict[str, msgspec.Raw], decoder: msgspec.msgpack.Decoder[V]
    ) -> None:
        self._encoded, self._decoder = encoded, decoder
        self._decoded: dict[str, V] = {}

    def __getitem__(self, key: str) -> V:
        found = self._decoded.get(key)
        if found is None:
            found = self._decoded[key] = self._decoder.decode(self._encoded[key])
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._encoded

    def __iter__(self) -> Iterator[str]:
        return iter(self._encoded)

    def __len__(self) -> int:
        return len(self._encoded)
