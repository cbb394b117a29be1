"""PROJECT_STATE grammar (reference §2.1, §2.5): bullet blocks and their ``<!--mem …-->`` line.

A block starts at a column-0 ``- x`` / ``3. x`` / ``12) x`` line and takes the following
indented non-blank, non-heading lines; an unclosed ``<!--mem`` swallows lines up to its ``-->``
(never the rest of the file when it is not closed). Everything else is prose and never stamped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import msgspec

from orbital.grammar.asks_md import valid_due

_BLOCK_START = re.compile(r"^(?:-|\d+[.)])\s+\S")
_LIST_MARKER = re.compile(r"^(?:-|\d+[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_OPEN_COMMENT = re.compile(r"<!--\s*mem")
_COMMENT = re.compile(r"<!--\s*mem\s+(?P<body>.*?)-->", re.S)
_COMMENT_ANY = re.compile(r"[ \t]*<!--\s*mem\b.*?-->", re.S)
_WHOLE_LINE_COMMENT = re.compile(r"^[ \t]*<!--\s*mem\b.*?-->[ \t]*(?:\n|$)", re.S | re.M)
_FIELD = re.compile(r"(?P<key>[A-Za-z_]+):(?P<val>\"(?:[^\"\\]|\\.)*\"|\S+)")
_ESCAPE = re.compile(r"\\(.)")
_LEADING_TAG = re.compile(r"^\[([^\]]*)\]\s*")
_WS = re.compile(r"\s+")
_BLANK_RUNS = re.compile(r"\n{3,}")
#: Comment keys rendered first, in this order; other keys follow in insertion order.
FIELD_ORDER: tuple[str, ...] = (
    "id",
    "from",
    "evidence",
    "confidence",
    "created",
    "touched",
    "resolved",
)


class Block(msgspec.Struct, frozen=True):
    """One bullet block: ``lines`` (with newlines) span file lines ``start``..``end`` - 1."""

    start: int
    end: int
    lines: tuple[str, ...]

    @property
    def raw(self) -> str:
        return "".join(self.lines)

    @property
    def fields(self) -> dict[str, str]:
        """Fields of the first mem comment in the block (empty when unstamped)."""
        match = _COMMENT.search(self.raw)
        return parse_fields(match.group("body")) if match else {}

    @property
    def clean(self) -> str:
        """The block without mem comments; lines that held only a comment are dropped."""
        return strip_comments_from_block(self.raw)

    @property
    def text(self) -> str:
        """The sentence: bullet text plus continuation lines, single-spaced, no comments."""
        lines = self.clean.splitlines()
        parts = [_LIST_MARKER.sub("", lines[0]).strip()] + [line.strip() for line in lines[1:]]
        return " ".join(part for part in parts if part)

    @property
    def match_key(self) -> str:
        return match_key(self.text)


def _opens_unclosed(line: str) -> bool:
    opened = _OPEN_COMMENT.search(line)
    return opened is not None and "-->" not in line[opened.end() :]


def _swallow(lines: list[str], i: int) -> int:
    """Index after line ``i``, extended over an unclosed comment's lines when it closes."""
    if not _opens_unclosed(lines[i]):
        return i + 1
    for j in range(i + 1, len(lines)):
        if "-->" in lines[j]:
            return j + 1
    return i + 1


def parse_blocks(text: str) -> list[Block]:
    """Every top-level bullet block of ``text``, in file order."""
    lines = text.splitlines(keepends=True)
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if not _BLOCK_START.match(lines[i]):
            i += 1
            continue
        start = i
        i = _swallow(lines, i)
        while i < len(lines):
            line = lines[i]
            if not line.strip() or line[0] not in " \t" or _HEADING.match(line):
                break
            i = _swallow(lines, i)
        blocks.append(Block(start, i, tuple(lines[start:i])))
    return blocks


