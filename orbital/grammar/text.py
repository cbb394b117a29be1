"""Whitespace normalisation shared by the grammars and the deciders (an ask's identity key)."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1 << 16)
def one_line(text: str) -> str:
    """Collapse every run of Unicode whitespace (newlines included) to one space."""
    return " ".join(text.split())


@functools.lru_cache(maxsize=1 << 16)
def norm(text: str) -> str:
    """The identity key of an ask text: one-lined and casefolded (punctuation kept)."""
    return one_line(text).casefold()
