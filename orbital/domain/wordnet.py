"""WordNet 3.0 as the shell hands it over (:mod:`orbital.service._wordnet` finds and reads it):
which senses (synsets) a word has, for the resemblance check of :mod:`orbital.domain.resemble`.

The database is Princeton's, as Debian's and Ubuntu's ``wordnet-base`` package installs it.
Its ``index.<pos>`` files are sorted by lemma, so a word is found by bisecting the file's bytes
(the shell maps them: as WordNet's own library does, no load, no parse of the whole index).
Without the database (:data:`NONE`) every word has no sense and the check falls back to
spelling, abbreviations and the rephrasing guard's own synonyms.

Inflected forms are reduced as WordNet's *morphy* does: the exception lists (``<pos>.exc``,
parsed by :func:`exceptions_of`), then its detachment rules.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol, TypeVar

#: The parts of speech, as the files name them, and the letter a sense key starts with.
POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
#: Morphy's detachment rules (suffix -> replacement) per part of speech.
_RULES = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
             ("men", "man"), ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
             ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}  # fmt: skip

#: Words a :class:`WordNet` remembers the senses (and the tagged count) of.
REMEMBERED = 1 << 16
#: An exception list: an inflected form -> its base forms.
Exceptions = Mapping[str, tuple[str, ...]]


class Index(Protocol):
    """An ``index.<pos>`` file's bytes (``bytes``, or the file mapped: ``mmap.mmap``)."""

    def find(self, sub: bytes, start: int = ..., end: int = ..., /) -> int: ...
    def rfind(self, sub: bytes, start: int = ..., end: int = ..., /) -> int: ...
    def __getitem__(self, part: slice, /) -> bytes: ...
    def __len__(self) -> int: ...


def exceptions_of(text: str) -> dict[str, tuple[str, ...]]:
    """An exception list's rows (``<inflected form> <base form>...``) as a mapping."""
    found: dict[str, tuple[str, ...]] = {}
    for row in text.splitlines():
        if row.strip():
            word, *bases = row.split()
            found[word] = tuple(bases)
    return found


class WordNet:
    """The database's sorted ``index.<pos>`` files and its exception lists parsed, by part of
    speech (empty: no database); ``identity`` names the files as they are (what a meaning
    index built with them is kept under). Looked-up words are remembered (the last
    :data:`REMEMBERED` of each kind)."""

    def __init__(
        self,
        indexes: Mapping[str, Index],
        exceptions: Mapping[str, Exceptions],
        identity: str = "-",
    ) -> None:
        self.indexes, self.exceptions, self.identity = indexes, exceptions, identity
        self._senses: dict[str, frozenset[str]] = {}
        self._tagged: dict[str, int] = {}

    def senses(self, word: str) -> frozenset[str]:
        """The synsets of ``word`` (lowercase; several words joined by spaces or hyphens), as
        ``<pos letter><offset>`` keys, over every part of speech and base form."""
        found = self._senses.get(word)
        if found is None:
            keys: set[str] = set()
            for letter, fields in self._lines(word):
                count = int(fields[2])
                keys.update(letter + offset.decode() for offset in fields[len(fields) - count :])
            found = self._senses[word] = frozenset(keys)
            _bound(self._senses)
        return found

    def tagged(self, word: str) -> int:
        """How many of ``word``'s senses were met in WordNet's tagged corpus (its index's
        ``tagsense_cnt``, summed over parts of speech and base forms): high for the light,
        general words of any sentence ("find", "make", "keep"), low or none for the names of
        things."""
        found = self._tagged.get(word)
        if found is None:
            found = 0
            for _, fields in self._lines(word):
                pointers = int(fields[3])
                found += int(fields[4 + pointers + 1])
            self._tagged[word] = found
            _bound(self._tagged)
        return found

    def _forms(self, word: str, pos: str) -> Iterator[str]:
        yield word
        yield from self.exceptions.get(pos, {}).get(word, ())
        for suffix, replacement in _RULES[pos]:
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                yield word[: len(word) - len(suffix)] + replacement

    def _lines(self, word: str) -> Iterator[tuple[str, list[bytes]]]:
        """The index lines of ``word``'s base forms, split, with their part of speech's
        letter."""
        lemma = word.strip().replace(" ", "_").replace("-", "_")
        for pos, letter in POS.items():
            data = self.indexes.get(pos)
            if data is None:
                return
            for form in set(self._forms(lemma, pos)):
                line = _line(data, form.encode("latin-1", errors="replace"))
                if line is not None:
                    yield letter, line.split()


V = TypeVar("V")


def _bound(remembered: dict[str, V]) -> None:
    if len(remembered) > REMEMBERED:
        del remembered[next(iter(remembered))]


def _line(data: Index, lemma: bytes) -> bytes | None:
    """The index line of ``lemma``: a bisection over the file's lines (the licence lines at
    its top start with two spaces, which sort before every lemma)."""
    key = lemma + b" "
    lo, hi = 0, len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        start = data.rfind(b"\n", 0, mid) + 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if line.startswith(key):
            return line
        if line < key:
            lo = end + 1
        else:
            hi = start
    return None


#: No database installed: no word has a sense.
NONE = WordNet({}, {})
