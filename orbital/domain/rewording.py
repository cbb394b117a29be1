"""Is a new PROJECT_STATE line the same line reworded? The rule that lets a line keep its id
(and so its pin and its history) when the agent rewrites it instead of replacing it.

PROJECT_STATE is overwritten as facts go stale ("Deploy target is staging" becomes "Deploy
target is production"): the line is the same slot of "what is true now", so it keeps its id.
A line that says something else ("Blocked on CI flakiness") is a new line. Two texts are the
same line reworded when, casefolded and one-lined,

* their character similarity (normalised Indel, :func:`rapidfuzz.fuzz.ratio`) is at least
  :data:`MIN_SIMILARITY`, or
* every word of the shorter one appears in the longer one, in order (context was added:
  "Ship the installer" → "Ship the installer on Friday after signing").

Only lines left over once exact matches are taken are paired, each at most once, the most
similar pairs first (ties: the nearer in the file, then the earlier).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from orbital.grammar.text import one_line

#: The least character similarity (0..1) of two texts that are one line reworded.
MIN_SIMILARITY = 0.6

_WORD = re.compile(r"\w+")


def _key(text: str) -> str:
    return one_line(text).casefold()


def _extends(short: list[str], long: list[str]) -> bool:
    """Every word of ``short`` appears in ``long`` in the same order."""
    rest = iter(long)
    return bool(short) and all(word in rest for word in short)


def similarity(earlier: str, later: str) -> float:
    """How alike two line texts are, 0..1; 1.0 when one extends the other."""
    a, b = _key(earlier), _key(later)
    wa, wb = _WORD.findall(a), _WORD.findall(b)
    short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if _extends(short, long):
        return 1.0
    from rapidfuzz import fuzz  # imported only when a pair is not settled by words

    return fuzz.ratio(a, b) / 100


def pair_rewordings(
    earlier: Mapping[str, tuple[int, str]], later: Sequence[tuple[int, str]]
) -> dict[int, str]:
    """Pair leftover new lines with leftover old ones: ``earlier`` maps an id to its line's
    ``(position, text)``, ``later`` lists new lines as ``(position, text)``; the answer maps
    a new line's position to the id it keeps. Each side is paired at most once."""
    scored = sorted(
        (-score, abs(pos - old_pos), pos, old_pos, eid)
        for pos, text in later
        for eid, (old_pos, old_text) in earlier.items()
        if (score := similarity(old_text, text)) >= MIN_SIMILARITY
    )
    paired: dict[int, str] = {}
    taken: set[str] = set()
    for _, _, pos, _, eid in scored:
        if pos not in paired and eid not in taken:
            paired[pos] = eid
            taken.add(eid)
    return paired
