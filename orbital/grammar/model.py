"""The folded state of one memory file, and a proposed write as the grammars parsed it.

The domain never reads markdown itself: the grammars parse a proposed text into a
:class:`ParsedDoc` (entries with their identity keys already computed) and render a
:class:`FileState` back to text. These types live with the grammars because both sides of
that boundary need them and the grammars sit below the domain.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Literal

import msgspec

from orbital.events.files import Slot

Status = Literal["live", "archived", "merged", "retired"]
#: ``needs-check``: held, but a file it cites no longer matches what was cited (issue 29).
TrustState = Literal["held", "needs-check", "disputed", "superseded", "retracted"]


class Trust(msgspec.Struct, frozen=True):
    """Whether an entry is still believed (folded by :mod:`orbital.domain.trust`)."""

    state: TrustState = "held"
    #: The person's reason (disputed, retracted, reaffirmed).
    reason: str = ""
    #: The newer entries that supersede this one.
    by: tuple[str, ...] = ()
    #: When the supersession took effect (its ``since`` date, else the day it was recorded).
    since: dt.date | None = None
    #: The day the current state was recorded.
    on: dt.date | None = None
    #: A superseded or retracted entry this one says again (the writer was warned).
    restates: str = ""


class Citation(msgspec.Struct, frozen=True):
    """A file (or a line range of it) an entry's ``@file.`` mention cites, with the content's
    SHA-256 when cited and as last observed (``""``: the file was gone)."""

    path: str
    #: ``"10-20"``, ``"10"``; ``""``: the whole file.
    lines: str = ""
    hash: str = ""
    seen: str = ""
    #: The day a check first found it no longer matching (None while it matches).
    since: dt.date | None = None

    @property
    def moved(self) -> bool:
        return self.seen != self.hash

    @property
    def mention(self) -> str:
        return f"@file.{self.path}" + (f"#L{self.lines}" if self.lines else "")


class Entry(msgspec.Struct, frozen=True):
    """One durable entry as of the last folded event."""

    entry_id: str
    file: str
    text: str
    created: dt.date
    touched: dt.date
    #: Comment fields other than id/created/touched, in writer order.
    meta: Mapping[str, str] = msgspec.field(default_factory=dict)
    status: Status = "live"
    #: The line shown in the entry's slot while it is archived or merged.
    pointer: str = ""
    archived_on: dt.date | None = None
    #: The pointer aged out of the live file (the entry itself stays archived).
    pointer_dropped: bool = False
    #: The entry a merged entry was folded into (status ``merged``).
    merged_into: str = ""
    trust: Trust = Trust()
    #: The files its ``@file.`` mentions cite (issue 29), in the order written.
    citations: tuple[Citation, ...] = ()

    @property
    def pinned(self) -> bool:
        return self.meta.get("tag") == "pinned"


class FileState(msgspec.Struct, frozen=True):
    """One memory file: its entries (any status), the live layout, and raw as-is content."""

    key: str
    entries: Mapping[str, Entry] = msgspec.field(default_factory=dict)
    layout: tuple[Slot, ...] = ()
    #: Set when the last write could not be parsed into entries and was kept as-is.
    raw: str | None = None
    #: Archived and merged entry ids in the order they left the live file (the archive
    #: file's order).
    archive: tuple[str, ...] = ()

    def live_ids(self) -> list[str]:
        """Ids of the live entries in file order."""
        return [
            s.entry
            for s in self.layout
            if s.entry and s.entry in self.entries and self.entries[s.entry].status == "live"
        ]


class ParsedEntry(msgspec.Struct, frozen=True):
    """An entry of a proposed write, with the identity keys the grammar computed."""

    #: Entry text without any id comment (LESSONS: numbered by its position).
    text: str
    #: Fields of the writer's own id comment (empty when stripped).
    fields: Mapping[str, str]
    #: Re-attachment key: normalised title (DECISIONS/LESSONS), ``match_key`` (PROJECT_STATE).
    match: str
    #: Slug a new DECISIONS/LESSONS entry is named after ("" for PROJECT_STATE: ids are minted).
    base_id: str = ""
    #: Text modulo what rendering recomputes (LESSONS numbers); equal ⇒ nothing to record.
    shape: str = ""
    #: DECISIONS/LESSONS title without marker; a change alone is a retitle.
    title: str = ""
    #: DECISIONS/LESSONS ``body.strip()``; a change bumps ``touched``.
    body: str = ""


class Carved(msgspec.Struct, frozen=True):
    """The writer kept an archived entry's pointer line: the entry keeps its slot here."""

    entry_id: str


Piece = ParsedEntry | Carved | str


class ParsedDoc(msgspec.Struct, frozen=True):
    """A proposed file body (contract removed) as pieces, or raw text that has no entries."""

    pieces: tuple[Piece, ...] = ()
    #: Previous live entries parsed by the same grammar, by id (for comparisons).
    previous: Mapping[str, ParsedEntry] = msgspec.field(default_factory=dict)
    stored_raw: str | None = None
    warnings: tuple[str, ...] = ()
