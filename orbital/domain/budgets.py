"""Token budgets of the memory files (reference §3), in tokens of an injected counter.

The reference counts ``len(text) / 4``; Orbital passes real token counts. Every rule is written
against ``count`` so that ``count = lambda s: len(s) / 4`` reproduces the reference exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from orbital.catalogue import FILE_BUDGETS, Budget

#: Tokens in a text. Counts of pieces are summed, so a shell cache per piece pays off.
TokenCounter = Callable[[str], float]


def est_tokens(text: str) -> float:
    """The reference's estimate: a quarter token per code point."""
    return len(text) / 4


#: The oldest entries of a DECISIONS/LESSONS file are its foundations: the backstop never
#: archives them and the view always shows them.
PROTECT_OLDEST = 3
_TOTAL_HARD = sum(b.hard for b in FILE_BUDGETS.values())
#: Injected memory may take at most this share of the model's context window.
_WINDOW_SHARE = 0.25


def consolidation_target(key: str) -> int:
    """What the backstop cuts an over-soft file down to: soft - 1000, never a >40 % cut."""
    budget = FILE_BUDGETS.get(key)
    if budget is None:
        return 0
    return max(budget.soft - 1000, int(budget.soft * 0.6))


def budgets_for_window(
    window: int | None, *, reserved: float = 0.0, extra: Mapping[str, Budget] | None = None
) -> dict[str, Budget]:
    """Budgets scaled down so the hard caps fit a quarter of a small window (< 76 000).

    ``reserved``: tokens the view's other parts take of that quarter first (the workspace
    context, the description, the date, the asks, the pointers, the frames); ``extra``:
    budgets beside the files' (the workspace's lessons), scaled with them."""
    budgets = {**FILE_BUDGETS, **(extra or {})}
    if window is None or window <= 0:
        return budgets
    total = _TOTAL_HARD + sum(b.hard for b in (extra or {}).values())
    cap = _WINDOW_SHARE * window - reserved
    if cap >= total:
        return budgets
    factor = max(cap, 0.0) / total
    return {k: Budget(int(b.soft * factor), int(b.hard * factor)) for k, b in budgets.items()}


def over_soft(measure: float, key: str) -> bool:
    """Strictly above the (unscaled) soft budget."""
    return measure > FILE_BUDGETS[key].soft
