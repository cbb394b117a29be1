"""What an installer changed in a file, and how uninstall gives the file its bytes back (pure).

Every agent installer keeps, per file, a :class:`Change`: the bytes before install (None: the
file did not exist) and the bytes it wrote. Uninstall then restores the file byte for byte when
nobody touched it since, and otherwise removes only Orbital's part (:func:`undo`). Parts that
live inside someone else's file (an ``AGENTS.md`` section, a TOML table) sit between marker
lines, so they can be found and taken out again whatever surrounds them (:func:`install_section`,
:func:`uninstall_section`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Change:
    """A file as it was before Orbital changed it (None: it did not exist) and as written."""

    before: str | None
    written: str

    @property
    def changed(self) -> bool:
        return self.before != self.written


def undo(current: str, change: Change | None, stripped: str, empty: bool) -> str | None:
    """What uninstall leaves: the bytes from before install if nobody changed the file since,
    else ``stripped`` (the file without Orbital's part); None (remove the file) when nothing is
    left of a file Orbital created."""
    if change is not None and current == change.written:
        return change.before
    if empty and (change is None or change.before is None):
        return None
    return stripped


def _split(text: str, begin: str, end: str) -> tuple[str, str, str] | None:
    """``text`` as (before, section, after) around the first ``begin`` … ``end`` lines; the
    section includes both marker lines and the end line's newline. None: no whole section."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == begin]
    if not starts:
        return None
    first = starts[0]
    for last in range(first + 1, len(lines)):
        if lines[last].rstrip("\r\n") == end:
            return (
                "".join(lines[:first]),
                "".join(lines[first : last + 1]),
                "".join(lines[last + 1 :]),
            )
    return None


def section(begin: str, end: str, body: str) -> str:
    """The marked section holding ``body``."""
    return f"{begin}\n{body.rstrip(chr(10))}\n{end}\n"


def install_section(before: str | None, begin: str, end: str, body: str) -> Change:
    """``before`` with Orbital's section: replaced where it is, else appended after a blank
    line; the same bytes when it is there already."""
    text = before or ""
    wanted = section(begin, end, body)
    found = _split(text, begin, end)
    if found is not None:
        head, old, tail = found
        return Change(before, text if old == wanted else head + wanted + tail)
    if not text:
        return Change(before, wanted)
    separator = "\n" if text.endswith("\n") else "\n\n"
    if text.endswith("\n\n"):
        separator = ""
    return Change(before, text + separator + wanted)


def strip_section(text: str, begin: str, end: str) -> str:
    """``text`` without Orbital's section and the one blank line install put before it."""
    found = _split(text, begin, end)
    if found is None:
        return text
    head, _, tail = found
    if head.endswith("\n\n") and (not tail or tail.startswith(("\n", "\r\n"))):
        head = head[:-1]
    return head + tail


def uninstall_section(current: str, change: Change | None, begin: str, end: str) -> str | None:
    """The file without Orbital's section (None: remove it); see :func:`undo`."""
    stripped = strip_section(current, begin, end)
    if stripped == current and (change is None or current != change.written):
        return current
    return undo(current, change, stripped, not stripped.strip())
