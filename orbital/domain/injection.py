"""How much memory the hooks put in an agent's context (issue 29): the levels, the project's
setting decided, and the level a session runs at. Pure.

The project's level is an event on its ``project`` stream (:class:`InjectionSet`): the
choice is shared by every checkout and every store follower, and history says who made it
and when. A session's own level is named by the agent's environment (``ORBITAL_INJECT``,
read by the hook process, :mod:`orbital.service._injection`): it lasts as long as the session
and leaves nothing behind.
"""

from __future__ import annotations

from orbital.errors import InvalidInput
from orbital.events import Event
from orbital.events.project import InjectionSet

#: Most to least: ``full`` (the view, and what changed each turn), ``asks`` (today's line
#: and the asks, and the asks' changes), ``off`` (nothing).
LEVELS = ("full", "asks", "off")
FULL, ASKS, OFF = LEVELS


def checked_level(level: str, where: str = "an injection level") -> str:
    """``level`` if it is one of :data:`LEVELS`."""
    found = level.strip().lower()
    if found not in LEVELS:
        raise InvalidInput(f"{where} is one of {', '.join(LEVELS)}, not {level!r}")
    return found


def decide_injection(current: str, level: str) -> list[Event]:
    """The project's level set to ``level`` (nothing when it is already)."""
    level = checked_level(level)
    return [] if level == current else [InjectionSet(level=level)]


def session_level(project_level: str, session: str | None) -> str:
    """The level a session runs at: its own when it names one (``None``: it does not),
    else the project's."""
    return project_level if session is None else session
