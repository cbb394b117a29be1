"""Token budgets of the memory files (reference §3), in tokens of an injected counter.

The reference counts ``len(text) / 4``; Orbital passes real token counts. Every rule is written
against ``count`` so that ``count = lambda s: len(s) / 4`` reproduces the reference exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: Tokens in a text. Counts of pieces are summed, so a shell cache per piece pays off.
TokenCounter = Callable[[str], float]


def est_tokens(text: str) -> float:
    """The reference's estimate: a quarter token per code point."""
    return len(text) / 4


@dataclass(frozen=True)
class Budget:
    soft: int
    hard: int


#: Floors: the budgets of a large-context model, and the only ones hygiene ever uses.
FILE_BUDGETS: dict[str, Budget] = {
    "decisions": Budget(7000, 9000),
    "lessons": Budget(5000, 6000),
    "state": Budget(1800, 2000),
    "index": Budget(1500, 2000),
}
_TOTAL_HARD = sum(b.hard for b in FILE_BUDGETS.values())
#: Injected memory may take at most this share of the model's context window.
_WINDOW_SHARE = 0.25


def consolidation_target(key: str) -> int:
    """What the backstop cuts an over-soft file down to: soft - 1000, never a >40 % cut."""
    budget = FILE_BUDGETS.get(key)
    if budget is None:
        return 0
    return max(budget.soft - 1000, int(budget.soft * 0.6))


def budgets_for_window(window: int | None) -> dict[str, Budget]:
    """Budgets scaled down so the hard caps fit a quarter of a small window (< 76 000)."""
    if window is None or window <= 0:
        return dict(FILE_BUDGETS)
    cap = _WINDOW_SHARE * window
    if cap >= _TOTAL_HARD:
        return dict(FILE_BUDGETS)
    factor = cap / _TOTAL_HARD
    return {k: Budget(int(b.soft * factor), int(b.hard * factor)) for k, b in FILE_BUDGETS.items()}


def over_soft(measure: float, key: str) -> bool:
    """Strictly above the (unscaled) soft budget."""
    return measure > FILE_BUDGETS[key].soft
