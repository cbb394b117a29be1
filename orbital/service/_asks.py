"""Asks use cases: the agent's ASKS.md write, person and agent actions, reads of ASKS.md, and
the legacy migration. Each is a unit of work (:mod:`._unit`): it states its decider and
inputs; the unit loads, takes ASKS.md in, appends and appends the new lines to the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec

from orbital.catalogue import migration_stream
from orbital.domain.ask_requests import (
    check_request,
    decide_change,
    decide_open,
    decide_reopen_proposal,
)
from orbital.domain.asks import (
    Ask,
    AskState,
    CloseKind,
    decide_agent_change,
    request_stamp,
)
from orbital.domain.asks_legacy import (
    LegacyFlag,
    Retraction,
    UnparsedLine,
    extract_legacy_flags,
    parse_retractions,
    plan_migration,
)
from orbital.domain.asks_open import decide_agent_open
from orbital.domain.asks_write import Appended, decide_agent_append, decide_agent_write
from orbital.domain.quotes import UserWords
from orbital.editor.sessions import transcript_words
from orbital.errors import InvalidInput, TooLarge, UnknownAsk
from orbital.events import Actor, Event
from orbital.events.asks import AskClosed, AskOpened
from orbital.events.migration import LegacyItemMigrated, MigrationCompleted
from orbital.files import decode_utf8, max_file_bytes
from orbital.grammar.asks_md import render_lines
from orbital.grammar.text import without_nul
from orbital.project import Project
from orbital.service._asks_file import Projection
from orbital.service._context import WriteOutcome
from orbital.service._sessions import SessionMarks
from orbital.service._unit import Unit, Units

StateFilter = Literal["open", "done", "dropped", "all"]
#: Legacy items migrated per transaction (a crashed run resumes from the last one).
MIGRATION_CHUNK = 500


class MigrationReport(msgspec.Struct, frozen=True):
    opened: int
    dropped: int
    appended_events: int
    already_migrated: bool
    unparsed: list[UnparsedLine]
    plan: list[str]
    dry_run: bool
    #: How many legacy items were found (retractions plus ``[user]`` lines).
    found: int = 0


_ALREADY_OPEN = "ASKS.md: an open ask already has that text — not added again."


def check_growth(current: Projection, content: bytes, added: str | None) -> None:
    """The size limit of a write, on what it adds to ASKS.md (the log only grows, so a limit
    on the whole file would one day refuse every write)."""
    if added is not None:
        grown = len(added.encode())
    else:
        size = current.disk.size if current.disk is not None else len(current.rendered.encode())
        grown = len(content) - size
    limit = max_file_bytes()
    if grown > limit:
        raise TooLarge(grown, limit)


class AsksService:
    def __init__(self, units: Units) -> None:
        self.units = units

    # -- decisions ------------------------------------------------------------------------

    @staticmethod
    def words(transcript: Path | None) -> UserWords | None:
        """The user's messages in a session transcript (``None``: none given), read before
        the unit of work begins, outside the store's lock."""
        return None if transcript is None else transcript_words(transcript)

    @staticmethod
    def session_transcript(project: Project, session: str | None) -> Path | None:
        """The transcript the agent's hooks recorded for ``session`` (a session id its MCP
        client or the CLI's ``--session`` names): what ties a call to the person's words."""
        known = SessionMarks().get(project.project_id, session).transcript if session else ""
        return Path(known) if known else None

    def decide_write(self, u: Unit, content: bytes, words: UserWords | None = None) -> None:
        """Decide a proposed ASKS.md in ``u``. A proposal that is the file on disk with lines
        appended is decided from those lines alone (:func:`decide_agent_append`): its cost
        is the size of the addition. ``words``: the user's, to verify quotes against."""
        current, known = u.asks_file, u.asks
        if u.units.meanings is not None:  # what an earlier process stemmed, for the matcher
            u.units.meanings.phrases.load()
        added = current.added_by(content)
        check_growth(current, content, added)
        result: Appended
        if current.disk is not None and added is not None:
            result = decide_agent_append(
                known.asks,
                current.disk.lines,
                added,
                u.today,
                u.mint,
                known.dropped,
                known.opened,
                actor=u.actor,
                words=words,
            )
        else:
            result = decide_agent_write(
                known.asks,
                current.text,
                decode_utf8(content),
                u.today,
                u.mint,
                known.dropped,
                known.opened,
                actor=u.actor,
                words=words,
            )
        u.decided(result.events, result.audit, result.warnings)

    def open(
        self,
        project: Project,
        text: str,
        due: str | None,
        actor: Actor,
        session: str | None = None,
        distinct_from: Sequence[str] = (),
    ) -> WriteOutcome:
        """Open an ask. The agent path refuses duplicates and dropped texts (exact or fuzzy)
        and holds a text that resembles a dropped one it does not name in ``distinct_from``;
        the person may open what they like, except an exact duplicate of an open ask."""
        text, removed = without_nul(text, "the ask's text")
        if due is not None:
            due, removed_due = without_nul(due, "the ask's due")
            removed += removed_due
        check_request(text, due)
        if actor is Actor.AGENT:
            self.units.asks.ready(project.project_id)
        with self.units.begin(project, actor, session=session) as u:
            u.warnings += removed
            known = u.asks
            if actor is Actor.AGENT:
                if u.units.meanings is not None:  # for the matcher, as for a file's write
                    u.units.meanings.phrases.load()
                d = decide_agent_open(
                    known.asks,
                    text,
                    due,
                    u.today,
                    u.mint,
                    None,
                    known.dropped,
                    known.opened,
                    distinct_from,
                )
                u.decided(d.events, d.audit, d.warnings)
            else:
                event = decide_open(known.asks, text, due, u.today, u.mint, known.opened)
                if event is None:
                    u.decided([], [], [_ALREADY_OPEN])
                else:
                    u.decided([event], [], [])
        return WriteOutcome(u.asks_text, u.warnings, u.events, refused=u.refused, held=u.held_lines)

    def change(
        self,
        project: Project,
        ask_id: str,
        kind: CloseKind | Literal["reopen"],
        note: str,
        actor: Actor,
        session: str | None = None,
        transcript: Path | None = None,
    ) -> WriteOutcome:
        """Close (done/dropped) or reopen an ask. Unknown id: :class:`UnknownAsk`.
        Closing a closed ask or reopening an open one changes nothing. ``transcript``: the
        agent's session, whose user messages an agent's quote is checked against."""
        ask_id = ask_id.strip().lower()
        if actor is Actor.AGENT and transcript is None:
            transcript = self.session_transcript(project, session)
        words = self.words(transcript)
        note, removed = without_nul(note, "the note")
        with self.units.begin(project, actor, session=session) as u:
            u.warnings += removed
            asks = u.asks.asks
            if ask_id not in asks:
                raise UnknownAsk(ask_id)
            if actor is Actor.AGENT:
                d = decide_agent_change(asks, kind, ask_id, note, u.today, actor, words)
                u.decided(d.events, d.audit, d.warnings)
            else:
                by = request_stamp(actor)
                event = decide_change(asks, kind, ask_id, u.today, by=by, note=note)
                if event is None:
                    state: AskState = asks[ask_id].state
                    u.decided(
                        [], [], [f"ASKS.md: [{ask_id}] is already {state} — nothing changed."]
                    )
                else:
                    u.decided([event], [], [])
        return WriteOutcome(u.asks_text, u.warnings, u.events, refused=u.refused, held=u.held_lines)

    def answer_proposal(
        self, project: Project, ask_id: str, confirm: bool, note: str, actor: Actor
    ) -> WriteOutcome:
        """The person confirms or declines a reopen held for them."""
        with self.units.begin(project, actor) as u:
            event = decide_reopen_proposal(u.asks.asks, ask_id, confirm, u.today, actor, note)
            u.decided([event], [], [])
        return WriteOutcome(u.asks_text, u.warnings, u.events, refused=u.refused)

    # -- reads ----------------------------------------------------------------------------

    def listing(self, project: Project, state: StateFilter = "open") -> list[Ask]:
        with self.units.ctx.store.reader() as r:
            asks = self.units.asks.every(r, project.project_id)
        chosen = [a for a in asks.values() if state == "all" or a.state == state]
        return sorted(chosen, key=lambda a: (a.opened, a.seq))

    def read(self, project: Project, *, at: int | None = None) -> str:
        """ASKS.md as Orbital renders it now, or as of position ``at``."""
        with self.units.ctx.store.reader() as r:
            return self.units.asks_file.read(r, project, at)

    # -- legacy migration ------------------------------------------------------------------

    def migrate_retractions(
        self, project: Project, path: Path | None, *, dry_run: bool, progress: bool
    ) -> MigrationReport:
        """Legacy ``retractions.md`` and ``[user]`` lines of PROJECT_STATE.md into events,
        then the memory files taken in (``[user]`` lines now asks leave PROJECT_STATE.md).

        Idempotent (planning skips anything already an ask), resumable (each chunk of items is
        one unit of work with its progress markers), and it never modifies the legacy files.
        """
        files = self.units.ctx.files(project)
        if path is not None and not path.is_file():
            raise InvalidInput(f"{path} is not a file: give the legacy retractions.md to read")
        source = path or files.directory / "retractions.md"
        retractions: list[Retraction] = []
        unparsed: list[UnparsedLine] = []
        if source.is_file():
            text = source.read_bytes().decode("utf-8", errors="replace")
            retractions, unparsed = parse_retractions(text)
        state_raw = files.read_bytes("PROJECT_STATE.md")
        flags: list[LegacyFlag] = []
        if state_raw is not None:
            flags = extract_legacy_flags(state_raw.decode("utf-8", errors="replace"))[1]
        today = self.units.ctx.today(project)
        with self.units.ctx.store.reader() as r:
            asks = self.units.asks.now(r, project.project_id).asks
            plan = plan_migration(asks, retractions, flags, today, self.units.ctx.mint)
        described = [f"{stream}: " + "; ".join(render_lines(events)) for stream, events in plan]
        opened = sum(1 for _, events in plan for e in events if isinstance(e, AskOpened))
        dropped = sum(1 for _, events in plan for e in events if isinstance(e, AskClosed))
        found = len(retractions) + len(flags)
        report = MigrationReport(opened, dropped, 0, not plan, unparsed, described, dry_run, found)
        if dry_run:
            return report
        appended = 0
        marks = migration_stream(source.name)
        from tqdm import tqdm  # only a migration shows a progress bar

        bar = tqdm(total=len(plan), unit="item", disable=not progress, leave=False)
        try:
            for start in range(0, len(plan), MIGRATION_CHUNK):
                chunk = plan[start : start + MIGRATION_CHUNK]
                with self.units.begin(project, Actor.SYSTEM) as u:
                    appended += self._migrate(u, chunk, source, marks)
                bar.update(len(chunk))
        finally:
            bar.close()
        with self.units.begin(project, Actor.SYSTEM) as u:
            if plan:
                u.append([MigrationCompleted(source=str(source), items=len(plan))], stream=marks)
            u.sync_memory()
        return MigrationReport(
            opened, dropped, appended, not plan, unparsed, described, False, found
        )

    @staticmethod
    def _migrate(u: Unit, chunk: list[tuple[str, list[Event]]], source: Path, marks: str) -> int:
        """Append one chunk of planned items with their progress markers; returns how many
        events that was."""
        asks = u.asks.asks
        appended = 0
        for stream, events in chunk:
            ask_id = stream.split(":", 1)[1]
            if ask_id in asks:
                continue  # a resumed run: this item landed before the crash
            u.append(events, stream=stream, expected_version=0)
            first = events[0]
            legacy = first.legacy if isinstance(first, AskOpened) else None
            key = f"{legacy.legacy_id}@{legacy.line}" if legacy else ask_id
            marker = LegacyItemMigrated(source=str(source), legacy_key=key, ask_id=ask_id)
            u.append([marker], stream=marks)
            appended += len(events) + 1
        return appended
