"""The asks read from the store's keys (:mod:`._stream_keys`), through the mappings and the
orders the deciders and the view take: an ask by id, the open asks with a text, the latest
dropped ask with a text, the first asks of each of the view's orders. A process that holds no
ask in memory (a hook, a CLI command; a server before its first decision) answers these from
the few rows under their keys, whatever the length of the log.

Each reads through one transaction, as of the keys' position plus the asks that moved since
(``moved``: their states now). A writer catches the keys up first and has none moved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from orbital.catalogue import ASK_PREFIX
from orbital.domain.asks import DROPPED, LOOSE, OPEN, Ask, DroppedIndex, OpenIndex, filed
from orbital.domain.layered import Layered, Ordered
from orbital.domain.lazy_meanings import IndexBuilder, LazyMeaningIndex, ReadingName
from orbital.service._stream_keys import ASK_KEYS, count, index_key, index_range, stamp
from orbital.store import Projected, Reader, Writer
from projections.asks_view import ORDERS, ViewAsks, order_of, order_range, view_key

if TYPE_CHECKING:
    from orbital.domain.meaning_index import MeaningIndex
    from orbital.domain.wordnet import WordNet

#: Rows read by the first page of a range of keys (a view shows 10 or 15 of an order); each
#: page after it reads twice as many, up to :data:`PAGE`.
FIRST_PAGE = 16
#: Rows read per page of a range of keys, at most.
PAGE = 256
FAMILY = ASK_KEYS.name


class Keyed:
    """The asks' keys as one transaction reads them: as of the keys' position, with the asks
    that moved since as they are now."""

    def __init__(
        self, r: Reader, project: str, moved: Mapping[str, Ask], counts: Mapping[str, int]
    ) -> None:
        self.r, self.project, self.moved, self.counts = r, project, moved, counts

    @classmethod
    def of(cls, r: Reader, project: str, head: int, found: Projected | None) -> Keyed | None:
        """The keys as ``r`` reads them, projected as ``found`` says (None: not there, or
        made by other code)."""
        if found is None or found.stamp != stamp(ASK_KEYS):
            return None
        moved: dict[str, Ask] = {}
        if found.position < head:
            states = r.states(project, ASK_PREFIX, after=found.position)
            moved = {ask.id: ask for ask in states.values() if ask is not None}
        return cls(r, project, moved, found.counts)

    def page(
        self,
        lo: str,
        hi: str,
        descending: bool,
        after: tuple[str, str] | None,
        limit: int = PAGE,
    ) -> tuple[list[Ask], tuple[str, str] | None]:
        """The next ``limit`` rows' asks filed in ``[lo, hi)`` after ``after`` (the moved
        left out), and where the page after it starts (None: this was the last)."""
        rows = self.r.keyed(
            self.project, FAMILY, lo, hi, descending=descending, after=after, limit=limit
        )
        asks = [a for _, _, a in rows if a is not None and a.id not in self.moved]
        return asks, (rows[-1][0], rows[-1][1]) if len(rows) == limit else None

    def pages(self, lo: str, hi: str) -> Iterator[Ask]:
        """Every ask filed in ``[lo, hi)`` in key order, a page at a time (the moved left
        out)."""
        after: tuple[str, str] | None = None
        while True:
            asks, after = self.page(lo, hi, False, after)
            yield from asks
            if after is None:
                return

    def under(self, index: str, key: str) -> list[Ask]:
        """The asks filed under ``key`` in one of the refusals' indexes, oldest change first."""
        found = [
            ask
            for _, ask in self.r.under(self.project, FAMILY, index_key(index, key))
            if ask is not None and ask.id not in self.moved
        ]
        found += [a for a in self.moved.values() if (index, key) in filed(a)]
        return sorted(found, key=lambda a: a.seq)

    def ask(self, ask_id: str) -> Ask | None:
        found = self.moved.get(ask_id)
        if found is None:
            found = self.r.state(self.project, ASK_PREFIX + ask_id)
        return found


class _Order:
    """One of the view's orders as the store files it, but the moved asks (the caller's delta
    holds them): read a page at a time from either end, each page once (the view reads the
    same first asks for its text and for the paths it mentions)."""

    def __init__(self, keyed: Keyed, n: int, length: int) -> None:
        self._keyed = keyed
        self._lo, self._hi = order_range(n)
        self._len = length
        #: Per direction (descending?): the asks read so far, where the next page starts,
        #: whether every page was read, and how many pages were.
        self._read: dict[bool, tuple[list[Ask], tuple[str, str] | None, bool, int]] = {}

    def _pages(self, descending: bool) -> Iterator[Ask]:
        seen = 0
        while True:
            asks, after, done, pages = self._read.get(descending, ([], None, False, 0))
            yield from asks[seen:]
            seen = len(asks)
            if done:
                return
            limit = min(FIRST_PAGE << pages, PAGE)
            more, after = self._keyed.page(self._lo, self._hi, descending, after, limit)
            self._read[descending] = ([*asks, *more], after, after is None, pages + 1)

    def __iter__(self) -> Iterator[Ask]:
        return self._pages(descending=False)

    def __reversed__(self) -> Iterator[Ask]:
        return self._pages(descending=True)

    def __len__(self) -> int:
        """The order's rows as counted when the keys were filed, but the moved asks'."""
        return self._len


