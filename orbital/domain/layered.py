"""An immutable mapping cheap to update a few entries at a time, and a sorted collection read
lazily from either end.

A decision folds a write's own events over the asks and their indexes, a few entries at a
time; copying the whole mapping for each would cost the size of the project. A
:class:`Layered` keeps a large base (a dict, or a store's rows), shared by successive versions
and never changed, under a small delta of the entries changed since: an update copies the
delta, and folds it into a new base once it grows past ``max_delta`` (a base that is no dict,
a store's rows, is never copied).
"""

from __future__ import annotations

import abc
import functools
import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

K = TypeVar("K")
V = TypeVar("V")
#: An item of an :class:`Ordered`.
T = TypeVar("T")

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

    def sizes(self, keys: list[K]) -> dict[K, int]:
        """How long the values of ``keys`` there are (collections) are: a store that keeps
        the lengths reads them without the values."""
        return {k: len(cast(Sized, v)) for k, v in self.many(keys).items()}


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
        if len(delta) > self._max_delta and isinstance(self._base, dict):
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

    def sizes(self, keys: Iterable[K]) -> dict[K, int]:
        """How long the values of ``keys`` there are (collections) are, the base's read
        without the values where it keeps their lengths (:meth:`Many.sizes`)."""
        wanted = list(dict.fromkeys(keys))
        found = {k: len(cast(Sized, self._delta[k])) for k in wanted if k in self._delta}
        rest = [k for k in wanted if k not in found]
        if isinstance(self._base, Many):
            found.update(self._base.sizes(rest))
        else:
            found.update((k, len(cast(Sized, self._base[k]))) for k in rest if k in self._base)
        return found

    @property
    def base(self) -> Mapping[K, V]:
        return self._base

    @property
    def changed(self) -> Mapping[K, V]:
        """The entries set over the base (what a store that holds the base writes back)."""
        return self._delta

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
    """A sorted collection read lazily from either end (:meth:`ascending`,
    :meth:`descending`): a base in key order (a list, or a store's rows a page at a time)
    merged with a few items ``added`` over it, so taking the first few costs a few steps,
    whatever the length. Keys are distinct."""

    __slots__ = ("_added", "_base", "_key")

    def __init__(
        self,
        base: Sorted[T],
        key: Callable[[T], SupportsRichComparison],
        added: list[T] | None = None,
    ) -> None:
        self._base, self._key = base, key
        self._added = sorted(added or [], key=key)

    @classmethod
    def of(cls, items: Iterable[T], key: Callable[[T], SupportsRichComparison]) -> Ordered[T]:
        return cls(sorted(items, key=key), key)

    def ascending(self) -> Iterator[T]:
        return heapq.merge(self._base, self._added, key=self._key)

    def descending(self) -> Iterator[T]:
        return heapq.merge(reversed(self._base), reversed(self._added), key=self._key, reverse=True)

    def __len__(self) -> int:
        return len(self._base) + len(self._added)
