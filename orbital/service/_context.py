"""What every use case needs: the store, the clock, the id minter, and per-project helpers;
and what use cases report back."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Any

import msgspec

from orbital.clock import Clock
from orbital.files import FileGateway, Journal, Written
from orbital.project import Project
from orbital.service._sessions import state_dir
from orbital.store import EventStore

#: Decoded snapshots kept in memory (each can hold every ask of a large project).
SNAPSHOT_CACHE = 4


def mint_hex() -> str:
    """Orbital-minted ids: 6 random lowercase hex digits (callers retry until unused)."""
    return secrets.token_hex(3)


class EventSummary(msgspec.Struct, frozen=True):
    """One appended event as reported back to the writer."""

    position: int
    stream: str
    type: str
    summary: str


class HeldLine(msgspec.Struct, frozen=True):
    """A line held, not appended: it possibly repeats what the person dropped (an ask) or
    retracted (an entry). Written again naming ``id`` (``distinct from <id>``) it is taken."""

    text: str
    #: The dropped ask or retracted entry it resembles.
    id: str


class WriteOutcome:
    """The result of writing a memory file: the file as it now stands, the warnings for the
    writer, and the events the write appended (at most the audit of a refusal when it was
    refused). ``refused``: the write changed nothing and the warnings say why.

    ``content`` may be given as a function and is then built on first access: an append to a
    large ASKS.md costs the size of the append, and only a caller that reads the whole file
    back (the HTTP response, ``--json``) pays for building it.
    """

    __slots__ = ("_build", "_content", "events", "held", "refused", "version", "warnings")

    def __init__(
        self,
        content: str | Callable[[], str],
        warnings: list[str],
        events: list[EventSummary],
        version: int | None = None,
        *,
        refused: bool = False,
        held: list[HeldLine] | None = None,
    ) -> None:
        #: A memory file's version after the write (its ETag); None for ASKS.md.
        self.version = version
        self._content: str | None = content if isinstance(content, str) else None
        self._build: Callable[[], str] | None = None if isinstance(content, str) else content
        self.warnings = warnings
        self.events = events
        self.refused = refused
        #: Lines held, not appended (each names what it resembles).
        self.held = held or []

    @property
    def content(self) -> str:
        if self._content is None:
            assert self._build is not None
            self._content, self._build = self._build(), None
        return self._content

    def to_builtins(self) -> dict[str, Any]:
        """``{content, warnings, events, refused, held}`` as JSON-ready values."""
        events = msgspec.to_builtins(self.events)
        found = {
            "content": self.content,
            "warnings": self.warnings,
            "events": events,
            "refused": self.refused,
            "held": msgspec.to_builtins(self.held),
        }
        return found if self.version is None else {**found, "version": self.version}


class SyncReport(msgspec.Struct, frozen=True):
    """What taking in the files on disk did: warnings, the events it appended, and the
    conflict copies it saved beside the projections (names inside ``orbital/``)."""

    warnings: list[str]
    events: list[EventSummary]
    conflicts: list[str]

    def __add__(self, other: SyncReport) -> SyncReport:
        return SyncReport(
            self.warnings + other.warnings,
            self.events + other.events,
            self.conflicts + other.conflicts,
        )


class InitReport(msgspec.Struct, frozen=True):
    """What ``init`` did: the project, warnings (a file imported, one kept beside because it
    could not be read) and the conflict copies saved beside the projections."""

    project: Project
    warnings: list[str]
    conflicts: list[str]


class Context(msgspec.Struct):
    store: EventStore
    clock: Clock
    mint: Callable[[], str] = mint_hex
    #: Per checkout and folder (a moved checkout gets a new one).
    _gateways: dict[tuple[str, str], FileGateway] = msgspec.field(default_factory=dict)
    _snapshots: dict[tuple[str, str, int], Any] = msgspec.field(default_factory=dict)
    #: The store's secret that signs what is kept outside it (read once: :meth:`store_key`).
    _key: list[bytes | None] = msgspec.field(default_factory=list)

    def today(self, project: Project) -> dt.date:
        """Today in the project's timezone (dates in files are project-local)."""
        return self.clock.now().astimezone(project.tz()).date()

    def conflict_copy(self, project: Project, name: str, raw: bytes) -> str:
        """Keep a person's edited file beside its projection; returns the copy's name."""
        stamp = self.clock.now().strftime("%Y%m%dT%H%M%S%fZ")
        return self.files(project).save_aside(f"{name}.conflict-{stamp}.md", raw)

    def settle(self, project: Project, files: FileGateway, name: str, written: Written) -> None:
        """Settle a committed write of ``name``; a person's save that landed in the replaced
        file too late to go back at the name is kept beside it, never dropped."""
        late = files.settle(name, written)
        if late is not None:
            self.conflict_copy(project, name, late)

    def forget(self) -> None:
        """Drop the decoded snapshots kept (after a purge deleted the rows)."""
        self._snapshots.clear()

    def decoded(self, key: tuple[str, str, int], load: Callable[[], Any]) -> Any:
        """A decoded snapshot, kept in a small LRU: snapshot rows never change, and as-of
        reads cluster around the same past moments."""
        found = self._snapshots.get(key)
        if found is None:
            found = load()
            if len(self._snapshots) >= SNAPSHOT_CACHE:
                self._snapshots.pop(next(iter(self._snapshots)))
        else:
            del self._snapshots[key]
        self._snapshots[key] = found
        return found

    def files(self, project: Project) -> FileGateway:
        """The checkout's files, its checked writes recorded in its journal in the state
        folder (signed with the store's key: :mod:`orbital.files._journal`)."""
        gateway = self._gateways.get((project.checkout, project.root))
        if gateway is None:
            journal = Journal(state_dir() / "journals" / project.checkout, self.sign)
            gateway = FileGateway(project.root, journal)
            self._gateways[project.checkout, project.root] = gateway
        return gateway

    def store_key(self) -> bytes | None:
        """The store's own secret (None: its row is gone), read once per process."""
        if not self._key:
            with self.store.reader() as r:
                self._key.append(r.cache_key())
        return self._key[0]

    def sign(self, data: bytes) -> bytes:
        """An HMAC-SHA256 of ``data`` keyed by the store's secret."""
        return hmac.new(self.store_key() or b"", data, hashlib.sha256).digest()
