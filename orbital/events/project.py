"""Project lifecycle events (stream ``project``)."""

from __future__ import annotations

from orbital.catalogue import INJECTION_SET
from orbital.events._base import Event


class ProjectRegistered(Event, frozen=True, tag="project.registered"):
    """A project directory was registered; ``timezone`` is an IANA name or "" for local;
    ``name`` what people call it (its folder's name, or as given; "" before names: its id)."""

    root: str
    timezone: str = ""
    name: str = ""


class ProjectRenamed(Event, frozen=True, tag="project.renamed"):
    """The project's display name changed (its id, the committed identity, never does)."""

    name: str


class ProjectDescribed(Event, frozen=True, tag="project.described"):
    """The project description the agent sees (at most 2,000 characters)."""

    text: str


class ProjectWorkspaceChanged(Event, frozen=True, tag="project.workspace_changed"):
    """A notice on each member project's stream that its workspace changed (``part``:
    ``joined``, ``context`` or ``lessons``): the text stays once on the workspace's stream,
    and the project's head moves, so its view, caches and "what changed" see it."""

    workspace: str
    part: str


class ProjectReverted(Event, frozen=True, tag="project.reverted"):
    """The person brought the memory files back to how they stood at ``position``, just
    after the event ``event_id`` ("" when the target is before the project's first event).
    The changes that did it are the entry and file events after this one in the same
    write: nothing before them is rewritten, and a revert is reverted the same way."""

    position: int
    event_id: str = ""


class HistoryPurged(Event, frozen=True, tag="project.purged"):
    """The person purged a text from the project's history (``orbital purge``): what was
    named (``text``, ``entry:<id>`` or ``event:<id>``), the SHA-256 of each text removed
    (never the text), the positions of the events that held one, and why. Who and when are
    the event's actor and time."""

    named: str
    sha256: tuple[str, ...]
    positions: tuple[int, ...]
    reason: str


class InjectionSet(Event, frozen=True, tag=INJECTION_SET):
    """How much of the memory the hooks put in an agent's context in this project: ``full``
    (the view, and what changed each turn), ``asks`` (today's line and the asks only) or
    ``off`` (nothing; the agent still reads memory through its tools)."""

    level: str


PROJECT_EVENTS: tuple[type[Event], ...] = (
    ProjectRegistered,
    ProjectRenamed,
    ProjectDescribed,
    ProjectWorkspaceChanged,
    ProjectReverted,
    HistoryPurged,
    InjectionSet,
)
