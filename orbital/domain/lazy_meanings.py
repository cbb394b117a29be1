"""The dropped asks' meaning index, built only when first asked: most short-lived processes
(a hook, a CLI command) never open an ask, so they never pay for filing every dropped text
by meaning nor import the stemmers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orbital.domain.meaning_index import MeaningIndex


#: Builds the meaning index of (ask id, text) pairs; the shell may keep built ones (a
#: short-lived process then reads the index instead of filing every dropped text again).
IndexBuilder = Callable[[tuple[tuple[str, str], ...]], "MeaningIndex[str]"]


def build_meaning_index(items: tuple[tuple[str, str], ...]) -> MeaningIndex[str]:
    from orbital.domain.meaning_index import MeaningIndex

    return MeaningIndex[str]().added(items)


class LazyMeaningIndex:
    """The dropped asks' :class:`~orbital.domain.meaning_index.MeaningIndex`, built at the first
    lookup (by ``build``): a process that opens no ask (most short-lived ones) never pays for
    filing thousands of dropped texts by meaning, nor imports the stemmers. Once built it
    grows by :meth:`added` like the index itself."""

    def __init__(
        self,
        items: tuple[tuple[str, str], ...] = (),
        built: MeaningIndex[str] | None = None,
        build: IndexBuilder = build_meaning_index,
    ) -> None:
        self._items = items
        self._built = built
        self.build = build

    def added(self, items: Iterable[tuple[str, str]]) -> LazyMeaningIndex:
        if self._built is not None:
            return LazyMeaningIndex(built=self._built.added(items), build=self.build)
        return LazyMeaningIndex((*self._items, *items), build=self.build)

    def index(self) -> MeaningIndex[str]:
        if self._built is None:
            self._built = self.build(self._items)
            self._items = ()
        return self._built

    def restated_by(self, text: str) -> dict[str, float]:
        return self.index().restated_by(text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LazyMeaningIndex):
            return NotImplemented
        return self.index() == other.index()

    __hash__ = None  # type: ignore[assignment]
