"""The parts of :class:`~orbital.service.Orbital` a short-lived process may never need, made
(and their modules imported) on first use: a hook or a CLI write is a new process, and what it
imports is most of what it costs. The person's credentials and page sessions, history and
conflict copies, export, import and revert, the purge, and the memory editor (whose model client
brings an HTTP stack)."""

from __future__ import annotations

import functools
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orbital.clock import Clock
    from orbital.events import Actor, RecordedEvent
    from orbital.service._asks import AsksService
    from orbital.service._conflicts import Conflicts
    from orbital.service._credentials import Credentials
    from orbital.service._editor import EditorService
    from orbital.service._history import History, HistoryQuery, Revision
    from orbital.service._log_files import ImportReport, LogFiles
    from orbital.service._memory import MemoryService
    from orbital.service._names import ProjectNames
    from orbital.service._page_sessions import PageSessions
    from orbital.service._purge import Purges
    from orbital.service._revert import RevertReport
    from orbital.service._unit import Units
    from orbital.store import EventStore


class OnFirstUse:
    """What :class:`~orbital.service.Orbital` sets up in its constructor, and the parts it
    makes from them when first asked."""

    store: EventStore
    clock: Clock
    units: Units
    _asks: AsksService
    _memory: MemoryService

    @functools.cached_property
    def credentials(self) -> Credentials:
        from orbital.service._credentials import Credentials

        return Credentials(self.store, self.clock)

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

        return History(self.units, self._memory)

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
