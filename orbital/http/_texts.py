"""Routes for the texts the agent sees first (issue 19): the person (Workbench token) writes
the project description and the workspace context; the agent (agent token) reads them with
the workspace's lessons and writes those lessons. A project's workspace is reached only
through the project, so a token never reads a workspace none of its projects is in (404)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import msgspec
from litestar import get, put
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.params import JSONBody

from orbital.catalogue import DESCRIPTION_LIMIT, WORKSPACE_CONTEXT_LIMIT
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.http._problems import AUTHED, WRITES, documented
from orbital.service import Credential, Orbital, Project, WriteOutcome

#: The limits are documented, and checked by the service so that a text over one is answered
#: with how many characters to cut.
DescriptionText = Annotated[
    str,
    msgspec.Meta(
        description="The project description, at most 2,000 characters.",
        extra_json_schema={"maxLength": DESCRIPTION_LIMIT},
    ),
]
ContextText = Annotated[
    str,
    msgspec.Meta(
        description="The workspace context, at most 4,000 characters.",
        extra_json_schema={"maxLength": WORKSPACE_CONTEXT_LIMIT},
    ),
]


class DescriptionBody(msgspec.Struct, frozen=True):
    text: DescriptionText


class ContextBody(msgspec.Struct, frozen=True):
    text: ContextText


class LessonsBody(msgspec.Struct, frozen=True):
    text: str
    #: The version read (``lessons_version``); a write over lessons changed since is a 409.
    version: int | None = None


class Saved(msgspec.Struct, frozen=True):
    """What a text's write warns about (a mention that names nothing), and the lessons'
    version after a lessons write."""

    warnings: list[str]
    version: int | None = None


class Texts(msgspec.Struct, frozen=True):
    """The project's description and, when it is in a workspace, the workspace's context
    and lessons with their versions (0: never set)."""

    project: str
    description: str
    description_limit: int
    workspace: str | None
    context: str
    context_limit: int
    lessons: str
    lessons_version: int


def texts_of(service: Orbital, project: str) -> Texts:
    found = service.workspaces.texts(project)
    ws = found.workspace
    return Texts(
        project,
        found.project.description,
        DESCRIPTION_LIMIT,
        ws.name if ws else None,
        ws.context if ws else "",
        WORKSPACE_CONTEXT_LIMIT,
        ws.lessons if ws else "",
        ws.lessons_at if ws else 0,
    )


def _read(path: str) -> HTTPRouteHandler:
    def read_texts(service: NamedDependency[Orbital], target: NamedDependency[Project]) -> Texts:
        return texts_of(service, target.project_id)

    return get(
        path,
        summary="The project description, and its workspace's context and lessons",
        responses=documented(*AUTHED),
        sync_to_thread=True,
        name=f"texts-{path.count('/')}",
    )(read_texts)


@put(
    "/{project:str}/description",
    summary="Set the project description (at most 2,000 characters; over it, 400 and nothing "
    "saved: the detail says how many characters to cut)",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def set_description(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[DescriptionBody],
) -> Saved:
    saved = service.workspaces.describe(target.project_id, data.text, actor=caller.actor)
    return Saved(saved.warnings)


@put(
    "/{project:str}/workspace/context",
    summary="Set the context of the project's workspace (at most 4,000 characters; over it, "
    "400 and nothing saved; 404 when the project is in no workspace)",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def set_context(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[ContextBody],
) -> Saved:
    saved = service.workspaces.set_context(target.project_id, data.text, actor=caller.actor)
    return Saved(saved.warnings)


@put(
    "/workspace/lessons",
    summary="Replace the lessons of the project's workspace (404 when it is in none; 409 "
    "when they changed since the version given)",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
)
def set_lessons(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[LessonsBody],
) -> Saved:
    saved = service.workspaces.set_lessons(
        target.project_id, data.text, actor=caller.actor, base=data.version
    )
    return Saved(saved.warnings, saved.version)


def save_text(
    service: Orbital, project: str, item: str, form: Mapping[str, str], actor: Actor
) -> WriteOutcome:
    """The Workbench page's form: ``description`` or (workspace) ``context``, as the person."""
    text = form.get("text", "")
    if item == "description":
        return service.workspaces.describe(project, text, actor=actor)
    if item == "context":
        return service.workspaces.set_context(project, text, actor=actor)
    raise InvalidInput(f"the page writes a description or a context, not {item!r}")


def person_text_routes() -> list[HTTPRouteHandler]:
    return [_read("/{project:str}/texts"), set_description, set_context]


def agent_text_routes() -> list[HTTPRouteHandler]:
    return [_read("/texts"), set_lessons]
