"""Agent routes (agent token): what a coding agent reads and writes for one project."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Response, Router, get, post, put, route
from litestar.di import NamedDependency
from litestar.enums import HttpMethod
from litestar.params import JSONBody, Parameter, QueryParameter

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES
from orbital.clock import parse_as_of, parse_instant
from orbital.domain.history import summarize
from orbital.events import event_type
from orbital.files import projected_file
from orbital.http._auth import BEARER_SCHEME, agent_caller, target_project
from orbital.http._problems import AUTHED, WRITES, documented
from orbital.http._schemas import (
    ContextView,
    FileContent,
    FileWrite,
    History,
    HistoryEvent,
    SessionEnd,
    WriteResult,
)
from orbital.service import Credential, HistoryQuery, Orbital, Project

_NAME = "A memory file's name (any case is accepted)."
_INSTANT = "An ISO 8601 date or instant (naive means UTC), e.g. 2026-11-01 or 2026-11-01T09:30Z."
_AS_OF = (
    "Render it as it stood then: an ISO 8601 instant (naive means UTC), a date YYYY-MM-DD (the "
    "end of that day in the project's timezone), or @N for the log position N."
)
#: An as-of as the schema states it (empty: now).
_AS_OF_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "maxLength": 0},
        {"type": "string", "format": "date"},
        {"type": "string", "format": "date-time"},
        {"type": "string", "pattern": "^@[0-9]{1,18}$"},
    ]
}
#: An instant as the schema states it (empty: no bound).
_INSTANT_SCHEMA: dict[str, Any] = {"anyOf": _AS_OF_SCHEMA["anyOf"][:3]}
_MEMORY_NAMES = list(MEMORY_FILES.values())
_PROJECTED_NAMES = [*_MEMORY_NAMES, *ARCHIVE_FILES.values()]


@get(
    "/history",
    summary="The project's events, oldest first",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def history(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    since: Annotated[
        str | None, QueryParameter(description=_INSTANT, schema_extra=_INSTANT_SCHEMA)
    ] = None,
    until: Annotated[
        str | None, QueryParameter(description=_INSTANT, schema_extra=_INSTANT_SCHEMA)
    ] = None,
    stream: Annotated[
        str | None,
        QueryParameter(description="Only this stream (ask:a1b2c3), or a prefix ending in ':'."),
    ] = None,
    file: Annotated[
        str | None, QueryParameter(description="Only the events of this memory file.")
    ] = None,
    entry: Annotated[str | None, QueryParameter(description="Only this entry id.")] = None,
    ask: Annotated[str | None, QueryParameter(description="Only this ask id.")] = None,
) -> History:
    query = HistoryQuery(
        since=parse_instant(since) if since else None,
        until=parse_instant(until) if until else None,
        stream=stream,
        exact_stream=stream is not None and not stream.endswith(":"),
        file=file or None,
        entry=entry,
        ask=ask,
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


@put(
    "/files/{name:str}",
    summary="Write a memory file (the agent's proposed full content)",
    description="A refused change is still 200: the refusal is in `warnings` and `content` is "
    "the file unchanged.",
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def write_file(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    name: Annotated[str, Parameter(description=_NAME, schema_extra={"enum": _MEMORY_NAMES})],
    data: JSONBody[FileWrite],
) -> WriteResult:
    outcome = service.write_file(
        target.project_id,
        name,
        data.content.encode(),
        actor=caller.actor,
        session=data.session,
    )
    return msgspec.convert(outcome, WriteResult, from_attributes=True)


@get(
    "/files/{name:str}",
    summary="Read a memory file as Orbital projects it",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def read_file(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    name: Annotated[str, Parameter(description=_NAME, schema_extra={"enum": _PROJECTED_NAMES})],
    as_of: Annotated[
        str | None, QueryParameter(description=_AS_OF, schema_extra=_AS_OF_SCHEMA)
    ] = None,
) -> FileContent:
    content = service.read_file(target.project_id, name, as_of=parse_as_of(as_of or None))
    return FileContent(projected_file(name).name, content)


@get(
    "/context",
    summary="The per-turn injection view",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def context(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    window: Annotated[
        int | None, QueryParameter(description="The model's context window in tokens.", ge=1)
    ] = None,
    audience: Annotated[
        Literal["agent", "subagent"], QueryParameter(description="Who the view is for.")
    ] = "agent",
    as_of: Annotated[
        str | None, QueryParameter(description=_AS_OF, schema_extra=_AS_OF_SCHEMA)
    ] = None,
) -> ContextView:
    view = service.context_view(
        target.project_id, window=window, audience=audience, as_of=parse_as_of(as_of or None)
    )
    return ContextView(target.project_id, audience, view)


@post(
    "/session-end",
    summary="Run the deterministic session-end backstop",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def session_end(service: NamedDependency[Orbital], target: NamedDependency[Project]) -> SessionEnd:
    report = service.session_end(target.project_id)
    return msgspec.convert(report, SessionEnd, from_attributes=True)


@route(
    "/files/{name:str}",
    http_method=[HttpMethod.OPTIONS],
    include_in_schema=False,
    sync_to_thread=False,
)
def file_options() -> Response[None]:
    """``Allow`` for a memory file. Litestar's own OPTIONS answer for a path with handlers of
    several methods names only the first handler's (it keeps the route it made first)."""
    return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, PUT"})


def agent_router() -> Router:
    return Router(
        "/api/v1/projects/{project:str}",
        # The OPTIONS answer first, so Litestar makes none of its own for the path.
        route_handlers=[context, history, file_options, read_file, write_file, session_end],
        dependencies={"caller": agent_caller, "target": target_project},
        security=[{BEARER_SCHEME: []}],
        tags=["agent"],
    )
