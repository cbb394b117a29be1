"""The parts of :class:`~orbital.service.Orbital` a short-lived process may never need, made
(and their modules imported) on first use: a hook or a CLI write is a new process, and what it
imports is most of what it costs. The person's credentials and page sessions, history and
conflict copies, export, import and revert, the purge, and the memory editor (whose model client
brings an HTTP stack)."""

from __future__ import annotations

import functools
from collections.abc import Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from orbital.clock import Clock
    from orbital.events import Actor, RecordedEvent
    from orbital.project import Project
    from orbital.service._agents import AgentSessions
    from orbital.service._asks import AsksService
    from orbital.service._calendar import CalendarFeeds
    from orbital.service._citations import Citations
    from orbital.service._conflicts import Conflicts
    from orbital.service._context import EventSummary, WriteOutcome
    from orbital.service._credentials import Credential, Credentials
    from orbital.service._editor import EditorService
    from orbital.service._history import History, HistoryQuery, Revision
    from orbital.service._import_from import ImportFromReport, ImportsFrom
    from orbital.service._injection import InjectionCost
    from orbital.service._log_files import ImportReport, LogFiles
    from orbital.service._memory import MemoryService
    from orbital.service._names import ProjectNames
    from orbital.service._page_sessions import PageSessions
    from orbital.service._purge import Purges
    from orbital.service._revert import RevertReport
    from orbital.service._search import SearchService
    from orbital.service._unit import Units
    from orbital.service._workspaces import Workspaces
    from orbital.store import EventStore
    from projections.entry_pages import EntryPage, EntryQuery
    from projections.search import SearchHit, SearchQuery
    from projections.workbench import EntryRow, WorkbenchView


