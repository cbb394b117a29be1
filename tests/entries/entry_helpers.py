"""Shared helpers for the entry tests: one write through parse → decide → fold → render."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

from orbital.domain.file_write import apply, decide_file_write
from orbital.domain.writes import Decision
from orbital.events._base import Event
from orbital.grammar.memory_files import FORMAT_HEADERS
from orbital.grammar.model import FileState
from orbital.grammar.render import render_body, render_file

TODAY = dt.date(2026, 9, 18)


def est(text: str) -> float:
    """The reference tokenizer: a quarter token per character."""
    return len(text) / 4


def minter(seed: int = 7) -> Callable[[], str]:
    rng = random.Random(seed)
    return lambda: f"{rng.getrandbits(24):06x}"


class Memory:
    """One file's events and state, written the way the service will write it."""

    def __init__(self, key: str, *, ever_used: set[str] | None = None, seed: int = 7) -> None:
        self.state = FileState(key=key)
        self.events: list[Event] = []
        self.ever_used: set[str] = set() if ever_used is None else ever_used
        self.mint = minter(seed)

    def write(self, text: str, today: dt.date = TODAY) -> Decision:
        decision = decide_file_write(
            self.state, text, today, mint=self.mint, ever_used=self.ever_used
        )
        self.apply(decision.events)
        return decision

    def apply(self, events: tuple[Event, ...] | list[Event]) -> None:
        self.events.extend(events)
        self.state = apply(self.state, events)
        self.ever_used |= set(self.state.entries)

    @property
    def text(self) -> str:
        return render_file(self.state)

    @property
    def body(self) -> str:
        return render_body(self.state)


def header(key: str) -> str:
    return FORMAT_HEADERS[key] + "\n"


def ids_of(text: str) -> list[str]:
    import re

    return re.findall(r"id:([0-9a-z-]+)", text)
