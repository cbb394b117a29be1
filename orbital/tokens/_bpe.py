"""cl100k counting in Python over a :class:`~orbital.tokens._table.RankTable`, for few texts.

The same two steps as tiktoken's core: split the text with cl100k's pattern, then merge each
piece's bytes by rank, lowest first and leftmost on a tie; the count is the parts left. The
pattern needs ``\\p{L}`` and ``\\p{N}``, which Python's ``re`` lacks and the ``regex`` module
costs 20-40 ms to import, so each text gets the pattern with those classes spelled out for the
characters it holds (a class only has to be right on the text it is matched against). A text
whose characters this Python's Unicode data cannot classify as the tokenizer does (unassigned
code points, lone surrogates, U+017F, the long s, which cl100k's case-insensitive contractions
match; any non-ASCII text when this Python's Unicode data is newer than the data tested) is
left to tiktoken: :func:`count` returns None.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from orbital.tokens._table import RankTable

#: Unicode's White_Space, which the tokenizer's ``\s`` is (``str.isspace`` differs).
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_SPACE = "\t\n\x0b\x0c\r "
#: cl100k's pattern with ``\p{L}``, ``\p{N}`` and ``\s`` as classes to fill and ``$`` as ``\Z``.
_PATTERN = (
    r"'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n{L}{N}]?+[{L}]++|[{N}]{{1,3}}+"
    r"| ?[^{S}{L}{N}]++[\r\n]*+|[{S}]++\Z|[{S}]*[\r\n]|[{S}]+(?![^{S}])|[{S}]"
)
_REFUSED = frozenset({"Cn", "Cs"})
#: The newest Unicode data this Python may have for its classes to be the tokenizer's: a
#: character assigned after the tokenizer's own data would be a letter here and "other"
#: there. Every assigned code point was compared with tiktoken's split under 14.0.
_UNICODE_TESTED = (14, 0, 0)
_UNICODE_HERE = tuple(int(part) for part in unicodedata.unidata_version.split("."))


@functools.lru_cache(maxsize=256)
def _splitter(letters: str, numbers: str, spaces: str) -> re.Pattern[str]:
    return re.compile(
        _PATTERN.format(L="A-Za-z" + letters, N="0-9" + numbers, S=_ASCII_SPACE + spaces)
    )


def _pieces(text: str) -> list[str] | None:
    if text.isascii():
        return _splitter("", "", "").findall(text)
    if _UNICODE_HERE > _UNICODE_TESTED:
        return None
    letters, numbers, spaces = [], [], []
    for char in set(text):
        if char.isascii():
            continue
        category = unicodedata.category(char)
        if category in _REFUSED or char == "\u017f":
            return None
        if category[0] == "L":
            letters.append(char)
        elif category[0] == "N":
            numbers.append(char)
        elif char in _WHITE_SPACE:
            spaces.append(char)
    key = ("".join(sorted(letters)), "".join(sorted(numbers)), "".join(sorted(spaces)))
    return _splitter(*key).findall(text)


def _merged_parts(piece: bytes, rank: RankTable) -> int:
    """How many tokens byte-pair merging leaves of ``piece`` (tiktoken's merge order)."""
    never = 1 << 32
    bounds = list(range(len(piece) + 1))
    pairs = [rank.rank(piece[i : i + 2]) for i in range(len(piece) - 1)]
    ranks = [never if r is None else r for r in pairs]
    while ranks:
        lowest = min(ranks)
        if lowest == never:
            break
        i = ranks.index(lowest)
        del bounds[i + 1]
        del ranks[i]
        if i < len(ranks):
            merged = rank.rank(piece[bounds[i] : bounds[i + 2]])
            ranks[i] = never if merged is None else merged
        if i > 0:
            merged = rank.rank(piece[bounds[i - 1] : bounds[i + 1]])
            ranks[i - 1] = never if merged is None else merged
    return len(bounds) - 1


def count(text: str, table: RankTable) -> int | None:
    """cl100k's token count of ``text`` as ordinary text (None: leave it to tiktoken)."""
    pieces = _pieces(text)
    if pieces is None:
        return None
    tokens = 0
    for piece in pieces:
        data = piece.encode("utf-8")
        if len(data) == 1 or table.rank(data) is not None:
            tokens += 1
        else:
            tokens += _merged_parts(data, table)
    return tokens
