"""Cutting a text to a token budget a line at a time: what the view shows of a file over
budget and what the backstop keeps of INDEX, one rule for both."""

from __future__ import annotations

from orbital.domain.budgets import TokenCounter


def head_lines(text: str, limit: float, count: TokenCounter) -> list[str]:
    """The top lines of ``text`` that fit ``limit`` tokens."""
    kept: list[str] = []
    used = 0.0
    newline = count("\n")
    for line in text.splitlines():
        cost = count(line) + newline
        if used + cost > limit:
            break
        kept.append(line)
        used += cost
    return kept


def trim_index_lines(text: str, budget: float, count: TokenCounter) -> str | None:
    """INDEX cut to ``budget``: archive-pointer lines (``_ARCHIVE.md``) are pinned and other
    lines go tail first. None when it cannot fit; ``text`` itself when it already fits."""
    if count(text) <= budget:
        return text
    lines = text.splitlines()
    if not any("_ARCHIVE.md" in line for line in lines):
        return "\n".join(head_lines(text, budget, count))
    newline = count("\n")
    costs = [count(line) + newline for line in lines]
    used = sum(costs)
    keep = [True] * len(lines)
    for i in range(len(lines) - 1, -1, -1):
        if used <= budget:
            break
        if "_ARCHIVE.md" not in lines[i]:
            keep[i] = False
            used -= costs[i]
    if used > budget:
        return None
    return "\n".join(line for line, k in zip(lines, keep, strict=True) if k)
