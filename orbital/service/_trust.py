"""Trust-state use cases (issue 16): the person's dispute, retract and reaffirm, the
supersessions and restatements a write carries, and the beliefs listing (now, as of, in force
at a day). Each write is one unit of work; the rules are in :mod:`orbital.domain.trust`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from orbital.domain.beliefs import TRUST_STATES, Belief, beliefs, in_force_at
from orbital.domain.trust import (
    TrustAction,
    decide_restatements,
    decide_supersessions,
    decide_trust_action,
    find,
)
from orbital.errors import InvalidInput
from orbital.events import Actor, Event
from orbital.grammar.render import render_file
from orbital.project import Project
from orbital.service._context import WriteOutcome
from orbital.service._unit import Unit, Units


def decide_trust_of_write(u: Unit, written: Sequence[Event]) -> None:
    """In ``u``, after a writer's events are decided (not yet appended): the supersessions
    its ``Supersedes:`` lines name and the warnings for what it restates."""
    files = u.memory.files
    restated = decide_restatements(files, written, u.today)
    superseded = decide_supersessions(files, written, u.today)
    u.append([*written, *superseded.events, *restated.events])
    u.warnings += [*superseded.warnings, *restated.warnings]


def check_states(states: Sequence[str]) -> tuple[str, ...]:
    unknown = [s for s in states if s not in TRUST_STATES]
    if unknown:
        raise InvalidInput(
            f"a trust state is one of {', '.join(TRUST_STATES)}, not {', '.join(unknown)}"
        )
    return tuple(states) or TRUST_STATES


@dataclass
class TrustService:
    units: Units

    def act(
        self, project: Project, entry_id: str, action: TrustAction, reason: str, actor: Actor
    ) -> WriteOutcome:
        """Dispute, retract or reaffirm one entry, as ``actor`` (only the person may)."""
        with self.units.begin(project, actor) as u:
            u.append(decide_trust_action(u.memory.files, entry_id, action, reason, actor, u.today))
        assert u.memory_after is not None
        entry = find(u.memory_after.files, entry_id)
        assert entry is not None  # the decider refuses an unknown id
        return WriteOutcome(render_file(u.memory_after.files[entry.file]), u.warnings, u.events)

    def beliefs(
        self, project: Project, states: Sequence[str] = (), *, at: int | None = None
    ) -> list[Belief]:
        """Every entry with its trust state, now or as of position ``at``."""
        chosen = check_states(states)
        with self.units.ctx.store.reader() as r:
            memory = self.units.memory.load(r, project.project_id, at=at)
        return beliefs(memory.files, chosen)

    def in_force(
        self, project: Project, day: dt.date, states: Sequence[str] = (), *, end_of_day: int
    ) -> list[Belief]:
        """The entries in force on ``day`` as known now (``end_of_day``: the last position
        recorded by the end of that day)."""
        chosen = check_states(states)
        with self.units.ctx.store.reader() as r:
            then = self.units.memory.load(r, project.project_id, at=end_of_day)
            now = self.units.memory.load(r, project.project_id)
        return [b for b in in_force_at(then.files, now.files, day) if b.state in chosen]
