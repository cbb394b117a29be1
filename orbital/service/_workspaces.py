"""Workspace use cases (issue 19): create, join, the workspace context, the project
description and the workspace's lessons, each a change written as events in one write
transaction under the store's lock; and the reads the view and the interfaces use (now or as
of a position). The rules are in :mod:`orbital.domain.workspaces`.

Scope: a project reads its own workspace's texts and nothing else; a workspace is reached
only through a project in it, so a credential bound to a project never reads another
workspace (the project is out of reach: 404).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from orbital.catalogue import PROJECT_STREAM, WORKSPACE_PREFIX, WORKSPACES_OWNER, workspace_stream
from orbital.clock import Clock
from orbital.domain.injection import decide_injection
from orbital.domain.secrets import Found, refuse_secrets
from orbital.domain.workspaces import (
    ProjectTexts,
    WorkspaceState,
    decide_context,
    decide_create,
    decide_description,
    decide_join,
    decide_lessons,
    fold_all,
    fold_project,
    fold_workspace,
    normal_text,
    workspace_of,
)
from orbital.errors import NoWorkspace
from orbital.events import Actor, Event, event_type
from orbital.events.project import ProjectWorkspaceChanged
from orbital.files import check_size
from orbital.grammar.text import without_nul
from orbital.project import Project, check_timezone
from orbital.service._as_of import AsOf, resolve_as_of
from orbital.service._context import EventSummary, WriteOutcome
from orbital.store import EventStore, Reader, Reducer, Writer
from projections.history import summarize
from projections.mentions import Pointer, unresolved_warning
from projections.view import ZoneProjector

if TYPE_CHECKING:
    from orbital.service._mentions import Mentions

WORKSPACE_REDUCER = Reducer(WorkspaceState, fold_workspace)


class ViewTexts(msgspec.Struct, frozen=True):
    """A project's texts for its view: its description, its workspace (None: in none)."""

    project: ProjectTexts
    workspace: WorkspaceState | None

    def zone_setting(self, project: Project) -> str:
        """The IANA zone dates are given in: the workspace's, else the project's own ("":
        the machine's local zone)."""
        return ZoneProjector.render(self.workspace, project.timezone)


def view_texts(r: Reader, project: str, at: int | None = None) -> ViewTexts:
    """What the view shows of the project's description and workspace, now or as of ``at``."""
    texts = fold_project(r.read_stream(project, PROJECT_STREAM), at)
    if not texts.workspace:
        return ViewTexts(texts, None)
    stream = workspace_stream(texts.workspace)
    if at is None:
        found = r.state(WORKSPACES_OWNER, stream)
    else:
        found = fold_all(r.read_stream(WORKSPACES_OWNER, stream), at)
    return ViewTexts(texts, found)


class TextRead(msgspec.Struct, frozen=True):
    """A text as it stands (now or as of), with its version (the position that last changed
    it; 0: never set) and the workspace it belongs to ("" for a project description)."""

    text: str
    version: int
    workspace: str = ""


