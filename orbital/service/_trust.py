"""Trust-state use cases (issue 16): the person's dispute, retract and reaffirm, the
supersessions and restatements a write carries, and the beliefs listing (now, as of, in force
at a day). Each write is one unit of work; the rules are in :mod:`orbital.domain.trust`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from orbital.domain.retracted import decide_retracted_repeats
from orbital.domain.trust import (
    TrustAction,
    decide_restatements,
    decide_supersessions,
    decide_trust_action,
    find,
)
from orbital.errors import InvalidInput
from orbital.events import Actor, Event
from orbital.service._as_of import AsOf, resolve_as_of
from orbital.service._citations import citations_of_write
from orbital.service._context import HeldLine, WriteOutcome
from projections.beliefs import TRUST_STATES, Belief, beliefs
from projections.beliefs import in_force_at as in_force_at_day
from projections.files import render_memory_file

if TYPE_CHECKING:
    from orbital.service._unit import Unit, Units


def decide_trust_of_write(
    u: Unit, written: Sequence[Event], actor: Actor | None = None, session: str | None = None
) -> None:
    """Append a proposal's ``written`` events in ``u`` with the supersessions its
    ``Supersedes:`` lines name, the links of what it restates and the files it cites (with
    the agent's check of every citation first), and warn about the first two: the
    one way entries come in, whoever wrote them (a writer, a hand edit or an imported file
    taken in, as ``actor`` in ``session``; default the unit's)."""
    files = u.memory.files
    if u.units.meanings is not None:
        u.units.meanings.load()
    if (actor or u.actor) is Actor.AGENT:
        repeats = decide_retracted_repeats(files, written, u.today, u.units.asks.wordnet)
        written = repeats.written
        u.append(repeats.audit)
        u.warnings += repeats.warnings
        u.held_lines += [HeldLine(text, entry_id) for text, entry_id in repeats.held]
        u.refused = bool(repeats.audit) and not repeats.held and not written
    cited = citations_of_write(u, written)
    restated = decide_restatements(files, written, u.today)
    superseded = decide_supersessions(files, written, u.today)
    u.append(
        [*written, *superseded.events, *restated.events, *cited.events],
        actor=actor,
        session=session,
    )
    cited.appended(u)
    u.warnings += [*superseded.warnings, *restated.warnings]


def check_states(states: Sequence[str]) -> tuple[str, ...]:
    unknown = [s for s in states if s not in TRUST_STATES]
    if unknown:
        raise InvalidInput(
            f"a trust state is one of {', '.join(TRUST_STATES)}, not {', '.join(unknown)}"
        )
    return tuple(states) or TRUST_STATES


class Trust:
    """The trust use cases: units of work over the memory files, and reads of them."""

    def __init__(self, units: Units) -> None:
        self.units = units
        self.store = units.ctx.store

    def act(
        self,
        project: str,
        entry_id: str,
        action: TrustAction,
        reason: str,
        *,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        """Dispute, retract or reaffirm one entry, as ``actor`` (only the person may);
        ``session``: where it was made (:data:`PERSON_CLI_SESSION` from the CLI)."""
        with self.units.begin(self.store.project(project), actor, session=session) as u:
            u.append(decide_trust_action(u.memory.files, entry_id, action, reason, actor, u.today))
        assert u.memory_after is not None
        entry = find(u.memory_after.files, entry_id)
        assert entry is not None  # the decider refuses an unknown id
        return WriteOutcome(
            render_memory_file(u.memory_after.files[entry.file]), u.warnings, u.events
        )

    def beliefs(
        self,
        project: str,
        states: Sequence[str] = (),
        *,
        as_of: AsOf = None,
        in_force_at: dt.date | None = None,
    ) -> list[Belief]:
        """Every entry with its trust state: now, as believed at ``as_of`` (an instant or a
        position), or in force on the day ``in_force_at`` as known now (one of the two)."""
        chosen = check_states(states)
        found = self.store.project(project)
        at = resolve_as_of(self.store, self.units.ctx.clock, project, as_of)
        with self.store.reader() as r:
            if in_force_at is None:
                memory = self.units.memory.load(r, project, at=None if at is None else at[0])
                return beliefs(memory.files, chosen)
            if at is not None:
                raise InvalidInput("ask for --as-of or --in-force-at, not both")
            next_day = in_force_at + dt.timedelta(days=1)
            start = dt.datetime.combine(next_day, dt.time(), found.tz())
            end = r.position_at(project, start - dt.timedelta(microseconds=1))
            then = self.units.memory.load(r, project, at=end)
            now = self.units.memory.load(r, project)
        return [b for b in in_force_at_day(then.files, now.files, in_force_at) if b.state in chosen]
