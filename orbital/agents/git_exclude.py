"""The per-person files ``orbital install claude-code`` creates, kept out of git (pure).

``.claude/settings.local.json`` names this machine's ``orbital``, ``.claude/orbital-view.md``
changes with every memory write, and a ``CLAUDE.local.md`` Orbital created only imports that
view: none belongs in the team's repository. Install lists the ones git does not ignore
already in the repository's ``.git/info/exclude`` (never a committed ``.gitignore``), under a
header line; uninstall gives the file its bytes back, or takes out just that block when the
person changed the file since.
"""

from __future__ import annotations

from collections.abc import Sequence

from orbital.agents.claude_code import Change

HEADER = "# orbital install claude-code: per-person files (uninstall removes these lines)"


def pattern(relative: str) -> str:
    """The exclude pattern for one file, given by its path from the repository's top (``/``
    separated): anchored there, with git's special characters escaped."""
    escaped = "".join(f"\\{c}" if c in "*?[]!#\\ " else c for c in relative)
    return f"/{escaped}"


def add_excludes(before: str | None, patterns: Sequence[str]) -> Change:
    """The exclude file with ``patterns`` added under :data:`HEADER` (unchanged when there
    are none)."""
    if not patterns:
        return Change(before, before or "")
    text = before or ""
    separator = "" if not text or text.endswith("\n") else "\n"
    block = "".join(f"{line}\n" for line in (HEADER, *patterns))
    return Change(before, f"{text}{separator}{block}")


def remove_excludes(current: str, change: Change | None) -> str | None:
    """The exclude file without Orbital's block: the bytes from before install when nobody
    changed it since (None: remove it, install created it), else without the header line and
    the patterns written under it."""
    if change is not None and current == change.written:
        return change.before
    ours = set()
    if change is not None:
        ours = set(change.written.splitlines()) - set((change.before or "").splitlines())
    lines = current.splitlines(keepends=True)
    kept: list[str] = []
    in_block = False
    for line in lines:
        bare = line.rstrip("\r\n")
        if bare == HEADER:
            in_block = True
            continue
        if in_block and bare.startswith("/") and (not ours or bare in ours):
            continue
        in_block = False
        kept.append(line)
    return "".join(kept)
