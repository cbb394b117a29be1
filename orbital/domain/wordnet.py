"""WordNet 3.0, read where an operating-system package installed it: which senses (synsets) a
word has, for the resemblance check of :mod:`orbital.domain.resemble`.

The database is Princeton's, as Debian's and Ubuntu's ``wordnet-base`` package installs it
(``/usr/share/wordnet``; Homebrew's ``wordnet`` under its prefix): 28 MB, read only, nothing
fetched at run time. ``ORBITAL_WORDNET`` names another folder. Its ``index.<pos>`` files are
sorted by lemma, so a word is found by bisecting the mapped file (as WordNet's own library
does): no load, no parse of the whole index. Without the database every word has no sense and
the check falls back to spelling, abbreviations and the rephrasing guard's own synonyms.

Inflected forms are reduced as WordNet's *morphy* does: the exception lists, then its
detachment rules.
"""

from __future__ import annotations

import functools
import mmap
import os
from collections.abc import Iterator
from pathlib import Path

_POS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
_PLACES = (
    "/usr/share/wordnet",
    "/usr/local/share/wordnet",
    "/opt/homebrew/share/wordnet/dict",
    "/usr/local/share/wordnet/dict",
    "/usr/share/wordnet/dict",
)
#: Morphy's detachment rules (suffix -> replacement) per part of speech.
_RULES = {
    "noun": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
             ("men", "man"), ("ies", "y")),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
             ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}  # fmt: skip


@functools.cache
def folder() -> Path | None:
    """Where the database is, if installed (``ORBITAL_WORDNET`` first)."""
    named = os.environ.get("ORBITAL_WORDNET")
    for place in (named,) if named else _PLACES:
        if (Path(place) / "index.noun").is_file():
            return Path(place)
    return None


@functools.cache
def _index(pos: str) -> mmap.mmap | None:
    where = folder()
    if where is None:
        return None
    with open(where / f"index.{pos}", "rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def _line(data: mmap.mmap, lemma: bytes) -> bytes | None:
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


@functools.cache
def _exceptions(pos: str) -> dict[str, tuple[str, ...]]:
    where = folder()
    found: dict[str, tuple[str, ...]] = {}
    if where is None or not (where / f"{pos}.exc").is_file():
        return found
    for row in (where / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
        word, *bases = row.split()
        found[word] = tuple(bases)
    return found


def _forms(word: str, pos: str) -> Iterator[str]:
    yield word
    yield from _exceptions(pos).get(word, ())
    for suffix, replacement in _RULES[pos]:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            yield word[: len(word) - len(suffix)] + replacement


def _lines(word: str) -> Iterator[tuple[str, list[bytes]]]:
    """The index lines of ``word``'s base forms, split, with their part of speech's letter."""
    lemma = word.strip().replace(" ", "_").replace("-", "_")
    for pos, letter in _POS.items():
        data = _index(pos)
        if data is None:
            return
        for form in set(_forms(lemma, pos)):
            line = _line(data, form.encode("latin-1", errors="replace"))
            if line is not None:
                yield letter, line.split()


@functools.lru_cache(maxsize=1 << 16)
def senses(word: str) -> frozenset[str]:
    """The synsets of ``word`` (lowercase; several words joined by spaces or hyphens), as
    ``<pos letter><offset>`` keys, over every part of speech and base form."""
    found: set[str] = set()
    for letter, fields in _lines(word):
        count = int(fields[2])
        found.update(letter + offset.decode() for offset in fields[len(fields) - count :])
    return frozenset(found)


@functools.lru_cache(maxsize=1 << 16)
def tagged(word: str) -> int:
    """How many of ``word``'s senses were met in WordNet's tagged corpus (its index's
    ``tagsense_cnt``, summed over parts of speech and base forms): high for the light,
    general words of any sentence ("find", "make", "keep"), low or none for the names of
    things."""
    total = 0
    for _, fields in _lines(word):
        pointers = int(fields[3])
        total += int(fields[4 + pointers + 1])
    return total


# --- For the wider reading's finer rules: a word's usual senses and uses by part of speech
# (from the index lines above), and a sense's neighbours, read from the ``data.<pos>`` files.


@functools.lru_cache(maxsize=1 << 16)
def usual_senses(word: str) -> frozenset[str]:
    """The senses of ``word`` met in WordNet's tagged corpus (an index line lists its senses
    most frequent first, and counts how many of them were met): a rare sense ("staging" as a
    theatre production) is left out."""
    found: set[str] = set()
    for letter, fields in _lines(word):
        count, pointers = int(fields[2]), int(fields[3])
        met = int(fields[4 + pointers + 1])
        offsets = fields[len(fields) - count :][:met]
        found.update(letter + offset.decode() for offset in offsets)
    return frozenset(found)


@functools.lru_cache(maxsize=1 << 16)
def tagged_as(word: str) -> dict[str, int]:
    """:func:`tagged`, per part of speech letter (``n``, ``v``, ``a``, ``r``)."""
    found: dict[str, int] = {}
    for letter, fields in _lines(word):
        pointers = int(fields[3])
        found[letter] = found.get(letter, 0) + int(fields[4 + pointers + 1])
    return found


_DATA = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


@functools.cache
def _data(pos: str) -> mmap.mmap | None:
    where = folder()
    if where is None:
        return None
    with open(where / f"data.{pos}", "rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


@functools.lru_cache(maxsize=1 << 16)
def _pointers(sense: str) -> tuple[tuple[bytes, str], ...]:
    """What ``sense`` (a key of :func:`senses`: its byte offset in its ``data`` file) points
    to, as (pointer symbol, sense key) pairs."""
    data = _data(_DATA[sense[0]])
    if data is None:
        return ()
    start = int(sense[1:])
    fields = data[start : data.find(b"\n", start)].split(b" | ")[0].split()
    at = 4 + 2 * int(fields[3], 16)  # after the offset, file, type, count and (word, lex id)s
    found = []
    for i in range(int(fields[at])):
        symbol, offset, pos, _ = fields[at + 1 + 4 * i : at + 5 + 4 * i]
        found.append((symbol, _letter(pos.decode()) + offset.decode()))
    return tuple(found)


def broader(sense: str) -> frozenset[str]:
    """The senses ``sense`` is a kind or an instance of: its hypernyms, one level up
    ("conference" -> "meeting")."""
    return frozenset(key for symbol, key in _pointers(sense) if symbol in (b"@", b"@i"))


def opposite(sense: str) -> frozenset[str]:
    """The senses WordNet gives as the antonym of one of ``sense``'s words ("raise" /
    "lower", "enable" / "disable", "import" / "export")."""
    return frozenset(key for symbol, key in _pointers(sense) if symbol == b"!")


def _letter(pos: str) -> str:
    """The key letter of a data file's part of speech (satellite adjectives are adjectives)."""
    return "a" if pos == "s" else pos
