"""Agent routes (agent token): what a coding agent reads and writes for one project."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Router, get
from litestar.di import NamedDependency
from litestar.params import QueryParameter

from orbital.clock import parse_instant
from orbital.events import event_type
from orbital.http._auth import BEARER_SCHEME, agent_caller, target_project
from orbital.http._schemas import History, HistoryEvent
from orbital.service import HistoryQuery, Orbital
from orbital.store import Project
from projections.history import summarize

_INSTANT = "An ISO 8601 date or instant (naive means UTC), e.g. 2026-11-01 or 2026-11-01T09:30Z."


@get("/history", summary="The project's events, oldest first", sync_to_thread=True)
def history(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    since: Annotated[str | None, QueryParameter(description=_INSTANT)] = None,
    until: Annotated[str | None, QueryParameter(description=_INSTANT)] = None,
    stream: Annotated[
        str | None, QueryParameter(description="Only this stream, e.g. ask:a1b2c3.")
    ] = None,
) -> History:
    query = HistoryQuery(
        since=parse_instant(since) if since else None,
        until=parse_instant(until) if until else None,
        stream=stream,
        exact_stream=stream is not None,
    )
    events = [
        HistoryEvent(
            position=e.position,
            recorded_at=e.recorded_at,
            stream=e.stream,
            type=event_type(type(e.event)),
            actor=e.actor.value,
            session=e.session,
            summary=summarize(e.event),
            data=msgspec.to_builtins(e.event),
        )
        for e in service.history(target.project_id, query)
    ]
    return History(target.project_id, events)


def agent_router() -> Router:
    return Router(
        "/api/v1/projects/{project:str}",
        route_handlers=[history],
        dependencies={"caller": agent_caller, "target": target_project},
        security=[{BEARER_SCHEME: []}],
        tags=["agent"],
    )
