"""Budget measures: what a file costs, without its format contract, without the id comments
of group pointer lines and (PROJECT_STATE) without mem comments — ids are bookkeeping, not
words the agent reads — summed piece by piece so unchanged entries hit the counter's cache."""

from __future__ import annotations

from orbital.domain.budgets import TokenCounter
from orbital.grammar.memory_files import strip_format_header
from orbital.grammar.model import FileState
from orbital.grammar.pointers import without_id_comments
from orbital.grammar.render import render_slots
from orbital.grammar.state_blocks import strip_mem_comments


def _measured(text: str, key: str) -> str:
    body = without_id_comments(text)
    return strip_mem_comments(body) if key == "state" else body


def budget_text(text: str, key: str) -> str:
    """The part of a file's text that budgets measure."""
    return _measured(strip_format_header(text), key)


def measure_text(text: str, key: str, count: TokenCounter) -> float:
    return count(budget_text(text, key))


def piece_measure(piece: str, key: str, count: TokenCounter) -> float:
    """The measure of one rendered piece of a file's body (an entry, a pointer slot, text)."""
    return count(_measured(piece, key)) if piece else 0.0


def piece_measures(state: FileState, count: TokenCounter) -> list[float]:
    """The measure of each rendered piece of the body, in layout order."""
    return [piece_measure(p, state.key, count) for p in render_slots(state)]


def measure_state(state: FileState, count: TokenCounter) -> float:
    """Budget measure of the rendered file (the contract is never part of the body)."""
    return sum(piece_measures(state, count))
