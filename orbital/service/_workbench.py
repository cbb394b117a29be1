"""The person's asks across projects, as the Workbench lists them: a read over each
project's asks, with dates counted in that project's timezone, and the hand-off its last
agent session left."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from orbital.project import Project
from orbital.service._asks import AsksService
from projections.workbench import (
    ClosedAsk,
    DistinctClaim,
    OpenAsk,
    ProjectInfo,
    ProposedReopen,
    WorkbenchView,
    distinct_claims,
    done_asks,
    dropped_asks,
    open_asks,
    project_labels,
    proposed_reopens,
    recently_closed_asks,
    sort_closed,
    sort_open,
)

if TYPE_CHECKING:
    from orbital.service._agents import AgentSessions


def workbench_view(
    asks_service: AsksService,
    projects: Sequence[Project],
    names: Mapping[str, str],
    now: dt.datetime,
    recently_closed: bool,
    agents: AgentSessions,
) -> WorkbenchView:
    """The asks of ``projects`` sorted for the person: open (overdue first), done, dropped and,
    when asked for, recently closed; each project labelled among ``names`` (every project in
    the person's reach, id -> display name), with its newest hand-off."""
    labels = project_labels(names)
    infos: list[ProjectInfo] = []
    opened: list[tuple[OpenAsk, int]] = []
    done: list[tuple[ClosedAsk, int]] = []
    dropped: list[tuple[ClosedAsk, int]] = []
    closed: list[tuple[ClosedAsk, int]] = []
    proposed: list[tuple[ProposedReopen, int]] = []
    claims: list[DistinctClaim] = []
    for found in projects:
        pid, local = found.project_id, now.astimezone(found.tz())
        asks = {a.id: a for a in asks_service.listing(found, "all")}
        handoff = agents.handoffs.latest(found)
        name = names.get(pid, pid)
        label = labels.get(pid, name)
        infos.append(
            ProjectInfo(pid, found.root, found.timezone, local.date(), name, label, handoff)
        )
        opened += open_asks(pid, asks, local)
        done += done_asks(pid, asks, local.date())
        dropped += dropped_asks(pid, asks)
        closed += recently_closed_asks(pid, asks, local.date())
        proposed += proposed_reopens(pid, asks)
        claims += distinct_claims(pid, asks)
    return WorkbenchView(
        projects=infos,
        asks=sort_open(opened),
        done=sort_closed(done),
        dropped=sort_closed(dropped),
        recently_closed=sort_closed(closed) if recently_closed else None,
        proposed_reopens=[row for row, _ in sorted(proposed, key=lambda pair: pair[1])],
        claims=claims,
    )
