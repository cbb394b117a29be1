"""WordNet 3.0 as the shell hands it over (:mod:`orbital.service._wordnet` finds and reads it):
which senses (synsets) a word has, for the resemblance check of :mod:`orbital.domain.resemble`.

The database is Princeton's, as Debian's and Ubuntu's ``wordnet-base`` package installs it.
Its ``index.<pos>`` files are sorted by lemma, so a word is found by bisecting the file's bytes
(the shell maps them: as WordNet's own library does, no load, no parse of the whole index).
Without the database (:data:`NONE`) every word has no sense and the check falls back to
spelling, abbreviations and the rephrasing guard's own synonyms.

Inflected forms are reduced as WordNet's *morphy* does: the exception lists (``<pos>.exc``,
parsed by :func:`exceptions_of`), then its detachment rules. The wider reading's finer rules
read a sense's neighbours (its broader senses, its antonyms) from the ``data.<pos>`` files,
found by the byte offset a sense key carries (mapped by the shell too).
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
        data: Mapping[str, Index] | None = None,
    ) -> None:
        self.indexes, self.exceptions, self.identity = indexes, exceptions, identity
        #: The ``data.<pos>`` files, by part of speech.
        self.data: Mapping[str, Index] = data or {}
        self._senses: dict[str, frozenset[str]] = {}
        self._tagged: dict[str, int] = {}
        self._usual: dict[str, frozenset[str]] = {}
        self._tagged_as: dict[str, dict[str, int]] = {}
        self._pointed: dict[str, tuple[tuple[bytes, str], ...]] = {}

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

    def usual_senses(self, word: str) -> frozenset[str]:
        """The senses of ``word`` met in WordNet's tagged corpus (an index line lists its
        senses most frequent first, and counts how many of them were met): a rare sense
        ("staging" as a theatre production) is left out."""
        found = self._usual.get(word)
        if found is None:
            keys: set[str] = set()
            for letter, fields in self._lines(word):
                count, pointers = int(fields[2]), int(fields[3])
                met = int(fields[4 + pointers + 1])
                offsets = fields[len(fields) - count :][:met]
                keys.update(letter + offset.decode() for offset in offsets)
            found = self._usual[word] = frozenset(keys)
            _bound(self._usual)
        return found

    def tagged_as(self, word: str) -> dict[str, int]:
        """:meth:`tagged`, per part of speech letter (``n``, ``v``, ``a``, ``r``)."""
        found = self._tagged_as.get(word)
        if found is None:
            found = {}
            for letter, fields in self._lines(word):
                pointers = int(fields[3])
                found[letter] = found.get(letter, 0) + int(fields[4 + pointers + 1])
            self._tagged_as[word] = found
            _bound(self._tagged_as)
        return found

    def broader(self, sense: str) -> frozenset[str]:
        """The senses ``sense`` is a kind or an instance of: its hypernyms, one level up
        ("conference" -> "meeting")."""
        return frozenset(key for symbol, key in self._pointers(sense) if symbol in (b"@", b"@i"))

    def opposite(self, sense: str) -> frozenset[str]:
        """The senses WordNet gives as the antonym of one of ``sense``'s words ("raise" /
        "lower", "enable" / "disable", "import" / "export")."""
        return frozenset(key for symbol, key in self._pointers(sense) if symbol == b"!")

    def _pointers(self, sense: str) -> tuple[tuple[bytes, str], ...]:
        """What ``sense`` (a key of :meth:`senses`: its byte offset in its ``data`` file)
        points to, as (pointer symbol, sense key) pairs."""
        found = self._pointed.get(sense)
        if found is None:
            found = self._pointed[sense] = _pointers_in(self.data.get(_DATA[sense[0]]), sense)
            _bound(self._pointed)
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


#: A sense key's letter -> the part of speech of the ``data`` file it is in.
_DATA = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


def _pointers_in(data: Index | None, sense: str) -> tuple[tuple[bytes, str], ...]:
    if data is None:
        return ()
    start = int(sense[1:])
    fields = data[start : data.find(b"\n", start)].split(b" | ")[0].split()
    at = 4 + 2 * int(fields[3], 16)  # after the offset, file, type, count and (word, lex id)s
    found = []
    for i in range(int(fields[at])):
        symbol, offset, pos, _ = fields[at + 1 + 4 * i : at + 5 + 4 * i]
        letter = "a" if pos == b"s" else pos.decode()  # satellite adjectives are adjectives
        found.append((symbol, letter + offset.decode()))
    return tuple(found)


#: No database installed: no word has a sense.
NONE = WordNet({}, {})
