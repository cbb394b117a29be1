"""Which version a hand edit started from (pure): the one its text most resembles."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def closest(text: str, candidates: Sequence[str]) -> int:
    """Index of the candidate ``text`` most resembles (the version an edit started from);
    on a tie, the last such candidate."""
    lines = text.splitlines()
    scores = [
        difflib.SequenceMatcher(None, c.splitlines(), lines, autojunk=False).ratio()
        for c in candidates
    ]
    # Equal scores are ambiguous: prefer the later candidate (the callers list versions
    # newest first, so the older one). A wrong older base shows a conflict (nothing lost); a
    # wrong newer one would let the edit silently undo the store's change.
    return max(range(len(candidates)), key=lambda i: (scores[i], i))
