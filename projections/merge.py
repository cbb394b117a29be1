"""Three-way merge of a hand-edited projection (pure).

``base`` is the version the person started from (a projection Orbital wrote), ``ours`` the
projection of the store now, ``theirs`` the file on disk. Changes on different lines combine;
changes to the same lines are a conflict, which the shell resolves by keeping the person's file
beside the regenerated one, so nothing is lost.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import merge3


def three_way(base: str, ours: str, theirs: str) -> str | None:
    """The merged text, or None when both sides changed the same lines."""
    merger = merge3.Merge3(
        base.splitlines(keepends=True),
        ours.splitlines(keepends=True),
        theirs.splitlines(keepends=True),
    )
    merged: list[str] = []
    for group in merger.merge_groups():
        if group[0] == "conflict":
            return None
        merged.extend(group[1])
    return "".join(merged)


def closest(text: str, candidates: Sequence[str]) -> int:
    """Index of the candidate ``text`` most resembles (the version an edit started from)."""
    lines = text.splitlines()
    scores = [
        difflib.SequenceMatcher(None, c.splitlines(), lines, autojunk=False).ratio()
        for c in candidates
    ]
    return max(range(len(candidates)), key=lambda i: (scores[i], -i))
