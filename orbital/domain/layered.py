"""An immutable mapping, and a sorted collection, each cheap to update a few entries at a time.

The asks of a large project and their indexes change by one or two entries per write; copying
the whole dict for each new version would make every write cost the size of the project. A
:class:`Layered` keeps a large base, shared by successive versions and never changed, under a
small delta of the entries changed since: an update copies the delta, and folds it into a new
base once it grows past ``max_delta`` (so the copying averages out to a few entries).
"""

from __future__ import annotations

import abc
import bisect
import functools
import heapq
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

K = TypeVar("K")
V = TypeVar("V")
#: An item of an :class:`Ordered`.
T = TypeVar("T", bound="Hashable")

#: Changed entries kept apart from the base before the two are merged.
MAX_DELTA = 512
T_co = TypeVar("T_co", covariant=True)


class Sorted(Protocol[T_co]):
    """An :class:`Ordered`'s base: items in key order, read from either end (a list, or rows
    a store hands out a page at a time)."""

    def __iter__(self) -> Iterator[T_co]: ...

    def __reversed__(self) -> Iterator[T_co]: ...

    def __len__(self) -> int: ...


class Many(Mapping[K, V], Generic[K, V]):
    """A mapping that reads many keys at once for less than one at a time (a store's rows)."""

    @abc.abstractmethod
    def many(self, keys: list[K]) -> dict[K, V]:
        """The entries of ``keys`` there are."""


class Layered(Mapping[K, V], Generic[K, V]):
    """Read it like any mapping; never change the dicts given to it or read from it."""

    def __init__(
        self,
        base: Mapping[K, V] | None = None,
        delta: dict[K, V] | None = None,
        max_delta: int = MAX_DELTA,
    ) -> None:
        #: Any mapping (one that decodes its values when read, say), a dict most often.
        self._base: Mapping[K, V] = base if base is not None else {}
        self._delta: dict[K, V] = delta if delta is not None else {}
        self._max_delta = max_delta

    def updated(self, items: Iterable[tuple[K, V]]) -> Layered[K, V]:
        """A new version with ``items`` set (this one is unchanged)."""
        delta = {**self._delta, **dict(items)}
        if len(delta) > self._max_delta:
            return Layered({**self._base, **delta}, None, self._max_delta)
        return Layered(self._base, delta, self._max_delta)

    def many(self, keys: Iterable[K]) -> dict[K, V]:
        """The entries of ``keys`` there are, those of the base read together when it reads
        many at once (a store's rows: one statement, not one per key)."""
        wanted = list(dict.fromkeys(keys))
        found = {k: self._delta[k] for k in wanted if k in self._delta}
        rest = [k for k in wanted if k not in found]
        if isinstance(self._base, Many):
            found.update(self._base.many(rest))
        else:
            found.update((k, self._base[k]) for k in rest if k in self._base)
        return found

    @functools.cached_property
    def merged(self) -> dict[K, V]:
        """Every entry in one dict (built once per version, the first time it is wanted):
        base keys first in their order, then new keys in the order they were set."""
        if self._delta or not isinstance(self._base, dict):
            return {**self._base, **self._delta}
        return self._base

    def __getitem__(self, key: K) -> V:
        try:
            return self._delta[key]
        except KeyError:
            return self._base[key]

    def __contains__(self, key: object) -> bool:
        return key in self._delta or key in self._base

    def __iter__(self) -> Iterator[K]:
        return iter(self.merged)

    def __len__(self) -> int:
        return len(self.merged)


class Ordered(Generic[T]):
    """An immutable sorted collection that is cheap to update a few items at a time, as
    :class:`Layered` is for a mapping: a base list sorted by ``key``, shared by successive
    versions and never changed, under a small delta (items added, kept sorted; base items
    removed), folded into a new base once it grows past ``max_delta``. Items are hashable and
    their keys distinct; the items themselves are held, so it costs a pointer per item.

    Read it from either end lazily (:meth:`ascending`, :meth:`descending`): taking the first
    few costs a few steps, whatever the length."""

    __slots__ = ("_added", "_base", "_key", "_max_delta", "_removed")

    def __init__(
        self,
        base: Sorted[T],
        key: Callable[[T], SupportsRichComparison],
        added: list[T] | None = None,
        removed: frozenset[T] = frozenset(),
        max_delta: int = MAX_DELTA,
    ) -> None:
        self._base, self._key, self._added, self._removed = base, key, added or [], removed
        self._max_delta = max_delta

    @classmethod
    def of(
        cls,
        items: Iterable[T],
        key: Callable[[T], SupportsRichComparison],
        max_delta: int = MAX_DELTA,
    ) -> Ordered[T]:
        return cls(sorted(items, key=key), key, max_delta=max_delta)

    def updated(self, remove: Iterable[T], add: Iterable[T]) -> Ordered[T]:
        """A new version without ``remove`` (each present) and with ``add`` (each absent)."""
        key, added, removed = self._key, list(self._added), set(self._removed)
        for item in remove:
            at = bisect.bisect_left(added, key(item), key=key)
            if at < len(added) and added[at] == item:
                del added[at]
            else:
                removed.add(item)
        for item in add:
            bisect.insort(added, item, key=key)
        if len(added) + len(removed) > self._max_delta:
            merged = Ordered(self._base, key, added, frozenset(removed))
            return Ordered(list(merged.ascending()), key, max_delta=self._max_delta)
        return Ordered(self._base, key, added, frozenset(removed), self._max_delta)

    def ascending(self) -> Iterator[T]:
        base = (item for item in self._base if item not in self._removed)
        return heapq.merge(base, self._added, key=self._key)

    def descending(self) -> Iterator[T]:
        base = (item for item in reversed(self._base) if item not in self._removed)
        return heapq.merge(base, reversed(self._added), key=self._key, reverse=True)

    def __len__(self) -> int:
        return len(self._base) - len(self._removed) + len(self._added)
