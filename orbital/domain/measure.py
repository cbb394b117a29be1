"""Budget measures: what a file costs, without its format contract (and, for PROJECT_STATE,
without id comments), summed piece by piece so unchanged entries hit the counter's cache."""

from __future__ import annotations

from orbital.domain.budgets import TokenCounter
from orbital.grammar.memory_files import strip_format_header
from orbital.grammar.model import FileState
from orbital.grammar.render import render_slots
from orbital.grammar.state_blocks import strip_mem_comments


def budget_text(text: str, key: str) -> str:
    """The part of a file's text that budgets measure."""
    body = strip_format_header(text)
    return strip_mem_comments(body) if key == "state" else body


def measure_text(text: str, key: str, count: TokenCounter) -> float:
    return count(budget_text(text, key))


def piece_measures(state: FileState, count: TokenCounter) -> list[float]:
    """The measure of each rendered piece of the body, in layout order."""
    pieces = render_slots(state)
    if state.key == "state":
        pieces = [strip_mem_comments(p) for p in pieces]
    return [count(p) if p else 0.0 for p in pieces]


def measure_state(state: FileState, count: TokenCounter) -> float:
    """Budget measure of the rendered file (the contract is never part of the body)."""
    return sum(piece_measures(state, count))
