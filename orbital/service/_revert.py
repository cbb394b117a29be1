"""The person's revert: the memory files brought back to how they stood at a position or
just after an event, by compensating events appended now (the rule is
:mod:`orbital.domain.revert`). One unit of work, so a revert is all or nothing, and one
command however many entries it takes back.
"""

from __future__ import annotations

from dataclasses import dataclass

from orbital.catalogue import PROJECT_STREAM
from orbital.domain.revert import decide_revert
from orbital.errors import InvalidInput, UnknownEvent
from orbital.events import Actor
from orbital.events.project import ProjectReverted
from orbital.project import Project
from orbital.service._context import EventSummary
from orbital.service._unit import Units
from orbital.store import Reader


@dataclass(frozen=True)
class RevertReport:
    #: The position reverted to and the event it stands just after ("" before the first).
    position: int
    event_id: str
    events: list[EventSummary]
    warnings: list[str]


def resolve_target(r: Reader, project: str, target: str) -> tuple[int, str]:
    """``@N`` (a position of the log; 0 for before the project's first event) or an event
    id of the project, as the position and the id of the project's event at or before it."""
    head = r.head(project)
    if target.startswith("@"):
        try:
            position = int(target[1:])
        except ValueError:
            shown = f"a position is @ and a number, such as @1200, not {target!r}"
            raise InvalidInput(shown) from None
        if position < 0 or position > head:
            raise InvalidInput(
                f"{target} is not in this project's log: its positions run to @{head}"
            )
    else:
        found = r.event_position(project, target)
        if found is None:
            raise UnknownEvent(target)
        position = found
    event = r.event_at_or_before(project, position)
    return (position, "") if event is None else (position, event[1])


def revert(units: Units, project: Project, target: str, actor: Actor) -> RevertReport:
    """Bring the memory files back to ``target`` (see :func:`resolve_target`), as ``actor``."""
    with units.begin(project, actor) as u:
        position, event_id = resolve_target(u.w, u.pid, target)
        then = units.memory.load(u.w, u.pid, at=position)
        events = decide_revert(then.files, u.memory.files, u.today, target, actor)
        u.append([ProjectReverted(position=position, event_id=event_id)], stream=PROJECT_STREAM)
        u.append(events)
    return RevertReport(position, event_id, u.events, u.warnings)