class Workspaces:
    """The workspace use cases: each write one transaction of the store, and its reads;
    ``mentions`` warns about what a text's mentions name nothing of."""

    def __init__(self, store: EventStore, clock: Clock, mentions: Mentions) -> None:
        self.store, self.clock, self.mentions = store, clock, mentions

    # -- writes ---------------------------------------------------------------------------

    def create(self, name: str, *, timezone: str = "", actor: Actor) -> WorkspaceState:
        """A new workspace (its name: lowercase letters, digits, hyphens)."""
        check_timezone(timezone)
        stream = workspace_stream(name)
        with self.store.writing() as w:
            events = decide_create(self._known(w), name, timezone)
            w.append(WORKSPACES_OWNER, stream, events, expected_version=0, actor=actor)
            found: WorkspaceState = w.state(WORKSPACES_OWNER, stream)
        return found

    def join(self, project: str, name: str, *, actor: Actor) -> bool:
        """``project`` joins workspace ``name``; False when it was a member already."""
        found = self.store.project(project)
        with self.store.writing() as w:
            events = decide_join(self._known(w), found.project_id, name)
            self._append(w, name, events, "joined", actor, members=(found.project_id,))
        return bool(events)

    def describe(self, project: str, text: str, *, actor: Actor) -> WriteOutcome:
        """Set the project's description (over 2,000 characters: refused, nothing saved);
        the outcome warns about mentions that name nothing."""
        found = self.store.project(project)
        text, warned = without_nul(text, "project description")
        with self.store.writing() as w:
            current = fold_project(w.read_stream(found.project_id, PROJECT_STREAM))
            events = decide_description(current, found.project_id, text)
            refuse_secrets(events, lambda: current.description, _where("the project description"))
            done = _appended(w, found.project_id, PROJECT_STREAM, events, actor)
        warned += self.mentions.warnings(found, "project description", [text])
        return WriteOutcome(normal_text(text), warned, done)

    def injection(self, project: str) -> str:
        """How much memory the hooks inject in ``project`` (:mod:`orbital.domain.injection`)."""
        with self.store.reader() as r:
            return fold_project(r.read_stream(project, PROJECT_STREAM)).injection

    def set_injection(self, project: str, level: str, *, actor: Actor) -> WriteOutcome:
        """Set how much memory the hooks inject in ``project`` (``full``, ``asks``, ``off``)."""
        found = self.store.project(project)
        with self.store.writing() as w:
            current = fold_project(w.read_stream(found.project_id, PROJECT_STREAM))
            events = decide_injection(current.injection, level)
            done = _appended(w, found.project_id, PROJECT_STREAM, events, actor)
        return WriteOutcome(level.strip().lower(), [], done)

    def set_context(self, project: str, text: str, *, actor: Actor) -> WriteOutcome:
        """Set the context of the workspace ``project`` is in (over 4,000 characters:
        refused, nothing saved)."""
        found = self.store.project(project)
        text, warned = without_nul(text, "workspace context")
        with self.store.writing() as w:
            state = self._of(w, found.project_id)
            events = decide_context(state, text)
            refuse_secrets(events, lambda: state.context, _where("the workspace context"))
            done = self._append(w, state.name, events, "context", actor, state.members)
        warned += self._warnings(state, "workspace context", text)
        return WriteOutcome(normal_text(text), warned, done)

    def set_lessons(
        self, project: str, text: str, *, actor: Actor, base: int | None = None
    ) -> WriteOutcome:
        """Replace the lessons of ``project``'s workspace (``base``: the version read; a
        write over lessons changed since is a conflict); the outcome's version is theirs."""
        found = self.store.project(project)
        check_size(text.encode("utf-8", errors="replace"))
        text, warned = without_nul(text, "workspace lessons")
        with self.store.writing() as w:
            state = self._of(w, found.project_id)
            events = decide_lessons(state, text, base)
            refuse_secrets(events, lambda: state.lessons, _where("the workspace lessons"))
            done = self._append(w, state.name, events, "lessons", actor, state.members)
            after: WorkspaceState = w.state(WORKSPACES_OWNER, workspace_stream(state.name))
        warned += self._warnings(state, "workspace lessons", text)
        return WriteOutcome(after.lessons, warned, done, after.lessons_at)

    # -- reads ----------------------------------------------------------------------------

    def workspaces(self) -> list[WorkspaceState]:
        with self.store.reader() as r:
            return sorted(self._known(r).values(), key=lambda w: w.name)

    def texts(self, project: str, as_of: AsOf = None) -> ViewTexts:
        found = self.store.project(project)
        at = resolve_as_of(self.store, self.clock, project, as_of)
        with self.store.reader() as r:
            return view_texts(r, found.project_id, None if at is None else at[0])

    def today(self, project: Project) -> tuple[dt.date, str, str]:
        """Today in the view's time zone (the workspace's, else the project's), that zone's
        IANA name ("" for the machine's local zone) and the name the view shows for it."""
        from orbital.service._view_outputs import zone_of

        with self.store.reader() as r:
            setting = view_texts(r, project.project_id).zone_setting(project)
        now = self.clock.now()
        zone, shown = zone_of(setting, project, now)
        return now.astimezone(zone).date(), setting, shown

    def read(self, project: str, part: str, as_of: AsOf = None) -> TextRead:
        """``description``, ``context`` or ``lessons`` of ``project`` (the two last of its
        workspace: none is :class:`UnknownWorkspace`), now or as of."""
        texts = self.texts(project, as_of)
        if part == "description":
            return TextRead(texts.project.description, 0)
        if texts.workspace is None:
            raise NoWorkspace(project)
        ws = texts.workspace
        if part == "context":
            return TextRead(ws.context, ws.context_at, ws.name)
        return TextRead(ws.lessons, ws.lessons_at, ws.name)

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def _known(r: Reader) -> dict[str, WorkspaceState]:
        states = r.states(WORKSPACES_OWNER, WORKSPACE_PREFIX)
        return {s.name: s for s in states.values() if s is not None}

    def _of(self, r: Reader, project: str) -> WorkspaceState:
        state = workspace_of(self._known(r), project)
        if state is None:
            raise NoWorkspace(project)
        return state

    @staticmethod
    def _append(
        w: Writer,
        name: str,
        events: Sequence[Event],
        part: str,
        actor: Actor,
        members: Sequence[str],
    ) -> list[EventSummary]:
        """The workspace's events, and a notice on each member's stream (its head moves)."""
        done = _appended(w, WORKSPACES_OWNER, workspace_stream(name), events, actor)
        if done:
            notice = [ProjectWorkspaceChanged(workspace=name, part=part)]
            for member in members:
                done += _appended(w, member, PROJECT_STREAM, notice, actor)
        return done

    def _warnings(self, state: WorkspaceState, where: str, text: str) -> list[str]:
        """A workspace text's mentions that name nothing in any of its projects."""
        missing: list[Pointer] | None = None
        for member in state.members:
            here = self.mentions.unresolved(self.store.project(member), [text])
            missing = here if missing is None else [p for p in missing if p in here]
        return unresolved_warning(where, missing or [])


def _where(what: str) -> Callable[[Event, Found], tuple[str, int]]:
    """Where a workspace write's refused line is: in the text it sent."""
    return lambda _event, found: (what, found.line)


def _appended(
    w: Writer, owner: str, stream: str, events: Sequence[Event], actor: Actor
) -> list[EventSummary]:
    """Append ``events`` (if any) and report them as every write does."""
    if not events:
        return []
    result = w.append(owner, stream, events, expected_version=None, actor=actor)
    return [
        EventSummary(position, stream, event_type(type(event)), summarize(event))
        for position, event in zip(result.positions, events, strict=True)
    ]
