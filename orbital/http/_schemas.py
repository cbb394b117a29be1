"""Request and response bodies (msgspec Structs; the OpenAPI schema is generated from them)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import msgspec

from orbital.service import ConflictCopy
from projections.search import SearchHit
from projections.workbench import EntryRow

#: A due as the schema states it: a day (February 29 in any year) and optionally ``THH:MM``.
_DUE_PATTERN = (
    r"^(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-"
    r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-9])|(?:0[13-9]|1[0-2])-30|(?:0[13578]|1[02])-31)"
    r"(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9])?$"
)

#: An as-of as the schema states it (empty: now): a date, an instant or ``@N``.
AS_OF_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "maxLength": 0},
        {"type": "string", "format": "date"},
        {"type": "string", "format": "date-time"},
        {"type": "string", "pattern": "^@[0-9]{1,18}$"},
    ]
}


class Health(msgspec.Struct, frozen=True):
    """``status`` is ``ok``, or what keeps the store from taking writes (``detail`` says
    why); ``database`` is the database underneath, e.g. ``SQLite 3.53.4``."""

    status: str
    version: str
    backend: str
    head: int
    database: str
    detail: str


class HistoryEvent(msgspec.Struct, frozen=True):
    """One event: who recorded it, when, and a one-line summary beside the full payload."""

    position: int
    recorded_at: dt.datetime
    stream: str
    type: str
    actor: str
    session: str | None
    summary: str
    data: dict[str, Any]


class History(msgspec.Struct, frozen=True):
    project: str
    events: list[HistoryEvent]


class SearchResult(msgspec.Struct, frozen=True):
    """What a search found, best first."""

    project: str
    hits: list[SearchHit]


class FileWrite(msgspec.Struct, frozen=True):
    """The agent's proposed full content of a memory file."""

    content: str
    session: str | None = None
    #: Entry ids the write removes on purpose (a write that would empty the file or remove
    #: most of it at once is refused unless it names them).
    remove: list[str] = msgspec.field(default_factory=list)


class WrittenEvent(msgspec.Struct, frozen=True):
    position: int
    stream: str
    type: str
    summary: str


class Held(msgspec.Struct, frozen=True):
    """A line held, not appended: it possibly repeats an ask the person dropped (or an entry
    they retracted). Sent again naming ``id`` in ``distinct_from`` it is taken."""

    text: str
    #: The dropped ask (or retracted entry) it resembles.
    id: str


class WriteResult(msgspec.Struct, frozen=True):
    """The file as it now stands, warnings for the writer (a refusal is one), and the events
    appended (at most the refusal's audit when refused). ``refused``: the write changed
    nothing and the warnings say why."""

    content: str
    warnings: list[str]
    events: list[WrittenEvent]
    refused: bool = False
    #: A memory file's version after the write (its ETag, unquoted); none for ASKS.md.
    version: int | None = None
    #: Lines held, not appended, each with the id of what it resembles.
    held: list[Held] = msgspec.field(default_factory=list)


class FileContent(msgspec.Struct, frozen=True):
    name: str
    content: str


class AskOpen(msgspec.Struct, frozen=True):
    #: Not blank (an ask needs a text).
    text: Annotated[str, msgspec.Meta(pattern=r"\S")]
    #: ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM``, a real day (checked by the service).
    due: Annotated[str, msgspec.Meta(pattern=_DUE_PATTERN)] | None = None
    #: An agent's: the dropped asks this one resembles but is not (a held answer named them).
    distinct_from: list[str] = msgspec.field(default_factory=list)


class EntryForm(msgspec.Struct, frozen=True):
    """A decision or lesson the person adds, or (``entry``) the entry they rewrite."""

    #: ``decisions`` or ``lessons`` (or the file's name).
    file: str
    #: One line (runs of spaces and line breaks become one space); not blank.
    title: Annotated[str, msgspec.Meta(pattern=r"\S")]
    body: str = ""
    #: The id of the entry rewritten; none: a new entry.
    entry: str | None = None


class AskDone(msgspec.Struct, frozen=True):
    note: str = ""


class AskDrop(msgspec.Struct, frozen=True):
    reason: str = ""


class Conflicts(msgspec.Struct, frozen=True):
    project: str
    conflicts: list[ConflictCopy]


class ResolveConflict(msgspec.Struct, frozen=True):
    """``mine``: write the kept copy as the person's change; ``orbital``: keep the store's."""

    keep: Literal["mine", "orbital"]


class MemoryEntries(msgspec.Struct, frozen=True):
    """A page of entries: ``total`` match the query; ask for ``next_offset`` (null on the
    last page) with the same query to go on."""

    project: str
    total: int
    offset: int
    limit: int
    next_offset: int | None
    entries: list[EntryRow]


class ContextView(msgspec.Struct, frozen=True):
    """The per-turn injection view, ready to put in front of the agent."""

    project: str
    audience: str
    context: str


class SessionEnd(msgspec.Struct, frozen=True):
    """What the session-end backstop did: events appended, files still over budget (tokens),
    and notes for the agent."""

    events: list[WrittenEvent]
    over_by: dict[str, int]
    notes: list[str]
    #: The memory editor's outcome when one is configured (``edited``, ``no_change``,
    #: ``failed``, or why no pass ran: ``not_needed``, ``too_soon``…); "" when none is.
    editor: str = ""
