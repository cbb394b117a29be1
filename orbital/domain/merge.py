"""The merge rules of whole-file writes and hand edits (pure).

* :func:`closest` — which written version a hand edit started from: the one its text most
  resembles.
* :func:`merge_lines` — one entry's text changed on both sides: merged by line, three ways; only
  a line both sides changed differently (or two insertions at the same place) is a clash.
* :func:`merge_layout` — a file's order of entries changed on both sides: merged three ways over
  its slots; never a clash, since entries appended or moved on either side only need an order
  (both sides' additions at one place: the store's first, then the writer's).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import merge3

from orbital.events.files import Slot


def _inked(text: str) -> list[str]:
    """The lines that say something: blank lines match anywhere and would favour the
    version with more entries."""
    return [line for line in text.splitlines() if line.strip()]


def closest(text: str, candidates: Sequence[str]) -> int:
    """Index of the candidate ``text`` most resembles (the version an edit started from);
    on a tie, the last such candidate."""
    lines = _inked(text)
    scores = [
        difflib.SequenceMatcher(None, _inked(c), lines, autojunk=False).ratio() for c in candidates
    ]
    # Equal scores are ambiguous: prefer the later candidate (the callers list versions
    # newest first, so the older one). A wrong older base keeps both sides' changes (nothing
    # lost); a wrong newer one would let the edit silently undo the store's change.
    return max(range(len(candidates)), key=lambda i: (scores[i], i))


def _line_by_line(
    base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]
) -> list[str] | None:
    """A conflict region of equal lengths where each line was changed by one side at most
    (diff3 calls adjacent changes a conflict; here they are different lines)."""
    if not len(base) == len(ours) == len(theirs):
        return None
    merged: list[str] = []
    for b, o, t in zip(base, ours, theirs, strict=True):
        if o != b and t != b and o != t:
            return None
        merged.append(t if o == b else o)
    return merged


def merge_lines(base: str, ours: str, theirs: str) -> str | None:
    """``theirs``' changes of ``base`` applied to ``ours`` line by line, or None when both
    changed the same line (or inserted lines at the same place) differently."""
    if ours in (base, theirs):
        return theirs
    if theirs == base:
        return ours
    merger = merge3.Merge3(base.split("\n"), ours.split("\n"), theirs.split("\n"))
    merged: list[str] = []
    for group in merger.merge_groups():
        if group[0] != "conflict":
            merged.extend(group[1])
            continue
        lines = _line_by_line(group[1], group[2], group[3])
        if lines is None:
            return None
        merged.extend(lines)
    return "\n".join(merged)


def _token(slot: Slot) -> str:
    return f"e:{slot.entry}" if slot.entry else f"t:{slot.text}"


def merge_layout(
    base: Sequence[Slot], ours: Sequence[Slot], theirs: Sequence[Slot]
) -> tuple[Slot, ...]:
    """The order of a file's slots with the changes of ``theirs`` (from ``base``) applied to
    ``ours``. Where both changed the same place, ``ours`` stands and what ``theirs`` added
    there follows it, so no slot either side has is ever lost."""
    slots = {_token(s): s for s in (*base, *ours, *theirs)}
    # A slot's spacing merges too: the edit's, where it changed it, else the store's.
    was = {_token(s): s for s in base}
    slots |= {k: s for s in ours if (k := _token(s)) in was and slots[k] == was[k] and s != was[k]}
    merger = merge3.Merge3(
        [_token(s) for s in base], [_token(s) for s in ours], [_token(s) for s in theirs]
    )
    merged: list[str] = []
    for group in merger.merge_groups():
        if group[0] != "conflict":
            merged.extend(group[1])
            continue
        old, mine, added = group[1], group[2], group[3]
        known = set(old) | set(mine)
        merged.extend(mine)
        merged.extend(t for t in added if t not in known)
    return tuple(slots[t] for t in merged)
