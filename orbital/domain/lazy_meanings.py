"""The dropped asks' meaning indexes, built only when first asked: most short-lived processes
(a hook, a CLI command) never open an ask, so they never pay for filing every dropped text
by meaning nor import the stemmers (or WordNet)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from orbital.domain.wordnet import NONE, WordNet

if TYPE_CHECKING:
    from orbital.domain.meaning_index import MeaningIndex, Reading

#: Which reading an index files by: the guard's certain restatement, or the wider
#: resemblance that holds a line (:mod:`orbital.domain.resemble`).
ReadingName = Literal["restates", "resembles"]
#: Every reading a dropped ask is filed by.
READINGS: tuple[ReadingName, ...] = ("restates", "resembles")
#: Builds the meaning index of (ask id, text) pairs under a reading; the shell may keep built
#: ones (a short-lived process then reads the index instead of filing every text again).
IndexBuilder = Callable[[tuple[tuple[str, str], ...], ReadingName], "MeaningIndex[str]"]


def reading_named(name: ReadingName, wordnet: WordNet = NONE) -> Reading:
    """The reading ``name`` says (the wide one with ``wordnet``'s senses)."""
    if name == "resembles":
        from orbital.domain.resemble import resembling

        return resembling(wordnet)
    from orbital.domain.meaning_index import RESTATES

    return RESTATES


def build_meaning_index(
    items: tuple[tuple[str, str], ...], reading: ReadingName = "restates", wordnet: WordNet = NONE
) -> MeaningIndex[str]:
    """The index of ``items`` under ``reading`` (the wide one with ``wordnet``: the service
    binds the one it loaded, :class:`orbital.service._wordnet.Indexing`)."""
    from orbital.domain.meaning_index import MeaningIndex

    return MeaningIndex[str](reading=reading_named(reading, wordnet)).added(items)


class LazyMeaningIndex:
    """The dropped asks' :class:`~orbital.domain.meaning_index.MeaningIndex` under one reading,
    built at the first lookup (by ``build``): a process that opens no ask (most short-lived
    ones) never pays for filing thousands of dropped texts by meaning, nor imports the
    stemmers. Once built it grows by :meth:`added` like the index itself. With ``load`` it is
    an index kept elsewhere (the store's: :mod:`orbital.service._meaning_keys`), read at the
    first lookup, with the items added since filed over it."""

    def __init__(
        self,
        items: tuple[tuple[str, str], ...] = (),
        built: MeaningIndex[str] | None = None,
        build: IndexBuilder = build_meaning_index,
        reading: ReadingName = "restates",
        load: Callable[[], MeaningIndex[str]] | None = None,
    ) -> None:
        self._items = items
        self._built = built
        self.build = build
        self.reading: ReadingName = reading
        self._load = load

    def added(self, items: Iterable[tuple[str, str]]) -> LazyMeaningIndex:
        if self._built is not None:
            return LazyMeaningIndex(
                built=self._built.added(items), build=self.build, reading=self.reading
            )
        pending = (*self._items, *items)
        return LazyMeaningIndex(pending, build=self.build, reading=self.reading, load=self._load)

    def index(self) -> MeaningIndex[str]:
        if self._built is None:
            if self._load is not None:
                self._built = self._load().added(self._items)
            else:
                self._built = self.build(self._items, self.reading)
            self._items = ()
        return self._built

    def restated_by(self, text: str) -> dict[str, float]:
        return self.index().restated_by(text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LazyMeaningIndex):
            return NotImplemented
        return self.reading == other.reading and self.index() == other.index()

    __hash__ = None  # type: ignore[assignment]