class OnFirstUse:
    """What :class:`~orbital.service.Orbital` sets up in its constructor, and the parts it
    makes from them when first asked."""

    store: EventStore
    clock: Clock
    units: Units
    _asks: AsksService
    _memory: MemoryService
    workspaces: Workspaces

    if TYPE_CHECKING:  # Orbital's own

        @property
        def agents(self) -> AgentSessions: ...

        def read_versioned(self, project: str, name: str) -> tuple[str, int]: ...

        def projects(self) -> list[Project]: ...

        def write_file(
            self, project: str, name: str, content: bytes, *, actor: Actor, base: int | None
        ) -> WriteOutcome: ...

    @functools.cached_property
    def credentials(self) -> Credentials:
        from orbital.service._credentials import Credentials

        return Credentials(self.store, self.clock)

    @functools.cached_property
    def _calendars(self) -> CalendarFeeds:
        from orbital.service._calendar import CalendarFeeds

        return CalendarFeeds(self._memory)

    def calendar_feed(self, project: str) -> str:
        """The project's iCalendar feed: its open asks' dues and PROJECT_STATE's dated facts."""
        return self._calendars.feed(self.store.project(project))

    @functools.cached_property
    def _imports_from(self) -> ImportsFrom:
        from orbital.service._import_from import ImportsFrom

        return ImportsFrom(self._memory)

    def import_from(
        self,
        project: str,
        paths: Sequence[Path] = (),
        *,
        actor: Actor,
        session: str | None = None,
        dry_run: bool = False,
        auto_memory: Path | None = None,
    ) -> ImportFromReport:
        """Another tool's memory (CLAUDE.md, AGENTS.md, Cursor rules, Claude Code's auto
        memory, a Cline memory bank; or the files ``paths``) as entries, in one batch; the
        source files are only read. ``dry_run``: the plan alone."""
        from orbital.service._import_from import find_sources

        found = self.store.project(project)
        sources = find_sources(Path(found.root), paths, auto_memory)
        return self._imports_from.run(found, sources, actor=actor, session=session, dry_run=dry_run)

    def undo_import(
        self, project: str, batch: str, *, actor: Actor, session: str | None = None
    ) -> list[EventSummary]:
        """Remove the live entries import ``batch`` added."""
        found = self.store.project(project)
        return self._imports_from.undo(found, batch, actor=actor, session=session)

    @functools.cached_property
    def names(self) -> ProjectNames:
        """The projects' display names and their renames (:mod:`._names`)."""
        from orbital.service._names import ProjectNames

        return ProjectNames(self.store)

    @functools.cached_property
    def page_sessions(self) -> PageSessions:
        from orbital.service._page_sessions import PageSessions

        return PageSessions(self.store, self.clock, self.credentials)

    @functools.cached_property
    def _history(self) -> History:
        from orbital.service._history import History

        return History(self.units, self._memory, self._search)

    def history(
        self, project: str, query: HistoryQuery | None = None
    ) -> Generator[RecordedEvent, None, None]:
        """Events of a project, oldest first (or newest first), filtered by time window and
        by what they concern (a stream, a memory file, an entry, an ask), at most the query's
        limit; streamed from the store (close the generator when stopping early)."""
        return self._history.events(project, query)

    def revisions(self, project: str, entry_id: str) -> list[Revision]:
        """Every text an entry had, oldest first (for ``history --entry ID --diff``)."""
        return self._history.revisions(project, entry_id)

    @functools.cached_property
    def _conflicts(self) -> Conflicts:
        from orbital.service._conflicts import Conflicts

        return Conflicts(self.units, self._history, self._asks)

    @functools.cached_property
    def _log_files(self) -> LogFiles:
        from orbital.service._log_files import LogFiles

        return LogFiles(self.units)

    def export_log(self, project: str | None) -> Iterator[bytes]:
        """A project's whole log (``None``: every project's) as the gzip bytes of an
        exported file (:mod:`orbital.domain.log_file`), streamed."""
        return self._log_files.export(project)

    def import_log(self, root: str | Path, chunks: Iterable[bytes]) -> ImportReport:
        """Import the project checked out at ``root`` from an exported file (idempotent)."""
        return self._log_files.import_log(Path(root), chunks)

    def revert(self, project: str, target: str, *, actor: Actor) -> RevertReport:
        """Bring the memory files back to how they stood at ``@N`` or just after an event,
        by compensating events (nothing is rewritten; a revert is revertible)."""
        from orbital.service._revert import revert

        return revert(self.units, self.store.project(project), target, actor)

    def write_entry(
        self,
        project: str,
        file: str,
        title: str,
        body: str,
        *,
        entry_id: str | None = None,
        actor: Actor,
    ) -> WriteOutcome:
        """A decision or lesson added (or entry ``entry_id`` rewritten) by a form: the file's
        text with it, written through the write path against the version it was built from,
        so every rule of a whole-file write applies and a change made meanwhile is a clash."""
        from orbital.catalogue import MEMORY_FILES
        from orbital.files import memory_file
        from orbital.grammar.entry_forms import with_entry_changed, with_new_entry

        found = memory_file(MEMORY_FILES.get(file.lower(), file))
        text, version = self.read_versioned(project, found.name)
        if entry_id is None:
            proposed = with_new_entry(text, found.key, title, body)
        else:
            proposed = with_entry_changed(text, found.key, entry_id, title, body)
        return self.write_file(project, found.name, proposed.encode(), actor=actor, base=version)

    def set_injection(self, project: str, level: str, *, actor: Actor) -> WriteOutcome:
        """Set how much the hooks inject in ``project``; this checkout's view file (what
        Claude Code loads before any hook) is rendered at the new level at once, so the next
        session starts with it (other checkouts' at their next session start)."""
        from orbital.agents.claude_code import VIEW_FILE

        done = self.workspaces.set_injection(project, level, actor=actor)
        if done.events:
            found = self.store.project(project)
            self.agents.refresh_view(found, Path(found.root) / VIEW_FILE)
        return done

    def injection_cost(self, project: str) -> InjectionCost:
        """What memory costs ``project``'s sessions in tokens, now and over the last
        sessions the hooks recorded (:mod:`._injection`)."""
        from orbital.service._injection import injection_cost

        found = self.store.project(project)
        mine = self.workspaces.injection(project)
        day, _zone, shown = self.workspaces.today(found)
        now = self.agents.injected(found, mine, day, shown)
        cost = injection_cost(found.project_id, mine, now, self._memory.count)
        return msgspec.structs.replace(cost, name=self.names.of(found.project_id))

    @functools.cached_property
    def citations(self) -> Citations:
        """Checks and confirmations of the files entries cite (:mod:`._citations`)."""
        from orbital.service._citations import Citations

        return Citations(self.units)

    @functools.cached_property
    def _search(self) -> SearchService:
        from orbital.service._search import SearchService

        return SearchService(self.store)

    def search(self, project: str, query: SearchQuery) -> list[SearchHit]:
        """The project's texts (live entries, archives, asks; with ``query.past`` also
        superseded, retracted and retired entries and past versions) that hold every word of
        the query, ranked by the database's full-text engine."""
        return self._search.find(self.store.project(project).project_id, query)

    def recall(self, project: str, prompt: str, limit: int) -> str:
        """At most ``limit`` pointers to archived entries that match ``prompt`` strongly, as
        the agent reads them ("" for none)."""
        return self._search.recall(self.store.project(project).project_id, prompt, limit)[0]

    @functools.cached_property
    def purges(self) -> Purges:
        """The person's purge of a text from history (:mod:`._purge`)."""
        from orbital.service._purge import Purges

        return Purges(self.units, self._memory)

    @functools.cached_property
    def editor(self) -> EditorService:
        """The memory editor's use cases."""
        from orbital.editor.scheduler import EditorScheduler
        from orbital.service._editor import EditorService

        scheduler = EditorScheduler(self.clock)
        return EditorService(self.units, self._memory, self._memory.count, scheduler)

    def workbench(
        self, caller: Credential, *, project: str | None = None, recently_closed: bool = False
    ) -> WorkbenchView:
        """The person's asks across the projects ``caller`` reaches, or only ``project``
        (out of reach reads as unknown). Each project's dates are counted in its timezone."""
        if project is not None and not caller.reaches(project):
            from orbital.errors import UnknownProject

            raise UnknownProject(project)
        chosen = (
            [self.store.project(project)]
            if project is not None
            else [p for p in self.projects() if caller.reaches(p.project_id)]
        )
        from orbital.service._workbench import workbench_view

        names = {p: n for p, n in self.names.all().items() if caller.reaches(p)}
        return workbench_view(
            self._asks, chosen, names, self.clock.now(), recently_closed, self.agents
        )

    def memory_entries(self, project: str) -> list[EntryRow]:
        """Every durable entry of the project (live first, in file order) with its history,
        for the person to read, pin, unpin or restore."""
        return self._history.memory_entries(project)

    def entries_page(self, project: str, query: EntryQuery) -> EntryPage:
        """A page of the project's entries (a search, a file, a status), each with its
        history: what the Workbench shows and the API serves."""
        return self._history.entries_page(project, query)
