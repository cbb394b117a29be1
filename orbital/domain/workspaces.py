"""Workspaces (issue 19): a named set of projects with a context text, a time zone and
lessons kept once for all its projects; and each project's description. The folds and the
deciders, pure: the limits, the name rule, "a project belongs to at most one workspace".

A workspace's events are on its own stream (``workspace:<name>``); a project's description
and a notice of each change of its workspace are on the project's ``project`` stream, so the
project's head moves when its workspace changes (views, caches and "what changed" see it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import msgspec

from orbital.catalogue import DESCRIPTION_LIMIT, WORKSPACE_CONTEXT_LIMIT
from orbital.domain.injection import FULL
from orbital.errors import (
    InvalidInput,
    Refused,
    TextTooLong,
    UnknownWorkspace,
    VersionConflict,
)
from orbital.events import Event, RecordedEvent
from orbital.events.project import InjectionSet, ProjectDescribed, ProjectWorkspaceChanged
from orbital.events.workspaces import (
    WorkspaceContextSet,
    WorkspaceCreated,
    WorkspaceLessonsSet,
    WorkspaceProjectJoined,
)

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")


class WorkspaceState(msgspec.Struct, frozen=True, omit_defaults=True):
    """A workspace folded from its stream. ``*_at``: the position of the last change of
    that text (its version: what a writer read)."""

    name: str = ""
    timezone: str = ""
    members: tuple[str, ...] = ()
    context: str = ""
    lessons: str = ""
    context_at: int = 0
    lessons_at: int = 0


def fold_workspace(state: WorkspaceState | None, recorded: RecordedEvent) -> WorkspaceState:
    state = state or WorkspaceState()
    event = recorded.event
    if isinstance(event, WorkspaceCreated):
        return msgspec.structs.replace(state, name=event.name, timezone=event.timezone)
    if isinstance(event, WorkspaceProjectJoined) and event.project not in state.members:
        return msgspec.structs.replace(state, members=(*state.members, event.project))
    if isinstance(event, WorkspaceContextSet):
        return msgspec.structs.replace(state, context=event.text, context_at=recorded.position)
    if isinstance(event, WorkspaceLessonsSet):
        return msgspec.structs.replace(state, lessons=event.text, lessons_at=recorded.position)
    return state


def fold_all(events: Iterable[RecordedEvent], until: int | None = None) -> WorkspaceState | None:
    """The fold of one workspace's events (up to position ``until``: as of it)."""
    state: WorkspaceState | None = None
    for recorded in events:
        if until is not None and recorded.position > until:
            break
        state = fold_workspace(state, recorded)
    return state


class ProjectTexts(msgspec.Struct, frozen=True):
    """What a project's own stream says about it: its description, its workspace and how
    much memory the hooks inject (:mod:`orbital.domain.injection`)."""

    description: str = ""
    workspace: str = ""
    injection: str = FULL


def fold_project(events: Iterable[RecordedEvent], until: int | None = None) -> ProjectTexts:
    description, workspace, injection = "", "", FULL
    for recorded in events:
        if until is not None and recorded.position > until:
            break
        event = recorded.event
        if isinstance(event, ProjectDescribed):
            description = event.text
        elif isinstance(event, ProjectWorkspaceChanged) and event.part == "joined":
            workspace = event.workspace
        elif isinstance(event, InjectionSet):
            injection = event.level
    return ProjectTexts(description, workspace, injection)


def normal_text(text: str) -> str:
    """A text as it is kept and shown: LF line ends (a browser's form sends CRLF), no blank
    surroundings. Limits count this text."""
    return text.replace("\r\n", "\n").strip()


def check_limit(what: str, text: str, limit: int) -> None:
    """Refuse ``text`` over ``limit`` characters, saying how many to cut. The count is of
    the text as the agent receives it: every character, markup and mention markers too."""
    if len(text) > limit:
        raise TextTooLong(what, len(text), limit)


def valid_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidInput(
            f"a workspace name is 1 to 48 lowercase letters, digits and hyphens, not {name!r}"
        )
    return name


def decide_create(known: Mapping[str, WorkspaceState], name: str, timezone: str) -> list[Event]:
    """A new workspace; one that exists already is refused."""
    valid_name(name)
    if name in known:
        raise Refused(f"workspace {name!r} exists already")
    return [WorkspaceCreated(name=name, timezone=timezone)]


def workspace_of(known: Mapping[str, WorkspaceState], project: str) -> WorkspaceState | None:
    """The workspace ``project`` belongs to (at most one)."""
    return next((w for w in known.values() if project in w.members), None)


def decide_join(known: Mapping[str, WorkspaceState], project: str, name: str) -> list[Event]:
    """``project`` joins workspace ``name``; nothing when it is a member already; refused
    while it belongs to another (a project belongs to at most one)."""
    target = known.get(name)
    if target is None:
        raise UnknownWorkspace(name)
    current = workspace_of(known, project)
    if current is not None and current.name == name:
        return []
    if current is not None:
        raise Refused(
            f"project {project!r} belongs to workspace {current.name!r} already; a project "
            "belongs to at most one workspace"
        )
    return [WorkspaceProjectJoined(project=project)]


def decide_context(state: WorkspaceState, text: str) -> list[Event]:
    text = normal_text(text)
    check_limit(f"the workspace context of {state.name!r}", text, WORKSPACE_CONTEXT_LIMIT)
    return [] if text == state.context else [WorkspaceContextSet(text=text)]


def decide_description(current: ProjectTexts, project: str, text: str) -> list[Event]:
    text = normal_text(text)
    check_limit(f"the description of project {project!r}", text, DESCRIPTION_LIMIT)
    return [] if text == current.description else [ProjectDescribed(text=text)]


def decide_lessons(state: WorkspaceState, text: str, base: int | None) -> list[Event]:
    """The workspace's lessons replaced by ``text``; ``base`` (the version read) refuses a
    write over lessons changed since, which it would otherwise undo unseen."""
    text = normal_text(text)
    if base is not None and base != state.lessons_at:
        raise VersionConflict(f"workspace:{state.name} lessons", base, state.lessons_at)
    return [] if text == state.lessons else [WorkspaceLessonsSet(text=text)]
