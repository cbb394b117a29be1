"""The ``Supersedes:`` line an entry names the entries it replaces with (issue 16).

``Supersedes: <id>[, <id>…] [since YYYY-MM-DD]`` on a line of its own anywhere in the entry
(a list marker or bold label is fine). Ids may be written bare, as ``id:<id>``, in backticks
or as a mention (``@decision.<id>``, ``@lesson.<id>``).
"""

from __future__ import annotations

import re

import msgspec

_BOLD = r"(?:\*\*|__)?"
_LINE = re.compile(
    rf"^[ \t]*(?:[-*+][ \t]+)?{_BOLD}supersedes{_BOLD}[ \t]*:{_BOLD}[ \t]*(.*?)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_SINCE = re.compile(r"^(.*?)(?:[ \t,;(]+since[ \t]+(\S+?)\)?)?[.]?$", re.IGNORECASE)
_ID_PREFIX = re.compile(r"^(?:id:|@decision\.|@lesson\.|@entry\.)", re.IGNORECASE)


class SupersedesLine(msgspec.Struct, frozen=True):
    """One ``Supersedes:`` line: the ids it names and its ``since`` as written ("" if none)."""

    ids: tuple[str, ...]
    since: str = ""


def supersedes_lines(text: str) -> list[SupersedesLine]:
    """Every ``Supersedes:`` line of an entry's text, in order."""
    found: list[SupersedesLine] = []
    for match in _LINE.finditer(text):
        rest = _SINCE.match(match.group(1))
        assert rest is not None  # the pattern matches any line
        ids = []
        for word in re.split(r"[\s,;]+", rest.group(1)):
            cleaned = _ID_PREFIX.sub("", word.strip("`*_\"'()[]."))
            if cleaned and cleaned.lower() not in ("and", "&"):
                ids.append(cleaned)
        found.append(SupersedesLine(tuple(ids), rest.group(2) or ""))
    return found


def without_supersedes(text: str) -> str:
    """The entry's text without its ``Supersedes:`` lines (what it says, for comparisons)."""
    return _LINE.sub("", text)
