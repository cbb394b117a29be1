"""The calendar feed's shell: gathers a project's asks and PROJECT_STATE for the calendar
projector, and keeps the feed by its key (a calendar app polls; the feed changes only when
an ask or an entry does)."""

from __future__ import annotations

from dataclasses import dataclass

from orbital.project import Project
from orbital.service._memory import MemoryService
from projections import Heads
from projections.calendar import CALENDAR_PROJECTOR


@dataclass(slots=True)
class CalendarFeeds:
    memory: MemoryService

    def feed(self, project: Project) -> str:
        """The project's iCalendar feed now (RFC 5545 text)."""
        units, pid = self.memory.units, project.project_id
        with units.ctx.store.reader() as r:
            key = CALENDAR_PROJECTOR.key(pid, Heads(r.category_heads(pid)))
            text = self.memory.outputs.get(key)
            if text is not None:
                return text
            asks = units.asks.every(r, pid)
            state = units.memory.load(r, pid).files["state"]
            name = r.names().get(pid, pid)
        text = CALENDAR_PROJECTOR.render(pid, name, asks.values(), state)
        self.memory.outputs.put(key, text)
        return text
