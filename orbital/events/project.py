"""Project lifecycle events (stream ``project``)."""

from __future__ import annotations

from orbital.events._base import Event


class ProjectRegistered(Event, frozen=True, tag="project.registered"):
    """A project directory was registered; ``timezone`` is an IANA name or "" for local."""

    root: str
    timezone: str = ""


PROJECT_EVENTS: tuple[type[Event], ...] = (ProjectRegistered,)
