"""Person routes (Workbench token): the person acts as ``user`` on the projects in reach."""

from __future__ import annotations

import msgspec
from litestar import Router, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from orbital.domain.asks import Ask
from orbital.http._auth import BEARER_SCHEME, person_caller, target_project
from orbital.http._problems import AUTHED, WRITES, documented
from orbital.http._schemas import (
    AskDone,
    AskDrop,
    AskOpen,
    AskRow,
    Workbench,
    WorkbenchProject,
    WriteResult,
)
from orbital.service import Credential, Orbital
from orbital.store import Project


def _row(project_id: str, ask: Ask) -> AskRow:
    return AskRow(
        project_id=project_id,
        id=ask.id,
        text=ask.text,
        due=ask.due,
        opened=ask.opened,
        updated=ask.updated,
        state=ask.state,
        closed_by=ask.closed_by,
        note=ask.note,
    )


def _result(outcome: object) -> WriteResult:
    return msgspec.convert(outcome, WriteResult, from_attributes=True)


@get(
    "/",
    summary="The projects this Workbench credential reaches, with their open asks",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def overview(service: NamedDependency[Orbital], caller: NamedDependency[Credential]) -> Workbench:
    projects = []
    for project in service.store.projects():
        if caller.reaches(project.project_id):
            asks = [_row(project.project_id, a) for a in service.asks(project.project_id)]
            projects.append(
                WorkbenchProject(project.project_id, project.root, project.timezone, asks)
            )
    return Workbench(projects)


@post(
    "/{project:str}/asks",
    summary="Open an ask as the person",
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
    return _result(service.ask_open(target.project_id, data.text, data.due, actor=caller.actor))


@post(
    "/{project:str}/asks/{ask_id:str}/done",
    summary="Mark an ask done (by the person)",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
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


@post(
    "/{project:str}/asks/{ask_id:str}/drop",
    summary="Drop an ask (by the person), with an optional reason",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
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


@post(
    "/{project:str}/asks/{ask_id:str}/reopen",
    summary="Reopen a closed ask (undo any close)",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def ask_reopen(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    ask_id: FromPath[str],
) -> WriteResult:
    return _result(service.ask_reopen(target.project_id, ask_id, actor=caller.actor))


def workbench_router() -> Router:
    return Router(
        "/api/v1/workbench",
        route_handlers=[overview, open_ask, ask_done, ask_drop, ask_reopen],
        dependencies={"caller": person_caller, "target": target_project},
        security=[{BEARER_SCHEME: []}],
        tags=["workbench"],
    )
