"""DECISIONS/LESSONS grammar (reference §2.1 to §2.3): entry split, title-line id comment, slugs.

An entry starts at a ``## `` line (DECISIONS) or an ``N. `` line (LESSONS) and runs to the next
one; the text before the first marker is the preamble, so ``preamble + "".join(entries)`` is the
input byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MARKERS: dict[str, str] = {"decisions": r"^##\s+", "lessons": r"^\d+\.\s+"}
_MARKER_RE: dict[str, re.Pattern[str]] = {k: re.compile(v, re.M) for k, v in MARKERS.items()}
#: The markers as ``split`` finds them. DECISIONS' is the same rule with the line start
#: checked after its ``##`` (looking back: no other character before it on its line): a
#: pattern led by literal text is searched for that text, about 10x faster over a whole file
#: than ``^`` tried at every position. LESSONS' lead is any digit, which that gains nothing.
_SPLIT_RE: dict[str, re.Pattern[str]] = {
    "decisions": re.compile(r"(##(?<![^\n]##)\s+)"),
    "lessons": re.compile(f"({MARKERS['lessons']})", re.M),
}
_TITLE_COMMENT = re.compile(r"\s*<!--\s*mem\s+(?P<body>.*?)\s*-->\s*$")
_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}(-\d{2})?:?\s*")
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_WS = re.compile(r"\s+")
_LESSON_NUMBER = re.compile(r"^\d+(?=\.)")
#: Keys a title-line comment carries, in render order; any other key is dropped.
TITLE_KEYS: tuple[str, ...] = ("id", "created", "touched", "tag")


def split_entries(text: str, key: str) -> tuple[str, list[str]] | None:
    """``(preamble, entries)``, or None when ``text`` has no entry marker."""
    parts = _SPLIT_RE[key].split(text)
    if len(parts) < 3:
        return None
    entries = [parts[i] + parts[i + 1] for i in range(1, len(parts), 2)]
    return parts[0], entries


def parse_title_line(line: str) -> tuple[str, dict[str, str]]:
    """``(title without comment, comment fields)`` of an entry's first line (no newline).

    Only a trailing ``<!--mem …-->`` counts; fields are ``key:value`` tokens split at the first
    colon (tokens without a colon and empty keys ignored).
    """
    match = _TITLE_COMMENT.search(line)
    if match is None:
        return line.rstrip(), {}
    fields: dict[str, str] = {}
    for token in match.group("body").split():
        name, sep, value = token.partition(":")
        if sep and name:
            fields[name] = value
    return line[: match.start()].rstrip(), fields


def render_title_comment(fields: Mapping[str, str]) -> str:
    """``<!--mem id:… created:… touched:… tag:…-->`` (empty values and other keys left out)."""
    body = " ".join(f"{k}:{fields[k]}" for k in TITLE_KEYS if fields.get(k))
    return f"<!--mem {body}-->"


def strip_marker(title: str, key: str) -> str:
    """The title without its ``## `` / ``N. `` marker."""
    match = _MARKER_RE[key].match(title)
    return title[match.end() :] if match else title


def renumber(title: str, number: int) -> str:
    """A LESSONS title line with its leading number replaced by ``number``."""
    return _LESSON_NUMBER.sub(str(number), title, count=1)


def normalized_title(title: str, key: str) -> str:
    """The identity of a title: no marker, no ``**``, lowercase, single spaces, no date prefix."""
    text = _WS.sub(" ", strip_marker(title, key).replace("**", "").strip().lower())
    return _DATE_PREFIX.sub("", text)


def slug(normalized: str) -> str:
    """Id base of a title: ``[a-z0-9]`` runs joined by ``-``, cut to 32, ``entry`` if empty."""
    return _NON_SLUG.sub("-", normalized).strip("-")[:32] or "entry"
