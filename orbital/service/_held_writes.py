"""A session's held writes: what its file tool is about to write, and those that never landed.

Claude Code can refuse a tool after its PreToolUse hook recorded the write (the write is held:
the tool writes the bytes); no hook says so. The session's marks keep the files whose held
bytes are due (:meth:`HeldWrites.held`, :meth:`HeldWrites.landed`), and at its next hook the
ones that never reached their file are written again from the store (:func:`unlanded`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from orbital.files import memory_file
from orbital.project import Project
from orbital.service._asks_file import ASKS_FILE
from orbital.service._held import not_applied, unlanded
from orbital.service._sessions import SessionMarks
from projections.files import render_memory_file

if TYPE_CHECKING:
    from orbital.service._checkouts import Checkouts
    from orbital.service._unit import Units


class HeldWrites:
    """The held writes of agents' sessions, kept in the sessions' marks."""

    def __init__(
        self, units: Units, checkouts: Checkouts, marks: Callable[[], SessionMarks]
    ) -> None:
        self.units, self.checkouts, self._marks = units, checkouts, marks
        self.store = units.ctx.store

    @property
    def marks(self) -> SessionMarks:
        return self._marks()

    def held(self, project: Project, session: str, name: str) -> None:
        """The session's file tool is about to write ``name``'s held bytes."""
        mark = self.marks.get(project.project_id, session)
        if name not in mark.pending:
            pending = (*mark.pending, name)
            self.marks.put(project.project_id, session, mark._replace(pending=pending))

    def landed(self, project: Project, session: str, name: str) -> None:
        """The session's file tool wrote ``name`` (its PostToolUse came)."""
        mark = self.marks.get(project.project_id, session)
        if name in mark.pending:
            pending = tuple(n for n in mark.pending if n != name)
            self.marks.put(project.project_id, session, mark._replace(pending=pending))

    def _unlanded(self, project: Project, names: Sequence[str]) -> list[str]:
        pid, units = project.project_id, self.units
        with self.store.reader() as r:

            def render(name: str) -> str:
                if name == ASKS_FILE:
                    return units.asks.render(r, pid)
                return render_memory_file(units.memory.load(r, pid).files[memory_file(name).key])

            return unlanded(r, project, units.ctx.files(project), names, render)

    def sync_unlanded(self, project: Project, session: str) -> tuple[list[str], list[str]]:
        """Held writes of the session that never reached their file (Claude Code refused
        the tool after Orbital recorded the write; no hook says so): the files written again
        from the store. Returns their names and a note for the agent on each."""
        pid = project.project_id
        mark = self.marks.get(pid, session)
        if not mark.pending:
            return [], []
        names = self._unlanded(project, mark.pending)
        if names:
            self.checkouts.sync(self.store.project(pid))
        self.marks.put(pid, session, self.marks.get(pid, session)._replace(pending=()))
        return names, [not_applied(name) for name in names]
