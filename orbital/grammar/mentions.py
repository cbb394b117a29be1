"""The mention grammar, the one place it is written: ``@decision.<id>``, ``@lesson.<id>``,
``@state.<id>``, ``@ask.<id>`` and ``@file.<path>`` (a path inside the project), which may
name a line range: ``@file.<path>#L10-20`` (or one line, ``#L10``).

A mention is a pointer, never a copy: the view names what it points at and where to read it,
and the content is fetched on demand (``orbital show --ref``, MCP ``memory_get``). The marker
is part of the text the agent receives, so limits count it like any other character.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import msgspec

from orbital.errors import InvalidInput

#: The key ``Mention.file`` takes for an ``@file.<path>`` mention.
PATH = "path"
#: Mention kind -> the memory-file key its ids live in (``path``: a file of the project).
MENTION_KINDS: Mapping[str, str] = {
    "decision": "decisions",
    "lesson": "lessons",
    "state": "state",
    "ask": "asks",
    "file": PATH,
}
#: Memory-file key -> the kind that mentions it.
KIND_OF: Mapping[str, str] = {key: kind for kind, key in MENTION_KINDS.items()}
_IN_TEXT = re.compile(
    r"(?<![\w@.])@(" + "|".join(MENTION_KINDS) + r")\.([^\s`'\"()<>\[\]{},;|*]+)",
    re.IGNORECASE,
)
#: Sentence punctuation after a mention is not part of it.
_TRAILING = ".:!?"
#: A file mention's line range: ``#L10-20``, ``#L10-L20`` or ``#L10``.
_LINES = re.compile(r"#L(\d+)(?:-L?(\d+))?$")


def cited_span(ident: str) -> tuple[str, str]:
    """A file mention's path and its line range (``"10-20"``, ``"10"``; ``""``: the whole
    file). A range that ends before it starts is no range: it stays part of the path."""
    found = _LINES.search(ident)
    if found is None:
        return ident, ""
    start, end = int(found.group(1)), int(found.group(2) or found.group(1))
    if start < 1 or end < start:
        return ident, ""
    return ident[: found.start()], str(start) if end == start else f"{start}-{end}"


def cited_bytes(raw: bytes, lines: str) -> bytes:
    """The part of a file's bytes a file mention names: its lines ``lines`` (a range
    :func:`cited_span` gave; ``""``: all of it)."""
    if not lines:
        return raw
    start, _, end = lines.partition("-")
    return b"".join(raw.splitlines(keepends=True)[int(start) - 1 : int(end or start)])


class Mention(msgspec.Struct, frozen=True):
    """An id (or a path), and the file key it must be found in (None: any memory file, then
    the asks: a bare id)."""

    id: str
    file: str | None = None

    @property
    def path(self) -> str:
        """A file mention's path, without its line range."""
        return cited_span(self.id)[0]

    @property
    def text(self) -> str:
        """The mention as written canonically (``@decision.<id>``; a bare id as itself)."""
        return self.id if self.file is None else f"@{KIND_OF[self.file]}.{self.id}"


def parse_mention(ref: str) -> Mention:
    """``@<kind>.<id>`` for a kind of :data:`MENTION_KINDS`, or a bare id."""
    ref = ref.strip()
    if not ref.startswith("@"):
        if not ref or any(c.isspace() for c in ref):
            raise InvalidInput(
                f"a reference is an id or a mention like @decision.<id>, not {ref!r}"
            )
        return Mention(ref)
    kind, dot, ident = ref[1:].partition(".")
    file = MENTION_KINDS.get(kind.lower())
    if file is None or not dot or not ident.strip():
        kinds = ", ".join(
            f"@{k}.<{'path' if v == PATH else 'id'}>" for k, v in MENTION_KINDS.items()
        )
        raise InvalidInput(f"{ref!r} is not a mention; use {kinds}, or a bare id")
    return Mention(ident.strip(), file)


def find_mentions(text: str) -> list[Mention]:
    """Every mention written in ``text``, once each, in order of first appearance (an e-mail
    address or ``a@b.c`` is not one: a mention starts a word)."""
    found: dict[Mention, None] = {}
    if "@" not in text:  # every mention has one: a scan, not the pattern at each character
        return []
    for match in _IN_TEXT.finditer(text):
        ident = match.group(2).rstrip(_TRAILING)
        if ident:
            found.setdefault(Mention(ident, MENTION_KINDS[match.group(1).lower()]), None)
    return list(found)
