"""Agent routes (agent token): what a coding agent reads and writes for one project."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Request, Response, Router, get, post, put, route
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.enums import HttpMethod
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, HeaderParameter, JSONBody, Parameter, QueryParameter

from orbital.catalogue import ARCHIVE_FILES, LAYER1_KEYS, MEMORY_FILES
from orbital.clock import parse_as_of, parse_instant
from orbital.errors import InvalidInput
from orbital.events import event_type
from orbital.files import projected_file
from orbital.http._auth import BEARER_SCHEME, gate, project_hook, reached
from orbital.http._problems import AUTHED, WRITES, documented
from orbital.http._schemas import (
    AS_OF_SCHEMA,
    AskOpen,
    ContextView,
    FileContent,
    FileWrite,
    History,
    HistoryEvent,
    SearchResult,
    SessionEnd,
    WriteResult,
)
from orbital.http._texts import agent_text_routes
from orbital.http._views import EncodedViews
from orbital.service import Audience, Credential, HistoryQuery, Orbital, Project
from projections.history import summarize
from projections.search import (
    DEFAULT_LIMIT,
    FILE_CHOICES,
    MAX_LIMIT,
    MAX_QUERY,
    WORD_PATTERN,
    search_query,
)

_NAME = "A memory file's name (any case is accepted)."
_INSTANT = "An ISO 8601 date or instant (naive means UTC), e.g. 2026-11-01 or 2026-11-01T09:30Z."
_AS_OF = (
    "Render it as it stood then: an ISO 8601 instant (naive means UTC), a date YYYY-MM-DD (the "
    "end of that day in the project's timezone), or @N for the log position N."
)
#: An instant as the schema states it (empty: no bound).
_INSTANT_SCHEMA: dict[str, Any] = {"anyOf": AS_OF_SCHEMA["anyOf"][:3]}
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


@get(
    "/search",
    summary="Search the project's memory: entries, archives, asks (and the past)",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def search(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    q: Annotated[
        str,
        QueryParameter(
            description="The words to look for (all must match; a letter or a digit at least).",
            schema_extra={"maxLength": MAX_QUERY, "pattern": WORD_PATTERN},
        ),
    ],
    file: Annotated[
        str,
        QueryParameter(
            description="Only this memory file (or archive), by name or key.",
            schema_extra={"enum": FILE_CHOICES},
        ),
    ] = "",
    trust: Annotated[
        Literal["", "held", "disputed", "superseded", "retracted"],
        QueryParameter(description="Only entries in this trust state."),
    ] = "",
    actor: Annotated[
        Literal["", "user", "agent", "editor", "system", "file"],
        QueryParameter(description="Only texts written by this actor."),
    ] = "",
    since: Annotated[
        str | None, QueryParameter(description=_INSTANT, schema_extra=_INSTANT_SCHEMA)
    ] = None,
    until: Annotated[
        str | None, QueryParameter(description=_INSTANT, schema_extra=_INSTANT_SCHEMA)
    ] = None,
    past: Annotated[
        bool,
        QueryParameter(
            description="Also superseded, retracted and retired entries and past versions."
        ),
    ] = False,
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> SearchResult:
    query = search_query(
        q,
        file=file,
        trust=trust,
        actor=actor,
        since=parse_instant(since) if since else None,
        until=parse_instant(until) if until else None,
        past=past,
        limit=limit,
    )
    return SearchResult(target.project_id, service.search(target.project_id, query))


_ETAG = ResponseHeader(
    name="ETag",
    documentation_only=True,
    description="A memory file's version (the log position of its last change), quoted; "
    "send it back as `If-Match` with the write made from this read. None for ASKS.md or an "
    "archive, nor for a read as of a past time.",
)
_IF_MATCH = (
    "The ETag of the read this write was made from: the write is decided against that "
    "version and replayed on today's file, so entries others wrote since are kept; a change "
    "that overlaps one made since is refused (409, read again and retry). Without it, the write "
    "removes only the entries named in `remove`: any other entry the content leaves out is "
    "kept, and `warnings` names it."
)


#: What ``If-Match`` may carry: ``*``, or a version this server gave as an ETag.
_IF_MATCH_PATTERN = r'^\s*(\*|(W/)?"?[0-9]+"?)\s*$'


def _etag(version: int | None) -> dict[str, str]:
    return {} if version is None else {"ETag": f'"{version}"'}


def _base(if_match: str | None) -> int | None:
    """The version an ``If-Match`` names (``"12"``, ``W/"12"`` or ``12``; ``*``: none)."""
    if if_match is None or if_match.strip() == "*":
        return None
    tag = if_match.strip().removeprefix("W/").strip('"')
    if not tag.isdigit():
        raise InvalidInput(
            f"If-Match {if_match!r} is not a version this server gave: send the ETag of "
            'your read of the file, e.g. If-Match: "42"'
        )
    return int(tag)


@put(
    "/files/{name:str}",
    summary="Write a memory file (the agent's proposed full content)",
    description="A refused change is still 200 when a rule of the file's grammar refuses it: "
    "the refusal is in `warnings` and `content` is the file unchanged. A write that overlaps "
    "a change made since the version it read is 409 (`conflict`); one that would empty the "
    "file or remove most of its entries at once is 409 (`refused`) unless `remove` names "
    "them.",
    responses=documented(*WRITES),
    response_headers=[_ETAG],
    sync_to_thread=True,
)
def write_file(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    name: Annotated[str, Parameter(description=_NAME, schema_extra={"enum": _MEMORY_NAMES})],
    data: JSONBody[FileWrite],
    if_match: Annotated[
        str | None,
        HeaderParameter(
            name="If-Match",
            description=_IF_MATCH,
            required=False,
            schema_extra={"anyOf": [{"type": "string", "pattern": _IF_MATCH_PATTERN}]},
        ),
    ] = None,
) -> Response[WriteResult]:
    outcome = service.write_file(
        target.project_id,
        name,
        data.content.encode(),
        actor=caller.actor,
        session=data.session,
        base=_base(if_match),
        remove=data.remove,
    )
    result = msgspec.convert(outcome, WriteResult, from_attributes=True)
    return Response(result, headers=_etag(outcome.version))


@get(
    "/files/{name:str}",
    summary="Read a memory file as Orbital projects it",
    responses=documented(*AUTHED),
    response_headers=[_ETAG],
    sync_to_thread=True,
)
def read_file(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    name: Annotated[str, Parameter(description=_NAME, schema_extra={"enum": _PROJECTED_NAMES})],
    as_of: Annotated[
        str | None, QueryParameter(description=_AS_OF, schema_extra=AS_OF_SCHEMA)
    ] = None,
) -> Response[FileContent]:
    found = projected_file(name)
    if not as_of and found.key in LAYER1_KEYS:
        content, version = service.read_versioned(target.project_id, name)
        return Response(FileContent(found.name, content), headers=_etag(version))
    content = service.read_file(target.project_id, name, as_of=parse_as_of(as_of or None))
    return Response(FileContent(found.name, content))


_CONTEXT_ETAG = ResponseHeader(
    name="ETag",
    documentation_only=True,
    description="A tag of this view's bytes, quoted: sent back as `If-None-Match`, an "
    "unchanged view is answered 304 without a body.",
)


def _context_route(service: Orbital, views: EncodedViews) -> HTTPRouteHandler:
    """``GET …/context`` over ``service``, its views kept as built responses in ``views``;
    the credential and the project are checked by a hook (the same check as the other
    routes' ``target``), not by dependencies."""

    @get(
        "/context",
        summary="The per-turn injection view",
        responses={
            **documented(*AUTHED),
            304: ResponseSpec(None, description="The view is the one `If-None-Match` names."),
        },
        response_headers=[_CONTEXT_ETAG],
        before_request=project_hook(service, Audience.AGENT),
    )
    async def context(
        request: Request[Any, Any, Any],
        # Checked by the hook (the view is the checked project's); named so the document
        # states it, as target's own did.
        project: FromPath[str],
        window: Annotated[
            int | None, QueryParameter(description="The model's context window in tokens.", ge=1)
        ] = None,
        audience: Annotated[
            Literal["agent", "subagent"], QueryParameter(description="Who the view is for.")
        ] = "agent",
        as_of: Annotated[
            str | None, QueryParameter(description=_AS_OF, schema_extra=AS_OF_SCHEMA)
        ] = None,
        if_none_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-None-Match",
                description="The ETag of a view already held: 304 when it is still the view.",
                required=False,
            ),
        ] = None,
    ) -> Response[ContextView]:
        # A view kept since the last commit is answered on the event loop (a handoff to a
        # worker thread cost more than the rest of the request); reading or rendering one is
        # not.
        target = reached(request)
        at = parse_as_of(as_of or None)
        view = (
            None if at is not None else service.kept_view(target, window=window, audience=audience)
        )
        if view is None:
            view = await anyio.to_thread.run_sync(
                partial(
                    service.context_view,
                    target.project_id,
                    window=window,
                    audience=audience,
                    as_of=at,
                )
            )
        return views.response(target.project_id, audience, window, view, if_none_match)

    return context


@post(
    "/asks",
    summary="Open an ask as the agent",
    description="Refused (in `warnings`, `refused`) when an open ask has that text or the "
    "person dropped it (exactly or reworded); held (listed in `held` with the dropped ask's "
    "id, nothing appended) when it resembles a dropped ask: only if it really is a different "
    "thing, send it again naming that ask in `distinct_from`.",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def open_ask(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[AskOpen],
) -> WriteResult:
    outcome = service.ask_open(
        target.project_id,
        data.text,
        data.due,
        actor=caller.actor,
        distinct_from=data.distinct_from,
    )
    return msgspec.convert(outcome, WriteResult, from_attributes=True)


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


def agent_router(service: Orbital, views: EncodedViews) -> Router:
    return Router(
        "/api/v1/projects/{project:str}",
        # The OPTIONS answer first, so Litestar makes none of its own for the path.
        route_handlers=[
            _context_route(service, views),
            history,
            search,
            file_options,
            read_file,
            write_file,
            open_ask,
            session_end,
            *agent_text_routes(),
        ],
        dependencies=gate(Audience.AGENT),
        security=[{BEARER_SCHEME: []}],
        tags=["agent"],
    )
