"""Saving a SQLite store deleted while a process still holds it open (``orbital db rescue``):
no store is opened for it, since opening one where the file was is what must not happen."""

from __future__ import annotations

from pathlib import Path

from orbital.clock import Clock
from orbital.store import Rescued, rescue_store


def rescue(url: str | None, to: Path | None, clock: Clock) -> Rescued:
    """The store at ``url`` saved as ``to`` (default: beside it, named for the moment) from
    the process that still holds its deleted file open."""
    return rescue_store(url, to, clock.now())
