"""Workspace events (stream ``workspace:<name>``, owned by ``WORKSPACES_OWNER``): a named set
of projects, its context text, its time zone and its lessons, each kept once."""

from __future__ import annotations

from orbital.events._base import Event


class WorkspaceCreated(Event, frozen=True, tag="workspace.created"):
    """``timezone``: an IANA name, or "" (the view then uses each project's own)."""

    name: str
    timezone: str = ""


class WorkspaceProjectJoined(Event, frozen=True, tag="workspace.project_joined"):
    project: str


class WorkspaceContextSet(Event, frozen=True, tag="workspace.context_set"):
    """The workspace context: who the work is for, in what setting (at most 4,000 chars)."""

    text: str


class WorkspaceLessonsSet(Event, frozen=True, tag="workspace.lessons_set"):
    """The whole text of the workspace's lessons (LESSONS.md's grammar)."""

    text: str


WORKSPACE_EVENTS: tuple[type[Event], ...] = (
    WorkspaceCreated,
    WorkspaceProjectJoined,
    WorkspaceContextSet,
    WorkspaceLessonsSet,
)