class StoredAsks(Mapping[str, Ask]):
    """The project's asks by id, each read when asked for. Iterating reads every ask's name
    (a listing of all of them)."""

    def __init__(self, keyed: Keyed) -> None:
        self._keyed = keyed

    def __getitem__(self, ask_id: str) -> Ask:
        found = self._keyed.ask(ask_id)
        if found is None:
            raise KeyError(ask_id)
        return found

    def __contains__(self, ask_id: object) -> bool:
        return isinstance(ask_id, str) and self._keyed.ask(ask_id) is not None

    def __iter__(self) -> Iterator[str]:
        names = self._keyed.r.stream_names(self._keyed.project, ASK_PREFIX)
        return (name[len(ASK_PREFIX) :] for name in names)

    def __len__(self) -> int:
        return len(self._keyed.r.stream_names(self._keyed.project, ASK_PREFIX))


def stored_view(keyed: Keyed) -> ViewAsks:
    """The asks in the view's orders (read it inside the keys' transaction)."""
    moved = [ASK_PREFIX + ask_id for ask_id in keyed.moved]
    counts = dict(keyed.counts)  # less the moved asks' rows (the delta holds them)
    count(counts, (key for _, key in keyed.r.keys_of(keyed.project, FAMILY, moved)), -1)
    placed: tuple[list[Ask], ...] = tuple([] for _ in range(ORDERS))
    for ask in keyed.moved.values():
        placed[order_of(ask)].append(ask)
    orders = tuple(
        Ordered(
            _Order(keyed, n, counts.get(order_range(n)[0], 0)),
            view_key,
            sorted(placed[n], key=view_key),
        )
        for n in range(ORDERS)
    )
    return ViewAsks(StoredAsks(keyed), orders)


class _OpenByText(Mapping[str, Mapping[str, Ask]]):
    """The open asks by normalised text (:class:`OpenIndex`'s ``by_text``)."""

    def __init__(self, keyed: Keyed) -> None:
        self._keyed = keyed

    def __getitem__(self, key: str) -> Mapping[str, Ask]:
        return {a.id: a for a in self._keyed.under(OPEN, key)}

    def __iter__(self) -> Iterator[str]:
        lo, hi = index_range(OPEN)
        return iter(dict.fromkeys(key for a in self._keyed.pages(lo, hi) for _, key in filed(a)))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Latest(Mapping[str, Ask]):
    """The latest dropped ask filed under a key of ``index`` (:class:`DroppedIndex`'s
    ``by_norm`` or ``by_fuzzy``)."""

    def __init__(self, keyed: Keyed, index: str) -> None:
        self._keyed, self._index = keyed, index

    def __getitem__(self, key: str) -> Ask:
        found = self._keyed.under(self._index, key)
        if not found:
            raise KeyError(key)
        return found[-1]

    def __iter__(self) -> Iterator[str]:
        lo, hi = index_range(self._index)
        keys = (k for a in self._keyed.pages(lo, hi) for i, k in filed(a) if i == self._index)
        return iter(dict.fromkeys(keys))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Dropped(Mapping[str, Ask]):
    """The dropped asks by id (:class:`DroppedIndex`'s ``by_id``); iterating reads them all,
    oldest drop first."""

    def __init__(self, keyed: Keyed) -> None:
        self._keyed = keyed

    def __getitem__(self, ask_id: str) -> Ask:
        found = self._keyed.ask(ask_id)
        if found is None or found.state != "dropped":
            raise KeyError(ask_id)
        return found

    def __iter__(self) -> Iterator[str]:
        lo, hi = index_range(DROPPED)
        asks = [*self._keyed.pages(lo, hi), *(a for a in self._keyed.moved.values())]
        dropped = sorted((a for a in asks if a.state == "dropped"), key=lambda a: a.seq)
        return iter([a.id for a in dropped])

    def __len__(self) -> int:
        return sum(1 for _ in self)


def stored_open(keyed: Keyed) -> OpenIndex:
    return OpenIndex(Layered(_OpenByText(keyed)))


#: The WordNet each reading reads with (:meth:`orbital.service._wordnet.Indexing.lexicon`).
Lexicon = Callable[[ReadingName], "WordNet"]


def stored_dropped(keyed: Keyed, build: IndexBuilder, lexicon: Lexicon) -> DroppedIndex:
    """The dropped asks' index over the keys. Its meaning indexes are the store's families
    (:mod:`._meaning_keys`), caught up by a writer at their first lookup; a reader, which
    writes nothing, builds them from every dropped ask (no decision is made in one)."""
    by_id = _Dropped(keyed)

    def load(reading: ReadingName) -> Callable[[], MeaningIndex[str]]:
        def loaded() -> MeaningIndex[str]:
            if isinstance(keyed.r, Writer):
                from orbital.service._meaning_keys import caught_up  # the matcher: when looked in

                return caught_up(keyed.r, keyed.project, reading, lexicon(reading))
            every = tuple((ask_id, by_id[ask_id].text) for ask_id in by_id)
            return build(every, reading)

        return loaded

    return DroppedIndex(
        by_norm=_Latest(keyed, DROPPED),
        by_fuzzy=_Latest(keyed, LOOSE),
        by_meaning=LazyMeaningIndex(build=build, load=load("restates")),
        by_id=by_id,
        by_resemblance=LazyMeaningIndex(build=build, reading="resembles", load=load("resembles")),
    )
