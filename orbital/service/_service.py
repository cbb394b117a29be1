"""Use cases over the event store."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from orbital.catalogue import MEMORY_DIR, MEMORY_FILES
from orbital.clock import Clock, clock_from_env
from orbital.domain.asks import Ask, CloseKind
from orbital.domain.budgets import TokenCounter
from orbital.domain.entry_actions import EntryAction
from orbital.domain.history import summarize
from orbital.domain.workbench import (
    ClosedAsk,
    EntryRow,
    OpenAsk,
    ProjectInfo,
    TimelineItem,
    WorkbenchView,
    done_asks,
    dropped_asks,
    entry_rows,
    open_asks,
    recently_closed_asks,
    sort_closed,
    sort_open,
)
from orbital.editor.scheduler import EditorScheduler
from orbital.errors import InvalidInput, Refused, UnknownEntry, UnknownProject, UnmergedEdits
from orbital.events import Actor, RecordedEvent, event_type
from orbital.events.files import HandEditConflict, HandEditResolved
from orbital.files import memory_file, projected_file
from orbital.project import Project
from orbital.service._asks import ASK_REDUCER, AsksService, MigrationReport, StateFilter
from orbital.service._context import Context, SyncReport, WriteOutcome, mint_hex
from orbital.service._credentials import Credential, Credentials
from orbital.service._editor import EditorReport, EditorService
from orbital.service._memory import MemoryService, SessionEndReport
from orbital.store import EventStore, StoreStatus
from orbital.tokens import CachedCounter

ENTRY_PREFIX = "entry:"
#: An as-of: an instant, or a position in the log (None: now).
AsOf = dt.datetime | int | None
#: Materialised state per stream category, kept by the store in the append transaction.
REDUCERS = {"ask": ASK_REDUCER}


def _aware(when: dt.datetime | None) -> dt.datetime | None:
    """An instant in UTC; a naive one is taken as UTC (as the store does)."""
    if when is None:
        return None
    return when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when.astimezone(dt.UTC)


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Which events to list: a time window, and one stream (exact, or a prefix ending in
    ``:``), one memory file, one entry or one ask."""

    since: dt.datetime | None = None
    until: dt.datetime | None = None
    stream: str | None = None
    exact_stream: bool = False
    file: str | None = None
    entry: str | None = None
    ask: str | None = None


class ConflictCopy(msgspec.Struct, frozen=True):
    """A person's edited file kept beside its projection after a clash, not settled yet."""

    file: str
    copy: str
    position: int
    recorded_at: dt.datetime


@dataclass(frozen=True, slots=True)
class Revision:
    """One version of an entry's text, and the event that made it."""

    event: RecordedEvent
    text: str


