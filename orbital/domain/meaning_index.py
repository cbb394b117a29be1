"""The index that finds, among many texts (10,000 dropped asks), those a new text restates or
resembles, without comparing it with each: texts filed by the keys of their terms
(:mod:`orbital.domain.rephrase`). What a text's terms are and when two terms match is the
index's :class:`Reading`: the rephrasing guard's own (:data:`RESTATES`), or the wider one of
:mod:`orbital.domain.resemble`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
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
class Filed(Generic[K]):
    """Where :meth:`MeaningIndex.filing` put one item: the keys it is posted under, the keys
    of its pivot, and the ``(slip key, word)`` of each of its words a typo may reach."""

    item: K
    keys: frozenset[str]
    pivots: frozenset[str]
    spellings: frozenset[tuple[str, str]]


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
        return self.filing(items)[0]

    def filing(self, items: Iterable[tuple[K, str]]) -> tuple[MeaningIndex[K], list[Filed[K]]]:
        """The index with ``items`` added, and where each was filed (what a store keeps of
        it: :mod:`orbital.service._meaning_keys`)."""
        filed = [(item, self.reading.meaning(text)) for item, text in items]
        if not filed:
            return self, []
        terms = [term for _, found in filed for term in found.terms]
        keys = {key for term in terms for key in _filed_keys(term)}
        posted, pivoted_before = self.postings.many(keys), self.pivots.many(keys)
        spellings = self.spellings.many({slip for term in terms for slip in term.slips})
        grown: dict[str, list[K]] = {}
        spelt: dict[str, set[str]] = {}
        for item, found in filed:
            for term in found.terms:
                for key in _filed_keys(term):
                    if key not in grown:
                        grown[key] = list(posted.get(key, ()))
                    if not grown[key] or grown[key][-1] != item:
                        grown[key].append(item)
                for slip in term.slips:
                    if slip not in spelt:
                        spelt[slip] = set(spellings.get(slip, ()))
                    spelt[slip].add(term.word)

        def filed_with(term: Term) -> int:
            return sum(len(grown[key]) for key in _filed_keys(term))

        pivoted: dict[str, list[K]] = {}
        filings: list[Filed[K]] = []
        for item, found in filed:
            needed = [t for t in found.terms if not t.generic]
            # Without a needed term, any term matched makes the item's side covered.
            pivots = [min(needed, key=filed_with)] if needed else found.terms
            for term in pivots:
                for key in _filed_keys(term):
                    if key not in pivoted:
                        pivoted[key] = list(pivoted_before.get(key, ()))
                    pivoted[key].append(item)
            filings.append(
                Filed(
                    item,
                    frozenset(k for t in found.terms for k in _filed_keys(t)),
                    frozenset(k for t in pivots for k in _filed_keys(t)),
                    frozenset((slip, t.word) for t in found.terms for slip in t.slips),
                )
            )
        index = MeaningIndex(
            self.meanings.updated(filed),
            self.postings.updated((key, tuple(v)) for key, v in grown.items()),
            self.spellings.updated((key, frozenset(v)) for key, v in spelt.items()),
            self.pivots.updated((key, tuple(v)) for key, v in pivoted.items()),
            self.reading,
        )
        return index, filings

    def restated_by(self, text: str) -> dict[K, float]:
        """The items ``text`` restates, with their :attr:`Overlap.strength`. The lists and
        meanings it reads are read together (:meth:`Layered.many`): a store's rows in a few
        statements."""
        query = self.reading.meaning(text)
        slips = {slip for term in query.terms for slip in term.slips}
        spellings = self.spellings.many(slips)
        lookups = [self._lookup(term, spellings) for term in query.terms]
        keys = {key for found in lookups for key in found}
        pivots = self.pivots.many(keys)
        candidates = {i for key in keys for i in pivots.get(key, ())}
        candidates |= self._covering(query, lookups)
        meanings = self.meanings.many(candidates)
        found: dict[K, float] = {}
        for item in candidates:
            match = self.reading.overlap(meanings[item], query)
            if self.reading.same(match):
                found[item] = match.strength
        return found

    def _lookup(self, term: Term, spellings: Mapping[str, frozenset[str]]) -> set[str]:
        """The keys under which the terms ``term`` matches are filed."""
        keys = set(self.reading.probes(term))
        near = set().union(*(spellings.get(slip, ()) for slip in term.slips))
        keys.update("~" + w for w in near)  # the reading's ``matches`` tells a slip
        return keys

    def _covering(self, query: Meaning, lookups: list[set[str]]) -> set[K]:
        """The items with a term matching each needed term of ``query`` (with none needed:
        the items matching any of its terms). The needed terms are taken shortest postings
        first, by the lists' lengths alone, and a term's lists are read only when its turn
        comes: a term nothing is filed under ends it before any long list is read."""

        def items(keys: Iterable[str]) -> set[K]:
            postings = self.postings.many(keys)
            return {item for key in postings for item in postings[key]}

        needed = [(t, keys) for t, keys in zip(query.terms, lookups, strict=True) if not t.generic]
        if not needed:
            return items(k for keys in lookups for k in keys)
        sizes = self.postings.sizes(k for _, keys in needed for k in keys)
        needed.sort(key=lambda pair: sum(sizes.get(k, 0) for k in pair[1]))
        found: set[K] = set()
        for n, (term, keys) in enumerate(needed):
            if n == 0 or len(found) > _FEW:
                if not any(sizes.get(k, 0) for k in keys):
                    return set()
                found = items(keys) if n == 0 else found & items(keys)
            else:  # a few left: look at their terms rather than at a long posting list
                matches, meanings = self.reading.matches, self.meanings.many(found)
                found = {i for i in found if any(matches(term, u) for u in meanings[i].terms)}
            if not found:
                break
        return found


#: Candidates few enough to check term by term instead of intersecting posting lists.
_FEW = 32


def _filed_keys(term: Term) -> frozenset[str]:
    """The keys a term is filed under: its keys, and its word when a typo may reach it."""
    return term.keys | {"~" + term.word} if term.slips else term.keys
