"""The read side: one projector per output Orbital produces, each declaring what it reads
(stream categories), the facts from outside the store it needs, and the key derived from
them (:mod:`._contract`); every render is pure. The shell gathers state and facts and keeps
outputs by key (``orbital/service/_outputs.py``)."""

from projections._contract import Heads, Key, Projector
from projections.calendar import CALENDAR_PROJECTOR
from projections.files import (
    ARCHIVE_PROJECTORS,
    ASKS_FILE_PROJECTOR,
    MEMORY_FILE_PROJECTORS,
    AsksFileProjector,
    MemoryFileProjector,
)
from projections.view import (
    VIEW_READS,
    MentionsProjector,
    ViewFacts,
    ViewMemo,
    ViewProjector,
    ViewState,
    ZoneProjector,
)
from projections.view_file import VIEW_FILE_PROJECTOR, ViewFileProjector

#: The views by audience, and the outputs a process reads before a view.
VIEWS = {audience: ViewProjector(audience) for audience in ("agent", "subagent")}
VIEW_ZONE = ZoneProjector()
VIEW_MENTIONS = MentionsProjector(VIEWS["agent"])

#: Every projector, by the name its keys carry.
PROJECTORS: dict[str, Projector] = {
    p.name: p
    for p in (
        *MEMORY_FILE_PROJECTORS.values(),
        *ARCHIVE_PROJECTORS.values(),
        ASKS_FILE_PROJECTOR,
        *VIEWS.values(),
        VIEW_ZONE,
        VIEW_MENTIONS,
        VIEW_FILE_PROJECTOR,
        CALENDAR_PROJECTOR,
    )
}

__all__ = [
    "ARCHIVE_PROJECTORS",
    "ASKS_FILE_PROJECTOR",
    "MEMORY_FILE_PROJECTORS",
    "PROJECTORS",
    "VIEWS",
    "VIEW_FILE_PROJECTOR",
    "VIEW_MENTIONS",
    "VIEW_READS",
    "VIEW_ZONE",
    "AsksFileProjector",
    "Heads",
    "Key",
    "MemoryFileProjector",
    "MentionsProjector",
    "Projector",
    "ViewFacts",
    "ViewFileProjector",
    "ViewMemo",
    "ViewProjector",
    "ViewState",
    "ZoneProjector",
]
