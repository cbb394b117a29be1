"""An immutable mapping that is cheap to update a few entries at a time.

The asks of a large project and their indexes change by one or two entries per write; copying
the whole dict for each new version would make every write cost the size of the project. A
:class:`Layered` keeps a large base, shared by successive versions and never changed, under a
small delta of the entries changed since: an update copies the delta, and folds it into a new
base once it grows past ``max_delta`` (so the copying averages out to a few entries).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: Changed entries kept apart from the base before the two are merged.
MAX_DELTA = 512


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