def segments(text: str) -> Iterator[str | Block]:
    """``text`` in file order as its loose lines (with newlines) and its bullet blocks."""
    lines = text.splitlines(keepends=True)
    at = 0
    for block in parse_blocks(text):
        yield from lines[at : block.start]
        yield block
        at = block.end
    yield from lines[at:]


def parse_fields(body: str) -> dict[str, str]:
    """``key:value`` / ``key:"quoted \\" value"`` fields of a comment body."""
    fields: dict[str, str] = {}
    for match in _FIELD.finditer(body):
        value = match.group("val")
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = _ESCAPE.sub(r"\1", value[1:-1])
        fields[match.group("key")] = value
    return fields


def _quote(value: str) -> str:
    if " " not in value:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_fields(fields: Mapping[str, str]) -> str:
    """``<!--mem id:… from:… … created:… touched:… resolved:… other:…-->``."""
    keys = [k for k in FIELD_ORDER if k in fields]
    keys += [k for k in fields if k not in FIELD_ORDER]
    body = " ".join(f"{k}:{_quote(fields[k])}" for k in keys if fields[k])
    return f"<!--mem {body}-->"


def render_block(text: str, fields: Mapping[str, str]) -> str:
    """A block with its comment line directly under the bullet, indented two spaces."""
    first, newline, rest = text.partition("\n")
    tail = "\n" if newline or rest else ""
    return f"{first}\n  {render_fields(fields)}{tail}{rest}"


def strip_comments_from_block(raw: str) -> str:
    """Block text without mem comments; lines left blank by a removed comment are dropped."""
    kept = [line for line in _COMMENT_ANY.sub("", raw).splitlines(keepends=True) if line.strip()]
    return "".join(kept)


def match_key(text: str) -> str:
    """Identity of a line: a leading ``[user…]``/``[due:…]`` tag dropped, single spaces."""
    tag = _LEADING_TAG.match(text)
    if tag is not None:
        tokens = re.split(r"[\s,;]+", tag.group(1))
        if any(t.lower() == "user" or t.lower().startswith("due:") for t in tokens):
            text = text[tag.end() :]
    return _WS.sub(" ", text).strip()


def malformed_dues(text: str) -> list[str]:
    """A warning for each bullet whose leading ``[due:…]`` tag is not a date (reference §5.3:
    the state lint warns about a malformed due). The line is kept as written."""
    warnings: list[str] = []
    for line in text.split("\n"):
        marker = _LIST_MARKER.match(line)
        tag = _LEADING_TAG.match(line[marker.end() :]) if marker else None
        if tag is None:
            continue
        for due in _dues_in(tag.group(1)):
            if not valid_due(due):
                warnings.append(
                    f'PROJECT_STATE.md: malformed due "[{tag.group(1)}]" in "{line.strip()[:60]}"'
                    " — write [due:YYYY-MM-DD] (a real day); the line is kept as written."
                )
    return warnings


def dated_fact(text: str) -> tuple[str, str] | None:
    """A PROJECT_STATE bullet's due and its words (list marker, tag and line breaks gone),
    when its leading tag carries a real ``due:`` (what the calendar feed shows); else None."""
    first = text.lstrip()
    marker = _LIST_MARKER.match(first)
    rest = first[marker.end() :] if marker else first
    tag = _LEADING_TAG.match(rest)
    if tag is None:
        return None
    for due in _dues_in(tag.group(1)):
        if valid_due(due):
            return due, " ".join(rest[tag.end() :].split())
    return None


def _dues_in(tag: str) -> list[str]:
    """The values of a leading tag's ``due:`` tokens (``[due:2026-12-24, user]``)."""
    return [t[4:] for t in re.split(r"[\s,;]+", tag) if t.lower().startswith("due:")]


def strip_mem_comments(text: str) -> str:
    """The agent's view of PROJECT_STATE: every mem comment gone (whole-line ones with their
    newline), then runs of three or more newlines collapsed to two."""
    without = _COMMENT_ANY.sub("", _WHOLE_LINE_COMMENT.sub("", text))
    return _BLANK_RUNS.sub("\n\n", without)
