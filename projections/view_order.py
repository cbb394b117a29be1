"""What the agent sees, in order (issue 19, after Orbi's rules): the one place the order of
the view is written.

1. the workspace context (who the work is for, in what setting; at most 4,000 characters);
2. the project description (at most 2,000; a cue when there is none);
3. today's date and the time zone dates are given in (the workspace's, else the project's);
   then, at the start of the session that took it, the hand-off the last session left
   (:mod:`projections.handoff`, at most 1,500 tokens);
4. the asks: open ones, what the person settled, what they dropped;
5. the pointers for what the texts mention (never their content);
6. the memory block, last, so that data arrives after instructions: the memory files, then
   the workspace's lessons.

A sub-agent gets the narrowed brief in the same order without the memory block: 1 to 3, the line
naming what the person dropped, and the pointers. Every part counts in the token budget: the
parts before the memory block are counted first and the memory block is scaled to what is left
of the window's share (:func:`projections.views.memory_block`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

from orbital.domain.budgets import TokenCounter
from projections.views import memory_block

#: The parts' names, in the order the view shows them (tests and ARCHITECTURE.md name them).
VIEW_ORDER = ("workspace", "description", "today", "handoff", "asks", "mentions", "memory")
NO_DESCRIPTION = (
    "[Project description: none yet. The person writes it with `orbital describe` or on the "
    "Workbench; it is the biggest help to your work here.]"
)


@dataclass(frozen=True)
class ViewParts:
    """The texts of one view before they are put in order."""

    today: dt.date
    timezone: str
    workspace: str = ""
    workspace_context: str = ""
    description: str = ""
    handoff: str = ""
    asks_block: str = ""
    dropped_line: str = ""
    pointers_block: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    workspace_lessons: str = ""


def today_line(today: dt.date, timezone: str) -> str:
    """The date the agent reckons from, and the clock it is given in."""
    return f"Today is {today.isoformat()} ({today:%A}); dates and times are in {timezone}."


def head(parts: ViewParts, audience: str = "agent") -> list[str]:
    """The parts before the memory block, in :data:`VIEW_ORDER` (empty ones left out)."""
    shown = []
    if parts.workspace_context.strip():
        shown.append(f"[Workspace {parts.workspace}]\n{parts.workspace_context.strip()}")
    if parts.description.strip():
        shown.append(f"[Project description]\n{parts.description.strip()}")
    else:
        shown.append(NO_DESCRIPTION)
    shown.append(today_line(parts.today, parts.timezone))
    if audience != "subagent":
        shown.append(parts.handoff)
    shown.append(parts.dropped_line if audience == "subagent" else parts.asks_block)
    shown.append(parts.pointers_block)
    return [p for p in shown if p]


def assemble(
    parts: ViewParts,
    count: TokenCounter,
    *,
    window: int | None = None,
    audience: str = "agent",
    memory: list[str] | None = None,
) -> str:
    """The view: :func:`head`, then (not for a sub-agent) the memory block under what is left
    of the budget. ``memory``: the memory block already built for this head's cost."""
    first = head(parts, audience)
    if audience == "subagent":
        return "\n\n".join(first)
    if memory is None:
        memory = memory_block(
            parts.files,
            count,
            window=window,
            reserved=head_cost(first, count),
            workspace_lessons=parts.workspace_lessons,
        )
    return "\n\n".join([*first, *memory])


def head_cost(first: list[str], count: TokenCounter) -> float:
    """Tokens the parts before the memory block take of the budget, joins included."""
    return count("\n\n".join(first)) + count("\n\n")
