"""The agent swap's use cases: keep a stopping session's hand-off, give it to the next
session that starts, show it.

The rules are in :mod:`orbital.domain.handoff` (what a hand-off holds, who takes it) and
:mod:`projections.handoff` (how it reads); this module gathers their inputs — the session's
transcript (given by its client), its PROJECT_STATE lines and opened asks (its events) — and
appends the decisions in a unit of work. A hand-off is events of the project's ``handoff``
stream, folded into its stream state (:data:`HANDOFF_REDUCER`), so the view reads it as it
reads the asks: from the store, never from a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from orbital.catalogue import ASK_PREFIX, ENTRY_PREFIX, HANDOFF_STREAM, ask_stream
from orbital.domain.handoff import (
    DOING_LINES,
    PLAN_CHARS,
    Handoffs,
    changed_files,
    clip,
    decide_keep,
    decide_take,
    fold_handoffs,
    last_message,
    last_requests,
    state_line,
    taken,
)
from orbital.domain.secrets import redacted
from orbital.domain.transcripts import parse_transcript
from orbital.events import Actor, AskOpened, RecordedEvent
from orbital.events.handoff import HandoffKept
from orbital.store import Reducer
from projections.handoff import handoff_block

if TYPE_CHECKING:
    from orbital.project import Project
    from orbital.service._memory import MemoryService
    from orbital.service._unit import Units
    from orbital.store import Reader

#: How far back in the project's entry and ask events a session's own are looked for.
RECENT_EVENTS = 2000


def _fold(state: Handoffs | None, recorded: RecordedEvent) -> Handoffs:
    return fold_handoffs(state, recorded.event, recorded.recorded_at)


HANDOFF_REDUCER = Reducer(Handoffs, _fold)


def _lines(transcript: Path | None) -> list[str]:
    """The transcript's lines (none when there is none or it cannot be read: a hand-off
    then holds no requests, never a failure)."""
    if transcript is None:
        return []
    try:
        with transcript.open(encoding="utf-8", errors="replace") as handle:
            return list(handle)
    except OSError:
        return []


def _clean(text: str) -> str:
    """``text`` with a line that looks like a secret left out (the store refuses secrets)."""
    return redacted(text)[0]


class HandoffService:
    def __init__(self, units: Units, memory: MemoryService) -> None:
        self.units, self.memory = units, memory
        self.store = units.ctx.store

    def state(self, project: Project) -> Handoffs:
        with self.store.reader() as r:
            found: Any = r.state(project.project_id, HANDOFF_STREAM)
        return found if isinstance(found, Handoffs) else Handoffs()

    def _own(self, r: Reader, project: Project, session: str) -> tuple[tuple[str, ...], ...]:
        """The session's PROJECT_STATE lines still there, and the asks it opened (with
        their state when no longer open), from the project's recent events."""
        pid = project.project_id
        entries: dict[str, None] = {}
        asks: dict[str, None] = {}
        recent = r.read_project(
            pid, stream_prefix=(ENTRY_PREFIX, ASK_PREFIX), newest_first=True, limit=RECENT_EVENTS
        )
        for recorded in recent:
            if recorded.session != session:
                continue
            event = recorded.event
            if isinstance(event, AskOpened):
                asks[event.ask_id] = None
            elif recorded.stream.startswith(ENTRY_PREFIX):
                entries[recorded.stream.removeprefix(ENTRY_PREFIX)] = None
        state = self.units.memory.load(r, pid).files["state"]
        doing = tuple(
            state_line(e.text)
            for e in state.entries.values()
            if e.entry_id in entries and e.status == "live"
        )[-DOING_LINES:]
        opened = []
        for ask_id in reversed(list(asks)):
            ask = r.state(pid, ask_stream(ask_id))
            if ask is not None:
                mark = "" if ask.state == "open" else f" ({ask.state})"
                opened.append(f"[{ask_id}] {ask.text}{mark}")
        return doing, tuple(opened)

    def keep(
        self,
        project: Project,
        session: str,
        agent: str,
        stopped: str,
        transcript: Path | None,
        said_last: str = "",
        seen: int | None = None,
    ) -> int | None:
        """Keep what session ``session`` leaves for the next one (``said_last``: the agent's
        last message as its client gave it, else the transcript's). Returns the project's
        head after the hand-off when nothing but it was appended since ``seen`` (the head the
        session had seen; both read under the writers' lock, so no other process's write can
        fall between), so the session may be marked as having seen its own hand-off; else
        None."""
        lines = _lines(transcript)
        turns = parse_transcript(lines)
        with self.store.reader() as r:
            doing, asks = self._own(r, project, session)
        kept = HandoffKept(
            session=session,
            agent=agent,
            stopped=stopped,
            requests=tuple(_clean(t) for t in last_requests(turns)),
            doing=tuple(_clean(t) for t in doing),
            plan=_clean(clip(said_last or last_message(turns), PLAN_CHARS)),
            files=changed_files(lines, str(Path(project.root))),
            asks=tuple(_clean(a) for a in asks),
        )
        with self.units.begin(project, Actor.AGENT, session=session) as u:
            before = u.w.head(project.project_id)
            found: Any = u.w.state(project.project_id, HANDOFF_STREAM)
            events = decide_keep(found or Handoffs(), kept)
            u.append(events, stream=HANDOFF_STREAM)
            after = u.w.head(project.project_id)
            alone = u.w.count(project.project_id, "", after_position=before, until_position=after)
        return after if events and before == seen and alone == len(events) else None

    def take(self, project: Project, session: str, agent: str, resumed: bool) -> bool:
        """A session starts: it takes the newest hand-off when it is its to take (see
        :func:`~orbital.domain.handoff.decide_take`); whether it did. Decided first on a
        read, so a start with nothing to take takes no write lock, then again in the unit."""
        if not decide_take(self.state(project), session, agent, resumed):
            return False
        with self.units.begin(project, Actor.AGENT, session=session) as u:
            found: Any = u.w.state(project.project_id, HANDOFF_STREAM)
            events = decide_take(found or Handoffs(), session, agent, resumed)
            u.append(events, stream=HANDOFF_STREAM)
        return bool(events)

    def block(self, project: Project, session: str) -> str:
        """The hand-off ``session`` took, as the view shows it ("" for none)."""
        state = self.state(project)
        return handoff_block(taken(state, session), state.kept_at, self.memory.count)

    def latest(self, project: Project) -> str:
        """The newest hand-off as the next session would read it, and who took it."""
        state = self.state(project)
        text = handoff_block(state.latest, state.kept_at, self.memory.count)
        if text:
            took = f"taken by session {state.taken_by}" if state.taken_by else "not taken yet"
            text += f"\n({took})"
        return text
