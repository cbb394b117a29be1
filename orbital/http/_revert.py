"""The person's revert over HTTP (Workbench token, issue 27): the memory files brought back
to how they stood at a position or just after an event, by compensating events. The service
refuses anyone but the person; this route only ever acts as the credential's actor."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from orbital.http._problems import WRITES, documented
from orbital.http._schemas import WrittenEvent
from orbital.service import Credential, Orbital, Project


class RevertTarget(msgspec.Struct, frozen=True):
    """Where to go back to: ``@N`` (a position of the log) or an event id of the project."""

    to: Annotated[str, msgspec.Meta(min_length=1, max_length=80)]


class RevertResult(msgspec.Struct, frozen=True):
    """The position reverted to, the event it stands just after ("" before the first), and
    the events appended (``project.reverted`` first, then the changes)."""

    position: int
    event_id: str
    events: list[WrittenEvent]
    warnings: list[str]


@post(
    "/{project:str}/revert",
    summary="Revert the memory files to a position or just after an event",
    description="Appends the changes that undo what came since; nothing is rewritten, and a "
    "revert is reverted the same way. 409 when nothing would change; 404 for an unknown "
    "event id; 400 for a position past the project's last event.",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
    name="revert",
    operation_id="revert",
)
def revert(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[RevertTarget],
) -> RevertResult:
    report = service.revert(target.project_id, data.to, actor=caller.actor)
    return msgspec.convert(report, RevertResult, from_attributes=True)
