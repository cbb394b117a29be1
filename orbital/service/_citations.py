"""Citations in the shell (issue 29): the checks that turn what moved into events, and a
confirmation.

A check observes the cited files through :class:`~._cited_files.CitedFiles` (each stated,
hashed only when its stat changed) at session start (:meth:`Citations.check`) and on every
write of the agent (:func:`citations_of_write`), never per prompt and never over the whole
tree. What an observation means is decided by :mod:`orbital.domain.citations`; the events it
decides are the only place the views read it from (no view stats the disk).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from orbital.domain.citations import (
    checked_spans,
    decide_checks,
    decide_cited,
    decide_confirm,
    written_spans,
)
from orbital.domain.trust import find
from orbital.events import Actor, Event
from orbital.project import Project
from orbital.service._cited_files import CitedFiles, head_mark
from orbital.service._context import WriteOutcome
from projections.files import render_memory_file

if TYPE_CHECKING:
    from orbital.service._unit import Unit, Units
    from orbital.store import Reader


def entry_head(r: Reader, pid: str) -> str:
    """The project's entry head as the kept record names it (:func:`head_mark`)."""
    position = r.prefix_head(pid, "entry:")
    return head_mark(position, r.event_id(pid, position) if position else "")


class WriteCitations(NamedTuple):
    """What a write cites (its events, for the caller to append after the write's own), and
    the record of the cited files when the write checked every citation (the agent's)."""

    events: list[Event]
    checked: CitedFiles | None

    def appended(self, u: Unit) -> None:
        """After the write's last append: the record names the entry head it now has, at
        which every citation is as the store has it."""
        if self.checked is not None:
            self.checked.save(entry_head(u.w, u.project.project_id))


def citations_of_write(u: Unit, written: Sequence[Event]) -> WriteCitations:
    """In a write's unit, before its ``written`` events are appended: when the agent writes,
    the checks of every citation, appended as Orbital's; and what the written entries cite
    now."""
    cited = CitedFiles(u.project, u.units.ctx.store_key)
    files = u.memory.files
    spans = written_spans(written)
    agent = u.actor is Actor.AGENT
    if agent:
        spans |= checked_spans(files)
    observed = cited.observe(spans)
    if agent:
        u.append(decide_checks(files, observed, u.today), actor=Actor.SYSTEM)
    events = decide_cited(files, written, observed, u.today)
    if not agent:
        cited.save()  # the agent's is saved with the head its write leaves
    return WriteCitations(events, cited if agent else None)


class Citations:
    """The citation use cases: the check a session start runs, and a confirmation."""

    def __init__(self, units: Units) -> None:
        self.units = units

    def check(self, project: Project) -> None:
        """Every citation checked; what moved appended as Orbital's events (one unit, only
        when something moved). Nothing cited moved since the last check at this entry head
        (the record confirms it with one stat per cited file): nothing more is read."""
        units, pid = self.units, project.project_id
        cited = CitedFiles(project, units.ctx.store_key)
        with units.ctx.store.reader() as r:
            head = entry_head(r, pid)
            if cited.quiet(head):  # as the first look: no entry read, one stat per file
                return
            files = units.memory.load(r, pid).files
        spans = checked_spans(files)
        if not decide_checks(files, cited.observe(spans), units.ctx.today(project)):
            cited.save(head, spans)
            return
        with units.begin(project, Actor.SYSTEM) as u:
            files = u.memory.files
            u.append(decide_checks(files, cited.observe(checked_spans(files)), u.today))
        cited.save()

    def confirm(
        self, project: str, entry_id: str, *, actor: Actor, session: str | None = None
    ) -> WriteOutcome:
        """The agent's or the person's confirmation that ``entry_id`` holds with its cited
        files as they are now (no event: every citation matched already)."""
        found = self.units.ctx.store.project(project)
        cited = CitedFiles(found, self.units.ctx.store_key)
        with self.units.begin(found, actor, session=session) as u:
            files = u.memory.files
            entry = find(files, entry_id)
            spans = {(c.path, c.lines) for c in entry.citations} if entry is not None else set()
            u.append(decide_confirm(files, entry_id, cited.observe(spans), actor, u.today))
        cited.save()
        assert u.memory_after is not None and entry is not None  # the decider refuses else
        return WriteOutcome(
            render_memory_file(u.memory_after.files[entry.file]), u.warnings, u.events
        )
