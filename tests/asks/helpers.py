"""Shared fixtures for the asks tests (TODAY as in the reference)."""

from __future__ import annotations

import datetime as dt
import random

from orbital.domain.asks import Ask, Minter, fold, random_minter
from orbital.grammar.asks_md import FORMAT_HEADER, parse_file

TODAY = dt.date(2026, 9, 19)

PREV = (
    f"{FORMAT_HEADER}\n"
    "- open a1b2c3 2026-09-01 Choose the venue\n"
    "- open d4e5f6 2026-09-02 Send the deck\n"
)


def asks_of(text: str) -> dict[str, Ask]:
    """Fold a file's text the way the store would fold its events."""
    return fold(enumerate(parse_file(text, TODAY), start=1))


def minter(seed: int = 7) -> Minter:
    return random_minter(random.Random(seed))