class Orbital:
    """The composition root's view of the service: a store and a clock."""

    def __init__(
        self,
        store: EventStore,
        clock: Clock,
        *,
        mint: Callable[[], str] = mint_hex,
        counter: TokenCounter | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.credentials = Credentials(store, clock)
        self._ctx = Context(store, clock, mint)
        self._asks = AsksService(self._ctx)
        self._memory = MemoryService(self._ctx, self._asks, counter or CachedCounter())
        self.editor = EditorService(
            self._ctx, self._memory, self._asks, self._memory.count, EditorScheduler(clock)
        )

    @classmethod
    def open(
        cls,
        db_url: str | None = None,
        *,
        clock: Clock | None = None,
        mint: Callable[[], str] = mint_hex,
        counter: TokenCounter | None = None,
        create: bool = True,
    ) -> Orbital:
        """Open (and upgrade) the store at ``db_url`` (default: ``ORBITAL_DB`` or the user
        data directory), with ``ORBITAL_NOW`` honoured unless a clock is given; ``create``:
        a SQLite store may be created where there is none."""
        clock = clock or clock_from_env()
        store = EventStore(db_url, clock=clock, reducers=REDUCERS, create=create)
        return cls(store, clock, mint=mint, counter=counter)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Orbital:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- projects -------------------------------------------------------------------------

    def init_project(self, root: str | Path, *, timezone: str = "") -> Project:
        """Register ``root`` and create its ``orbital/`` directory (idempotent). Memory files
        and an ASKS.md already there are imported (their ids kept), as a sync takes them in."""
        path = Path(root).expanduser().resolve()
        if not path.is_dir():
            raise InvalidInput(f"{path} is not a directory: create it first or pass --project")
        with self.store.writing() as w:
            project = w.register_project(path, timezone=timezone)
        (path / MEMORY_DIR).mkdir(exist_ok=True)
        self._memory.init_files(project)
        self._memory.sync(project)
        self._asks.sync(project)
        return project

    def project(self, ref: str | Path) -> Project:
        """A project by id, or by its directory (or any directory inside it)."""
        if isinstance(ref, str) and "/" not in ref and not Path(ref).exists():
            return self.store.project(ref)
        path = Path(ref).expanduser().resolve()
        with self.store.reader() as r:
            known = {p.root: p for p in r.projects()}
            for candidate in (path, *path.parents):
                found = known.get(str(candidate))
                if found is not None:
                    return found
            return r.project_for_root(path)

    def project_by_id(self, project: str) -> Project:
        """A registered project by its id (kept in memory once found)."""
        return self.store.project(project)

    def projects(self) -> list[Project]:
        """Every registered project, by id."""
        with self.store.reader() as r:
            return r.projects()

    @property
    def store_backend(self) -> str:
        """The store's database: ``sqlite`` or ``postgresql``."""
        return self.store.backend

    def store_status(self) -> StoreStatus:
        """Whether the store can take writes, and the database underneath it."""
        return self.store.status()

    def head(self, project: str | None = None) -> int:
        """The last position of the store (or of one project); 0 when empty."""
        with self.store.reader() as r:
            return r.head(project)

    # -- history --------------------------------------------------------------------------

    def history(self, project: str, query: HistoryQuery | None = None) -> Iterator[RecordedEvent]:
        """Events of a project, oldest first, filtered by time window and by what they
        concern (a stream, a memory file, an entry, an ask)."""
        query = query or HistoryQuery()
        found = self.store.project(project)
        prefixes: tuple[str, ...] | None = None
        wanted: set[str] | None = None
        if query.entry is not None:
            wanted = {f"entry:{query.entry}"}
        elif query.ask is not None:
            wanted = {f"ask:{query.ask.strip().lower()}"}
        elif query.file is not None:
            key = memory_file(query.file).key
            if key == "asks":
                prefixes = ("ask",)
            else:
                ids = self._memory.entry_ids(found, key)
                wanted = {f"entry:{i}" for i in ids} | {f"file:{key}"}
        elif query.stream is not None:
            if query.exact_stream:
                wanted = {query.stream}
            else:
                prefixes = (query.stream,)
        if wanted is not None and len(wanted) == 1:
            # One stream (an entry, an ask): read it through the (project, stream, version)
            # index, in version order, which is its position order. A stream filter on
            # read_project lets SQLite walk the whole project's position index instead (its
            # planner has no statistics to prefer the stream index): O(log n + k), not O(n).
            (stream,) = wanted
            since, until = _aware(query.since), _aware(query.until)
            with self.store.reader() as r:
                events = r.read_stream(project, stream)
            for event in events:
                if (since is None or event.recorded_at >= since) and (
                    until is None or event.recorded_at <= until
                ):
                    yield event
            return
        if wanted is not None:
            prefixes = tuple(sorted(wanted))
        with self.store.reader() as r:
            matching = r.read_project(
                project,
                since_time=query.since,
                until_time=query.until,
                stream_prefix=prefixes,
            )
            for event in matching:
                if wanted is None or event.stream in wanted:
                    yield event

    def revisions(self, project: str, entry_id: str) -> list[Revision]:
        """Every text an entry had, oldest first (for ``history --entry ID --diff``)."""
        events = list(self.history(project, HistoryQuery(entry=entry_id)))
        if not events:
            raise UnknownEntry(entry_id)
        revisions = []
        for recorded in events:
            text = getattr(recorded.event, "text", None)
            if isinstance(text, str):
                revisions.append(Revision(recorded, text))
        return revisions

    # -- memory files ---------------------------------------------------------------------

    def write_file(
        self,
        project: str,
        name: str,
        content: bytes,
        *,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        """Apply a proposed full content of ``orbital/<name>``: events, then the file."""
        target = memory_file(name)
        found = self.store.project(project)
        if target.key == "asks":
            return self._asks.write(found, content, actor, session)
        return self._memory.write(found, target.key, content, actor, session)

    def as_of(self, project: str, when: AsOf) -> tuple[int, dt.datetime] | None:
        """Resolve an as-of (an instant, or a position) to ``(position, instant)``."""
        if when is None:
            return None
        with self.store.reader() as r:
            r.project(project)
            if isinstance(when, int):
                if when < 0:
                    raise InvalidInput(f"a position is 0 or more, not {when}")
                instant = r.recorded_at(project, when)
                return when, instant or self.clock.now()
            return r.position_at(project, when), when

    def read_file(self, project: str, name: str, *, as_of: AsOf = None) -> str:
        """A projected file (a memory file or an archive) exactly as Orbital renders it from
        events, now or as of an instant or position."""
        target = projected_file(name)
        found = self.store.project(project)
        at = self.as_of(project, as_of)
        position = None if at is None else at[0]
        if target.key == "asks":
            return self._asks.read(found, at=position)
        if target.key.endswith("_archive"):
            return self._memory.read_archive(found, target.key[: -len("_archive")], at=position)
        return self._memory.read(found, target.key, at=position)

    def sync(self, project: str) -> SyncReport:
        """Take in hand edits of every projected file and rewrite what is stale."""
        found = self.store.project(project)
        return self._memory.sync(found) + self._asks.sync(found)

    def unmerged(self, project: str) -> list[str]:
        """Projected files changed on disk and not taken in yet."""
        found = self.store.project(project)
        return self._memory.unmerged(found) + self._asks.unmerged(found)

    def regenerate(self, project: str, *, force: bool = False) -> list[str]:
        """Rewrite every projection from events. A file edited by hand and not merged is
        refused unless ``force``, which first saves it beside as a conflict copy."""
        found = self.store.project(project)
        pending = self.unmerged(project)
        if pending and not force:
            raise UnmergedEdits(tuple(pending))
        return self._memory.regenerate(found) + self._asks.regenerate(found)

    def context_view(
        self,
        project: str,
        *,
        window: int | None = None,
        audience: str = "agent",
        as_of: AsOf = None,
    ) -> str:
        """The per-turn injection view (reference §4), served from materialised state; as of
        an instant or position when asked."""
        if audience not in ("agent", "subagent"):
            raise InvalidInput(f"audience is agent or subagent, not {audience!r}")
        if window is not None and window <= 0:
            raise InvalidInput(f"the context window must be a positive token count, not {window}")
        found = self.store.project(project)
        at = self.as_of(project, as_of)
        return self._memory.view(found, window=window, audience=audience, at=at)

    def entry_action(
        self, project: str, entry_id: str, action: EntryAction, *, actor: Actor
    ) -> WriteOutcome:
        """Pin, unpin or restore a durable entry (the person's Workbench actions)."""
        return self._memory.entry_action(self.store.project(project), entry_id, action, actor)

    def session_end(self, project: str) -> SessionEndReport:
        """The session-end routine: a memory-editor pass when a model is configured and its
        gates allow (over soft budget, changed, at most every 30 minutes, single flight), then
        the deterministic backstop, whatever the editor did."""
        found = self.store.project(project)
        outcome = self.editor.run(found, trigger="auto").outcome if self.editor.configured() else ""
        report = self._memory.session_end(found)
        return dataclasses.replace(report, editor=outcome)

    # -- hand-edit conflicts ---------------------------------------------------------------

    def conflicts(self, project: str) -> list[ConflictCopy]:
        """Conflict copies kept beside the projections and not settled yet."""
        found = self.store.project(project)
        files = self._ctx.files(found)
        kept: dict[str, ConflictCopy] = {}
        for recorded in self.history(project, HistoryQuery(stream="file:")):
            event = recorded.event
            if isinstance(event, HandEditConflict):
                name = MEMORY_FILES.get(event.file, event.file)
                kept[event.conflict_copy] = ConflictCopy(
                    name, event.conflict_copy, recorded.position, recorded.recorded_at
                )
            elif isinstance(event, HandEditResolved):
                kept.pop(event.conflict_copy, None)
        return [c for c in kept.values() if files.has_aside(c.copy)]

    def resolve_conflict(self, project: str, copy: str, keep: str, *, actor: Actor) -> WriteOutcome:
        """Settle a conflict copy: ``mine`` writes the person's text as their change of the
        file (the usual rules apply), ``orbital`` keeps the store's text and records the
        person's in the event. Either way the copy is then removed; nothing is lost."""
        pending = {c.copy: c for c in self.conflicts(project)}
        conflict = pending.get(copy)
        if conflict is None:
            raise Refused(
                f"{copy!r} is not an unsettled conflict copy of this project; the Workbench "
                "lists the ones waiting"
            )
        if keep not in ("mine", "orbital"):
            raise InvalidInput(f"keep is 'mine' or 'orbital', not {keep!r}")
        found = self.store.project(project)
        files = self._ctx.files(found)
        raw = files.read_aside(copy)
        if raw is None:
            raise Refused(f"the conflict copy {copy!r} is gone; nothing was changed")
        outcome = WriteOutcome("", [], [])
        if keep == "mine":
            outcome = self.write_file(project, conflict.file, raw, actor=actor)
        key = memory_file(conflict.file).key
        text = raw.decode("utf-8", errors="replace") if keep == "orbital" else ""
        settled = HandEditResolved(file=key, conflict_copy=copy, kept=keep, text=text)
        with self.store.writing() as w:
            w.append(project, f"file:{key}", [settled], expected_version=None, actor=actor)
        files.remove_aside(copy)
        return outcome

    # -- memory editor --------------------------------------------------------------------

    def editor_run(
        self, project: str, *, force: bool = False, sessions: Path | None = None
    ) -> EditorReport:
        """One editor pass when due (``force``: now, whatever the gates say but single
        flight), then the backstop; see :mod:`orbital.service._editor`."""
        return self.editor.run(
            self.store.project(project), trigger="forced" if force else "auto", sessions=sessions
        )

    def editor_apply(
        self, project: str, choices: str, *, sessions: Path | None = None
    ) -> EditorReport:
        """Apply a choices document (JSON text) as the editor would, without a model."""
        return self.editor.apply(self.store.project(project), choices, sessions=sessions)

    # -- asks -----------------------------------------------------------------------------

    def asks(self, project: str, state: StateFilter = "open") -> list[Ask]:
        return self._asks.listing(self.store.project(project), state)

    def ask_open(
        self,
        project: str,
        text: str,
        due: str | None = None,
        *,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        return self._asks.open(self.store.project(project), text, due, actor, session)

    def ask_close(
        self,
        project: str,
        ask_id: str,
        kind: str,
        note: str = "",
        *,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        if kind not in ("done", "dropped"):
            raise InvalidInput(f"an ask is closed as done or dropped, not {kind!r}")
        close: CloseKind = "done" if kind == "done" else "dropped"
        return self._asks.change(self.store.project(project), ask_id, close, note, actor, session)

    def ask_reopen(
        self,
        project: str,
        ask_id: str,
        note: str = "",
        *,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        return self._asks.change(
            self.store.project(project), ask_id, "reopen", note, actor, session
        )

    def migrate_retractions(
        self,
        project: str,
        path: Path | None = None,
        *,
        dry_run: bool = False,
        progress: bool = False,
    ) -> MigrationReport:
        found = self.store.project(project)
        report = self._asks.migrate_retractions(found, path, dry_run=dry_run, progress=progress)
        if not dry_run:
            self._memory.sync(found)  # [user] lines now asks leave PROJECT_STATE.md
        return report

    # -- the Workbench (the person's views) -----------------------------------------------

    def workbench(
        self, caller: Credential, *, project: str | None = None, recently_closed: bool = False
    ) -> WorkbenchView:
        """The person's asks across the projects ``caller`` reaches, or only ``project``
        (out of reach reads as unknown). Each project's dates are counted in its timezone."""
        if project is not None and not caller.reaches(project):
            raise UnknownProject(project)
        chosen = (
            [self.store.project(project)]
            if project is not None
            else [p for p in self.projects() if caller.reaches(p.project_id)]
        )
        now = self.clock.now()
        infos: list[ProjectInfo] = []
        opened: list[tuple[OpenAsk, int]] = []
        done: list[tuple[ClosedAsk, int]] = []
        dropped: list[tuple[ClosedAsk, int]] = []
        closed: list[tuple[ClosedAsk, int]] = []
        for found in chosen:
            pid, local = found.project_id, now.astimezone(found.tz())
            asks = {a.id: a for a in self._asks.listing(found, "all")}
            infos.append(ProjectInfo(pid, found.root, found.timezone, local.date()))
            opened += open_asks(pid, asks, local)
            done += done_asks(pid, asks, local.date())
            dropped += dropped_asks(pid, asks)
            closed += recently_closed_asks(pid, asks, local.date())
        return WorkbenchView(
            projects=infos,
            asks=sort_open(opened),
            done=sort_closed(done),
            dropped=sort_closed(dropped),
            recently_closed=sort_closed(closed) if recently_closed else None,
        )

    def memory_entries(self, project: str) -> list[EntryRow]:
        """Every durable entry of the project (live first, in file order) with its history,
        for the person to read, pin, unpin or restore."""
        found = self.store.project(project)
        with self.store.reader() as r:
            memory = self._memory.load(r, found.project_id)
        timelines: dict[str, list[TimelineItem]] = {}
        for recorded in self.history(project, HistoryQuery(stream=ENTRY_PREFIX)):
            item = TimelineItem(
                position=recorded.position,
                recorded_at=recorded.recorded_at,
                actor=recorded.actor.value,
                type=event_type(type(recorded.event)),
                summary=summarize(recorded.event),
            )
            timelines.setdefault(recorded.stream.removeprefix(ENTRY_PREFIX), []).append(item)
        order = [key for key in MEMORY_FILES if key != "asks"]
        return entry_rows(memory.files, order, timelines)
