"""The projected files' projectors: the four memory files, their archives and ASKS.md.

Their renders import the grammar when called: a process that only looks an output up by its
key (a hook, a quick CLI read) never loads it.

A memory file and its archive are functions of the memory streams alone (entries and file
layout), so an ask's change keeps them; ASKS.md is a function of the asks' events alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from orbital.catalogue import ARCHIVE_FILES, LAYER1_KEYS, MEMORY_FILES, MEMORY_PREFIXES
from projections._contract import Projector

if TYPE_CHECKING:
    from orbital.events import Event
    from orbital.grammar.model import FileState


class MemoryFileProjector(Projector):
    """A memory file (DECISIONS.md, …) as Orbital writes it, or (``archive``) its archive
    (DECISIONS_ARCHIVE.md, …): both rendered from the live file's folded state."""

    reads = MEMORY_PREFIXES

    def __init__(self, key: str, name: str, *, archive: bool = False) -> None:
        self.file, self.name, self.archive = key, name, archive

    def render(self, state: FileState) -> str:
        from orbital.grammar import render

        return (render.render_archive if self.archive else render.render_file)(state)


class AsksFileProjector(Projector):
    """ASKS.md: one line per ask event, in the log's order (the file writer appends the new
    lines of a write instead of writing it whole; what it appends is this render's tail)."""

    name = "ASKS.md"
    reads = ("ask:",)

    @staticmethod
    def render(events: Iterable[Event]) -> str:
        from orbital.grammar import asks_md

        return asks_md.render_file(events)


def render_memory_file(state: FileState) -> str:
    """A memory file's text as Orbital projects it (its projector's render)."""
    return MEMORY_FILE_PROJECTORS[state.key].render(state)


def render_archive_file(state: FileState) -> str:
    """A memory file's archive as Orbital projects it (its projector's render)."""
    return ARCHIVE_PROJECTORS[state.key].render(state)


def render_asks_file(events: Iterable[Event]) -> str:
    """ASKS.md as Orbital projects it for ``events`` in log order (its projector's render)."""
    return ASKS_FILE_PROJECTOR.render(events)


#: The memory files' projectors by key (``decisions``…) and their archives' by live key.
MEMORY_FILE_PROJECTORS = {key: MemoryFileProjector(key, MEMORY_FILES[key]) for key in LAYER1_KEYS}
ARCHIVE_PROJECTORS = {
    key: MemoryFileProjector(key, name, archive=True) for key, name in ARCHIVE_FILES.items()
}
ASKS_FILE_PROJECTOR = AsksFileProjector()
