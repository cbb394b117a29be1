"""Codex's ``apply_patch`` format: parsed into sections, applied to a file, written back (pure).

Codex edits files with one patch per call (the ``command`` of its ``PreToolUse`` input)::

    *** Begin Patch
    *** Update File: orbital/DECISIONS.md
    @@ optional context line to find first
     context
    -old line
    +new line
    *** End Patch

beside ``*** Add File: P`` (every line ``+``), ``*** Delete File: P`` and ``*** Move to: P``
after an update header. To route an edit of a memory file through Orbital's write path, the
hook needs the file as the patch would leave it (:func:`apply_update`), and then a patch that
writes Orbital's projection instead (:func:`rewrite`): other files' sections stay as the
model wrote them. Matching follows Codex: each chunk's old lines are looked for from where the
previous chunk ended, exactly, then ignoring trailing and then surrounding whitespace; a chunk
ending in ``*** End of File`` matches at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from orbital.agents.edits import smallest_edit

BEGIN = "*** Begin Patch"
END = "*** End Patch"
_ADD = "*** Add File: "
_DELETE = "*** Delete File: "
_UPDATE = "*** Update File: "
_MOVE = "*** Move to: "
_EOF = "*** End of File"


@dataclass(frozen=True)
class Section:
    """One file's part of a patch: ``kind`` is ``add``, ``delete`` or ``update``; ``body`` the
    lines after the header (a ``*** Move to:`` line included), without line ends."""

    kind: str
    path: str
    body: tuple[str, ...]

    @property
    def moves(self) -> bool:
        return any(line.startswith(_MOVE) for line in self.body)

    def render(self) -> str:
        header = {"add": _ADD, "delete": _DELETE, "update": _UPDATE}[self.kind]
        return "".join(f"{line}\n" for line in (header + self.path, *self.body))


def parse_patch(text: str) -> list[Section] | None:
    """The patch's sections in order; None when ``text`` is not a patch (no begin/end lines)."""
    lines = text.strip().splitlines()
    if len(lines) < 2 or lines[0].strip() != BEGIN or lines[-1].strip() != END:
        return None
    sections: list[Section] = []
    kind, path, body = "", "", list[str]()
    for line in lines[1:-1]:
        for prefix, name in ((_ADD, "add"), (_DELETE, "delete"), (_UPDATE, "update")):
            if line.startswith(prefix):
                if kind:
                    sections.append(Section(kind, path, tuple(body)))
                kind, path, body = name, line[len(prefix) :].strip(), []
                break
        else:
            if not kind:
                return None
            body.append(line)
    if kind:
        sections.append(Section(kind, path, tuple(body)))
    return sections


def render_patch(sections: Sequence[Section]) -> str:
    return BEGIN + "\n" + "".join(s.render() for s in sections) + END + "\n"


def added_text(section: Section) -> str:
    """The content an ``add`` section creates."""
    return "".join(f"{line[1:]}\n" for line in section.body if line.startswith("+"))


@dataclass(frozen=True)
class _Chunk:
    anchor: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    at_end: bool


def _chunks(body: Sequence[str]) -> list[_Chunk] | None:
    chunks: list[_Chunk] = []
    anchor, old, new, at_end, started = "", list[str](), list[str](), False, False

    def close() -> None:
        if started and (old or new):
            chunks.append(_Chunk(anchor, tuple(old), tuple(new), at_end))

    for line in body:
        if line.startswith(_MOVE):
            continue
        if line.startswith("@@"):
            close()
            anchor, old, new, at_end, started = line[2:].strip(), [], [], False, True
            continue
        if line.strip() == _EOF:
            at_end = True
            continue
        started = True
        mark, text = (line[:1], line[1:]) if line else (" ", "")
        if mark == " ":
            old.append(text)
            new.append(text)
        elif mark == "-":
            old.append(text)
        elif mark == "+":
            new.append(text)
        else:
            return None
    close()
    return chunks


_LOOSER: tuple[Callable[[str], str], ...] = (lambda s: s, str.rstrip, str.strip)


def _seek(lines: Sequence[str], wanted: Sequence[str], start: int, at_end: bool) -> int | None:
    """Where ``wanted`` occurs in ``lines`` from ``start`` (at the end when ``at_end``)."""
    if not wanted:
        return len(lines)
    last = len(lines) - len(wanted)
    starts = [last] if at_end else list(range(start, last + 1))
    for norm in _LOOSER:
        for i in starts:
            if i >= 0 and all(norm(lines[i + k]) == norm(w) for k, w in enumerate(wanted)):
                return i
    return None


def apply_update(current: str, section: Section) -> str | None:
    """The file as an ``update`` section leaves ``current``; None when a chunk does not apply
    (the tool then fails on its own and the hook leaves it to)."""
    chunks = _chunks(section.body)
    if chunks is None:
        return None
    lines = current.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    at = 0
    replacements: list[tuple[int, int, tuple[str, ...]]] = []
    for chunk in chunks:
        if chunk.anchor:
            found = _seek(lines, [chunk.anchor], at, False)
            if found is None:
                return None
            at = found + 1
        index = _seek(lines, chunk.old, at, chunk.at_end)
        if index is None:
            return None
        replacements.append((index, len(chunk.old), chunk.new))
        at = index + len(chunk.old)
    for index, length, new in reversed(replacements):
        lines[index : index + length] = list(new)
    return "".join(f"{line}\n" for line in lines)


def rewrite(path: str, current: str | None, wanted: str) -> Section:
    """A section that turns ``current`` (None: no file) into exactly ``wanted``: the lines
    that differ (:func:`~orbital.agents.edits.smallest_edit`, found once in ``current``, so
    Codex's search finds them where they are) removed and the new ones added in one chunk;
    with no file, every line added (Codex ends the file with a newline)."""
    if current is None:
        return Section("add", path, tuple("+" + line for line in _lines(wanted)))
    old, new = smallest_edit(current, wanted)
    removed = tuple("-" + line for line in _lines(old))
    return Section("update", path, ("@@", *removed, *("+" + line for line in _lines(new))))


def _lines(text: str) -> list[str]:
    """``text``'s lines as Codex reads a file: split at newlines, the empty end left out."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines
