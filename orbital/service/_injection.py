"""What memory costs an agent's sessions, and how much of it the hooks inject (issue 29).

The project's level is an event (:meth:`Workspaces.set_injection`); a session's own is the
agent's environment variable :data:`SESSION_VARIABLE`, read by each hook process. What the
hooks injected is kept per session by :class:`~orbital.service._sessions.InjectionLog`, as
text: this counts it, each text once (counts kept by digest across processes).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable

import msgspec

from orbital.catalogue import INJECT_VARIABLE
from orbital.domain.injection import checked_level, session_level
from orbital.service._sessions import KEPT_SESSIONS, InjectionLog

#: The agent's environment names its session's level here (``off``, ``asks``, ``full``).
SESSION_VARIABLE = INJECT_VARIABLE


def session_choice() -> str | None:
    """The level this session's environment names, None when it names none (a value that
    is not a level is refused: the hook fails open and its log says why)."""
    named = os.environ.get(SESSION_VARIABLE, "").strip()
    return checked_level(named, SESSION_VARIABLE) if named else None


def levels(project_level: str) -> tuple[str, str]:
    """The project's level and this session's."""
    return project_level, session_level(project_level, session_choice())


class InjectionCost(msgspec.Struct, frozen=True):
    """What memory costs a project's sessions, in tokens: a session starting now (the
    agent's view at the project's level, as the hook or the view file gives it), and over
    the last ``sessions`` recorded, the median session start and the median per-turn delta
    (over ``turns`` prompts: a prompt when nothing moved adds 0)."""

    project: str
    level: str
    session_level: str
    start_now: int
    sessions: int
    start_median: int | None
    turns: int
    turn_median: int | None
    #: The project's display name ("": its id is shown).
    name: str = ""

    def lines(self) -> list[str]:
        """The report as the CLI and the Workbench say it."""
        said = [
            f"injection: {self.level} in project {self.name or self.project}"
            + (
                f" ({SESSION_VARIABLE}={self.session_level} in this shell)"
                if self.session_level != self.level
                else ""
            ),
            f"a session starting now: {self.start_now} tokens",
        ]
        if not self.sessions:
            said.append("no session recorded yet: medians appear after the hooks run")
            return said
        if self.start_median is not None:
            said.append(
                f"session start: median {self.start_median} tokens over the last "
                f"{self.sessions} session{'s' if self.sessions != 1 else ''}"
            )
        if self.turn_median is not None:
            said.append(
                f"per turn: median {self.turn_median} tokens added over {self.turns} "
                f"prompt{'s' if self.turns != 1 else ''}"
            )
        return said


def _median(values: list[int]) -> int | None:
    return round(statistics.median(values)) if values else None


def injection_cost(
    project: str,
    project_level: str,
    start_now: str,
    count: Callable[[str], float],
    log: InjectionLog | None = None,
    last: int = KEPT_SESSIONS,
) -> InjectionCost:
    """The project's cost now (``start_now``: what a session start injects at its level)
    and over its last ``last`` sessions."""
    starts: list[int] = []
    turns: list[int] = []
    recorded = (log or InjectionLog()).sessions(project, last)
    for lines in recorded:
        start = [round(count(text)) for kind, text in lines if kind == "start"]
        if start:
            starts.append(sum(start))
        turns += [round(count(text)) for kind, text in lines if kind == "turn"]
    return InjectionCost(
        project,
        project_level,
        levels(project_level)[1],
        round(count(start_now)),
        len(recorded),
        _median(starts),
        len(turns),
        _median(turns),
    )
