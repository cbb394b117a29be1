"""Person routes (Workbench token): the person acts as ``user`` on the projects in reach."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from litestar import Router, get, post
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.spec import Operation, RequestBody
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.types import AnyCallable

from orbital.catalogue import MEMORY_FILES
from orbital.domain.entry_actions import EntryAction
from orbital.http._auth import BEARER_SCHEME, gate
from orbital.http._problems import AUTHED, WRITES, documented
from orbital.http._purge import purge
from orbital.http._revert import revert
from orbital.http._schemas import (
    AskDone,
    AskDrop,
    AskOpen,
    Conflicts,
    EntryForm,
    MemoryEntries,
    ResolveConflict,
    WriteResult,
)
from orbital.http._texts import person_text_routes
from orbital.http._trust import trust_routes
from orbital.service import Audience, ConflictPreview, Credential, Orbital, Project
from projections.entry_pages import (
    DEFAULT_LIMIT,
    ENTRY_FILES,
    ENTRY_STATUSES,
    MAX_LIMIT,
    MAX_SEARCH,
    entry_query,
)
from projections.workbench import WorkbenchView

#: What ``file`` may be (documented; a name in another case is accepted too): none (every
#: file), a key or a file name.
ENTRY_FILE_CHOICES = ["", *ENTRY_FILES, *(MEMORY_FILES[key] for key in ENTRY_FILES)]


@dataclass
class _OptionalBody(Operation):
    """An operation whose JSON body may be left out (the handler's body defaults to none):
    Litestar documents every body as required."""

    def __post_init__(self) -> None:
        if isinstance(self.request_body, RequestBody):
            self.request_body.required = False


def _result(outcome: object) -> WriteResult:
    return msgspec.convert(outcome, WriteResult, from_attributes=True)


def _writes(path: str, summary: str, **more: Any) -> Callable[[AnyCallable], HTTPRouteHandler]:
    """A route that writes as the person: 200 with what it did, its problems documented."""
    return post(
        path,
        summary=summary,
        status_code=200,
        responses=documented(*WRITES),
        sync_to_thread=True,
        **more,
    )


def _proposal_route(confirm: bool) -> HTTPRouteHandler:
    verb = "confirm" if confirm else "decline"

    @_writes(
        f"/{{project:str}}/asks/{{ask_id:str}}/{verb}-reopen",
        f"{verb.capitalize()} an agent's reopen of an ask you dropped (held for you)",
        operation_class=_OptionalBody,
        name=f"{verb}_reopen",
    )
    def answer(
        service: NamedDependency[Orbital],
        caller: NamedDependency[Credential],
        target: NamedDependency[Project],
        ask_id: FromPath[str],
        data: JSONBody[AskDrop | None] = None,
    ) -> WriteResult:
        reason = data.reason if data is not None else ""
        outcome = service.ask_proposal(
            target.project_id, ask_id, confirm, reason, actor=caller.actor
        )
        return _result(outcome)

    return answer


@get(
    "/",
    summary="The person's asks across the projects this credential reaches",
    description="Open asks overdue first, then oldest; ages and lateness in each project's "
    "timezone. `done` holds the last 30 days, `dropped` every dropped ask; "
    "`recently_closed` (on request) the closes and reopens by anyone but the person in the "
    "last 7 days, each agent close marked by its `quote` (verified, unverified, no quote); "
    "`proposed_reopens` the agents' reopens of asks you dropped, waiting on you.",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def overview(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    recently_closed: Annotated[
        bool, QueryParameter(description="Add the recently-closed list (for undo).")
    ] = False,
    project: Annotated[
        str | None, QueryParameter(description="Only this project (a lens).")
    ] = None,
) -> WorkbenchView:
    return service.workbench(caller, project=project, recently_closed=recently_closed)


@_writes("/{project:str}/asks", "Open an ask as the person")
def open_ask(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[AskOpen],
) -> WriteResult:
    return _result(
        service.ask_open(
            target.project_id,
            data.text,
            data.due,
            actor=caller.actor,
            distinct_from=data.distinct_from,
        )
    )


@_writes(
    "/{project:str}/asks/{ask_id:str}/done",
    "Mark an ask done (by the person)",
    operation_class=_OptionalBody,
)
def ask_done(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    ask_id: FromPath[str],
    data: JSONBody[AskDone | None] = None,
) -> WriteResult:
    note = data.note if data is not None else ""
    return _result(service.ask_close(target.project_id, ask_id, "done", note, actor=caller.actor))


@_writes(
    "/{project:str}/asks/{ask_id:str}/drop",
    "Drop an ask (by the person), with an optional reason",
    operation_class=_OptionalBody,
)
def ask_drop(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    ask_id: FromPath[str],
    data: JSONBody[AskDrop | None] = None,
) -> WriteResult:
    reason = data.reason if data is not None else ""
    return _result(
        service.ask_close(target.project_id, ask_id, "dropped", reason, actor=caller.actor)
    )


@_writes("/{project:str}/asks/{ask_id:str}/reopen", "Reopen a closed ask (undo any close)")
def ask_reopen(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    ask_id: FromPath[str],
) -> WriteResult:
    return _result(service.ask_reopen(target.project_id, ask_id, actor=caller.actor))


@_writes(
    "/{project:str}/entries",
    "Add a decision or lesson as the person, or rewrite one (`entry`)",
    description="The file's text with the entry added (or rewritten) is written through the "
    "write path as any whole-file write, against the version it was built from: a rule that "
    "refuses it answers 200 with `refused` and the reason in `warnings`; a text that would "
    "start another entry is 400; an `entry` no file has is 404.",
)
def write_entry(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[EntryForm],
) -> WriteResult:
    outcome = service.write_entry(
        target.project_id, data.file, data.title, data.body, entry_id=data.entry, actor=caller.actor
    )
    return _result(outcome)


@get(
    "/{project:str}/entries",
    summary="A page of the project's memory entries, each with its history",
    description="Stable order: files in catalogue order (PROJECT_STATE, DECISIONS, LESSONS, "
    "INDEX); in each, live entries in file order, then the others as first created. Ask for "
    "`next_offset` with the same query for the next page (null on the last). Out-of-range "
    "values are a 400 saying what is allowed.",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def entries(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    q: Annotated[
        str,
        QueryParameter(
            description="Words the search index must find in the entry, all of them.",
            schema_extra={"maxLength": MAX_SEARCH},
        ),
    ] = "",
    file: Annotated[
        str,
        QueryParameter(
            description="One file: `DECISIONS.md` or its key `decisions`.",
            schema_extra={"enum": ENTRY_FILE_CHOICES},
        ),
    ] = "",
    status: Annotated[
        str,
        QueryParameter(
            description="`all`, `live`, `not-live` (archived, merged or retired), "
            "`archived`, `merged` or `retired`.",
            schema_extra={"enum": list(ENTRY_STATUSES)},
        ),
    ] = "all",
    offset: Annotated[
        int, QueryParameter(description="Entries to skip (0 or more).", schema_extra={"minimum": 0})
    ] = 0,
    limit: Annotated[
        int,
        QueryParameter(
            description=f"Entries per page, 1 to {MAX_LIMIT}.",
            schema_extra={"minimum": 1, "maximum": MAX_LIMIT},
        ),
    ] = DEFAULT_LIMIT,
) -> MemoryEntries:
    query = entry_query(q=q, file=file, status=status, offset=offset, limit=limit)
    page = service.entries_page(target.project_id, query)
    return MemoryEntries(
        target.project_id, page.total, page.offset, page.limit, page.next_offset, page.entries
    )


_ENTRY_ACTIONS: dict[EntryAction, str] = {
    "pin": "Pin a live entry (it always stays in the agent's view)",
    "unpin": "Unpin a live entry",
    "restore": "Restore an archived or retired entry to its file",
}


def _entry_route(action: EntryAction) -> HTTPRouteHandler:
    def entry_action(
        service: NamedDependency[Orbital],
        caller: NamedDependency[Credential],
        target: NamedDependency[Project],
        entry_id: FromPath[str],
    ) -> WriteResult:
        return _result(
            service.entry_action(target.project_id, entry_id, action, actor=caller.actor)
        )

    return _writes(
        f"/{{project:str}}/entries/{{entry_id:str}}/{action}",
        _ENTRY_ACTIONS[action],
        description="A no-op when the entry is already so; 409 when the rules refuse it "
        "(e.g. pinning an archived entry).",
        name=f"entry-{action}",
        operation_id=f"entry{action.title()}",
    )(entry_action)


@get(
    "/{project:str}/conflicts",
    summary="Hand-edit conflict copies waiting for the person",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def conflicts(service: NamedDependency[Orbital], target: NamedDependency[Project]) -> Conflicts:
    return Conflicts(target.project_id, service.conflicts(target.project_id))


@_writes(
    "/{project:str}/conflicts/{copy:str}/resolve",
    "Settle a conflict copy: keep mine (write it) or keep Orbital's",
    description="Either way the copy is removed and nothing is lost: `orbital` keeps the "
    "person's text in the `file.hand_edit_resolved` event.",
)
def resolve_conflict(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    copy: FromPath[str],
    data: JSONBody[ResolveConflict],
) -> WriteResult:
    return _result(service.resolve_conflict(target.project_id, copy, data.keep, actor=caller.actor))


@get(
    "/{project:str}/conflicts/{copy:str}/preview",
    summary="What Keep mine and Keep Orbital's would each do, as unified diffs",
    description="`keep_mine`: today's file against the file with the person's changes "
    "applied; `keep_orbital`: the person's copy against today's file, which stays. Nothing "
    "is written.",
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def preview_conflict(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    copy: FromPath[str],
) -> ConflictPreview:
    return service.preview_conflict(target.project_id, copy, actor=caller.actor)


def workbench_router() -> Router:
    return Router(
        "/api/v1/workbench",
        route_handlers=[
            overview,
            open_ask,
            ask_done,
            ask_drop,
            ask_reopen,
            _proposal_route(True),
            _proposal_route(False),
            entries,
            write_entry,
            *(_entry_route(action) for action in _ENTRY_ACTIONS),
            *trust_routes(),
            revert,
            *person_text_routes(),
            conflicts,
            preview_conflict,
            resolve_conflict,
            purge,
        ],
        dependencies=gate(Audience.WORKBENCH),
        security=[{BEARER_SCHEME: []}],
        tags=["workbench"],
    )
