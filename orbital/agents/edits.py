"""The smallest edit of a file into another, as an agent's file tool can apply it: what a hook
hands back when it rewrites the tool's input to write Orbital's projection (Claude Code's
``Edit``, Codex's ``apply_patch``). A few whole lines found once in the file, not the whole
file: an ASKS.md of 4 MB would otherwise travel twice through the hook's answer, and again
through the next hook's payload, for the one line a write adds.
"""

from __future__ import annotations


def smallest_edit(current: str, wanted: str) -> tuple[str, str]:
    """``(old, new)``: ``old`` whole lines of ``current`` found in it once (or all of it),
    and ``current.replace(old, new, 1) == wanted``."""
    same_start = _common_length(current, wanted, backwards=False)
    room = min(len(current), len(wanted)) - same_start
    same_end = min(_common_length(current, wanted, backwards=True), room)
    start = current.rfind("\n", 0, same_start) + 1
    end = current.find("\n", len(current) - same_end)
    end = len(current) if end < 0 else end + 1
    later = True  # widened by the next line, then by the line before, and so on
    for _ in range(_WIDENINGS):
        if start == 0 and end == len(current):
            break
        old = current[start:end]
        if old and current.find(old, start + 1) < 0 and current.rfind(old, 0, end - 1) < 0:
            break
        if (later and end < len(current)) or start == 0:
            end = current.find("\n", end)
            end = len(current) if end < 0 else end + 1
        else:
            start = current.rfind("\n", 0, start - 1) + 1
        later = not later
    else:  # lines that repeat all around (each step searched the file): the whole file
        start, end = 0, len(current)
    return current[start:end], wanted[start : len(wanted) - (len(current) - end)]


#: Lines an edit is widened by, at most, before it is the whole file: each widening searches
#: the file, and a real memory file's lines (ids, dates) occur once long before.
_WIDENINGS = 64


#: Characters compared at a time when looking for where two texts part.
_BLOCK = 1 << 16


def _common_length(a: str, b: str, *, backwards: bool) -> int:
    """How many characters ``a`` and ``b`` share from their start (or from their end): a
    block at a time, then halving the block they part in."""
    limit, same = min(len(a), len(b)), 0

    def part(n: int, size: int) -> tuple[str, str]:
        if backwards:
            return a[len(a) - n - size : len(a) - n], b[len(b) - n - size : len(b) - n]
        return a[n : n + size], b[n : n + size]

    size = _BLOCK
    while size:
        size = min(size, limit - same)
        x, y = part(same, size)
        if x == y:
            same += size
            if same == limit:
                return same
        else:
            size //= 2
    return same
