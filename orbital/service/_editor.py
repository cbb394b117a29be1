"""The memory editor's use cases: a model pass (``orbital editor run``) and applying a given
choices document (``orbital editor apply``).

A pass, in order (reference §8.1/§8.2, on events):

1. **Gate and single flight** — :class:`~orbital.editor.scheduler.EditorScheduler` decides
   (over soft budget, changed since the watermark, 30-minute interval, debounce; ``--force``
   skips all but single flight) and holds ``orbital/.editor.lock`` with ``flock`` so a CLI run
   and the server never edit one project at once.
2. **Backup first** — the backup is the *event position* the run starts from, not copies of
   the files. Every memory change is an immutable event and the files are projections, so
   the log already holds the state before the run: hand edits on disk are taken in first
   (they become events too), then ``editor.run_started`` records ``memory_position`` and the
   per-file versions. The files as they were render from that position
   (``orbital show FILE --as-of @<memory_position>``), and each change the run makes
   is an event with actor ``editor`` that history shows (``restore`` undoes an archive;
   restoring a merged entry is not wired yet). File copies
   would only duplicate the log, less safely: the reference prunes all but five, and a copy
   can be deleted, while the events table refuses UPDATE and DELETE. If
   ``editor.run_started`` cannot be appended (store locked or unwritable), the run stops
   there: nothing is edited (the backstop still runs).
3. **The model** — the prompt is rendered from the state recorded in step 2; the read-only
   tool loop runs *outside* any transaction (it may take minutes).
4. **Apply** — one write transaction: hand edits taken in, then the entries applier is bound
   to the state now and the baseline positions of step 2 (a file that moved is skipped:
   optimistic concurrency), ask closes are quote-checked, events are appended with actor
   ``editor``, the files rewritten (archives first), and ``editor.run_recorded`` appended —
   the applied changes and their record commit together.
5. **Backstop** — the deterministic session-end backstop runs after the editor *whatever
   happened* (failed model, failed backup, skipped files).
6. **Watermark** — only when the pass succeeded (``edited``/``no_change``) and no file was
   skipped: ``editor.watermark_advanced`` with the start time and the memory position after
   the backstop, so the next automatic pass waits for a change and 30 minutes.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

import msgspec

from orbital.catalogue import ARCHIVE_FILES, FILE_BUDGETS, MEMORY_DIR, MEMORY_FILES
from orbital.catalogue import EDITOR_STREAM as STREAM
from orbital.domain.budgets import TokenCounter
from orbital.domain.editor.choices import Applied, extract_json_object
from orbital.domain.editor.conversation import SYSTEM_PROMPT, lessons_block, render_prompt
from orbital.domain.editor.entry_choices import MemoryChoicesApplier
from orbital.domain.editor.prompt import memory_section
from orbital.domain.editor.schedule import Trigger
from orbital.domain.measure import measure_state
from orbital.domain.transcripts import is_session_name, render_turns
from orbital.editor.choose import provider_from_env
from orbital.editor.loop import LoopResult, run_tool_loop
from orbital.editor.provider import ChatProvider
from orbital.editor.run import EditorRun, RunRecord, finish_run
from orbital.editor.scheduler import Claim, EditorScheduler
from orbital.editor.sessions import SessionDir
from orbital.editor.tools import ReadOnlyTools
from orbital.errors import EditorNotConfigured, InvalidInput, OrbitalError
from orbital.events import Actor
from orbital.events.asks import AskClosed
from orbital.events.editor import (
    AppliedChoice,
    EditorRunRecorded,
    EditorRunStarted,
    EditorWatermarkAdvanced,
)
from orbital.grammar.text import one_line
from orbital.project import Project
from orbital.service._checkpoint import start_requested_pass
from orbital.service._context import EventSummary
from orbital.service._memory import MemoryService
from orbital.service._memory_state import MEMORY_KEYS
from orbital.service._unit import Units
from orbital.store import Reader

LOCK_FILE = ".editor.lock"
SESSIONS_DIR = "sessions"


def mint_suffix() -> str:
    """4 random hex digits for a merged entry's ``<slug>-m<4hex>`` id."""
    return secrets.token_hex(2)


class EditorReport(msgspec.Struct, frozen=True, kw_only=True):
    """What a run or an apply did (``orbital editor … --json`` prints this)."""

    #: ``edited``, ``no_change``, ``failed``, or why no pass started (``not_needed``…).
    outcome: str
    run_id: str = ""
    #: The backup: the memory position the run started from (0 when it could not be made).
    backup_position: int = 0
    calls: int = 0
    applied: list[Applied] = msgspec.field(default_factory=list)
    rejected: list[str] = msgspec.field(default_factory=list)
    skipped_files: list[str] = msgspec.field(default_factory=list)
    error: str = ""
    events: list[EventSummary] = msgspec.field(default_factory=list)
    backstop: list[EventSummary] = msgspec.field(default_factory=list)
    watermark: bool = False


class CheckpointReport(msgspec.Struct, frozen=True, kw_only=True):
    """What an agent's checkpoint request came to at once (its pass runs on its own)."""

    #: ``started``, ``debounced``, ``in_flight`` or ``not_configured``.
    status: str
    reason: str
    detail: str = ""

    def line(self) -> str:
        """The status as the agent reads it (reference: ``<status> Reason noted: <reason>``)."""
        words = CHECKPOINT_WORDS[self.status]
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.status}: {words}{detail}. Reason noted: {self.reason}"


#: What each checkpoint status means, for the agent.
CHECKPOINT_WORDS = {
    "started": "the memory editor is consolidating the memory in the background; its result "
    "comes with your next reminder",
    "debounced": "a pass started less than 5 minutes ago; its result comes with your next reminder",
    "in_flight": "a pass is running for this project now; its result comes with your next reminder",
    "not_configured": "no pass ran",
}


@dataclass(frozen=True)
class _Start:
    """Why a pass runs: its trigger, an agent's reason, the session that just ended."""

    trigger: Trigger
    reason: str = ""
    session: str = ""


@dataclass(frozen=True)
class _Backup:
    run_id: str
    position: int
    versions: dict[str, int]
    trigger: str = ""
    reason: str = ""


@dataclass(frozen=True)
class _Watermark:
    started_at: dt.datetime
    memory_position: int


def _default_provider() -> ChatProvider:
    return provider_from_env()


@dataclass
class EditorService:
    units: Units
    memory: MemoryService
    count: TokenCounter
    scheduler: EditorScheduler
    #: Builds the model client (default: ``ORBITAL_EDITOR_PROVIDER`` and its settings).
    provider: Callable[[], ChatProvider] = _default_provider
    mint_suffix: Callable[[], str] = mint_suffix
    #: Starts a requested pass in a process of its own (store URL, project, reason).
    start: Callable[[str, Project, str], None] = start_requested_pass
    _sessions: dict[str, Path] = field(default_factory=dict)

    # -- use cases ------------------------------------------------------------------------

    def configured(self) -> bool:
        """Whether a model is set up (``ORBITAL_EDITOR_PROVIDER`` and what it needs)."""
        return not self._unconfigured()

    def _unconfigured(self) -> str:
        """Why no model can be used now ("" when one can)."""
        try:
            provider = self.provider()
        except EditorNotConfigured as exc:
            return str(exc)
        close = getattr(provider, "close", None)
        if callable(close):
            close()
        return ""

    def run(
        self,
        project: Project,
        *,
        trigger: Trigger = "auto",
        sessions: Path | None = None,
        session: str = "",
        reason: str = "",
    ) -> EditorReport:
        """One editor pass (see the module docstring for the order of steps). ``session``:
        the session that just ended, whose corrections may become lessons; ``reason``: why
        an agent asked for the pass (a checkpoint)."""
        pid = project.project_id
        with self.units.ctx.store.reader() as r:
            memory = self.units.memory.load(r, pid)
            mark, last_started = self._passes(r, pid)
        over_soft = any(
            measure_state(memory.files[k], self.count) > FILE_BUDGETS[k].soft for k in MEMORY_KEYS
        )
        changed = (
            mark is None
            or memory.position > mark.memory_position
            or bool(self.memory.unmerged(project))
        )
        files = self.units.ctx.files(project)
        files.ensure_dir()
        claim = self.scheduler.claim(
            pid,
            trigger,
            over_soft=over_soft,
            changed=changed,
            last_run_at=mark.started_at if mark is not None else None,
            lock_file=files.directory / LOCK_FILE,
            last_started_at=last_started,
        )
        if not isinstance(claim, Claim):
            return EditorReport(outcome=claim)
        with claim:
            started_at = self.units.ctx.clock.now()
            report = self._pass(project, _Start(trigger, reason, session), sessions)
            backstop, error = self._backstop(project)
            watermark = False
            if report.outcome != "failed" and not report.skipped_files and not error:
                watermark = self._advance_watermark(project, report.run_id, started_at)
        return msgspec.structs.replace(
            report,
            backstop=backstop,
            watermark=watermark,
            error="; ".join(e for e in (report.error, error) if e),
        )

    def checkpoint(self, project_id: str, reason: str) -> CheckpointReport:
        """An agent's request for a pass now (reference §8.1, ``checkpoint_state``): its
        status at once; the pass itself runs in a process of its own, through the same
        single flight and debounce as an automatic one but not bound by the budget and
        interval gates, and its result reaches the agent's next reminder."""
        why = one_line(reason)
        if not why:
            raise InvalidInput("a checkpoint needs a reason (what the memory should catch up on)")
        project = self.units.ctx.store.project(project_id)
        unconfigured = self._unconfigured()
        if unconfigured:
            return CheckpointReport(status="not_configured", reason=why, detail=unconfigured)
        with self.units.ctx.store.reader() as r:
            mark, last_started = self._passes(r, project_id)
        files = self.units.ctx.files(project)
        files.ensure_dir()
        verdict = self.scheduler.peek(
            project_id,
            last_run_at=mark.started_at if mark is not None else None,
            last_started_at=last_started,
            lock_file=files.directory / LOCK_FILE,
        )
        if verdict != "run":
            return CheckpointReport(status=verdict, reason=why)
        self.start(self.units.ctx.store.url, project, why)
        self.scheduler.started(project_id)
        return CheckpointReport(status="started", reason=why)

    def apply(self, project: Project, text: str, *, sessions: Path | None = None) -> EditorReport:
        """Apply a choices document directly (a model's answer replayed, or rules tested
        without a model): same backup, rules and record as a pass; no backstop, no
        watermark. An unreadable document is :class:`~orbital.errors.InvalidInput`."""
        doc = extract_json_object(text)
        if doc is None:
            raise InvalidInput("the choices document is not a JSON object")
        backup = self._back_up(project, "apply")
        return self._apply(project, backup, LoopResult(doc, 0), sessions)

    # -- steps ----------------------------------------------------------------------------

    def _pass(self, project: Project, start: _Start, sessions: Path | None) -> EditorReport:
        try:
            backup = self._back_up(project, start.trigger, start.reason)
        except (OrbitalError, OSError) as exc:
            return EditorReport(outcome="failed", error=f"backup failed, nothing edited: {exc}")
        try:
            loop = self._converse(project, backup, sessions, start.session)
        except OrbitalError as exc:  # e.g. the editor is not configured
            loop = LoopResult(None, 0, str(exc))
        if loop.choices is None:
            return self._record_failure(project, backup, loop)
        return self._apply(project, backup, loop, sessions)

    def _back_up(self, project: Project, trigger: str, reason: str = "") -> _Backup:
        """Take in hand edits, then record the position the run starts from (one unit)."""
        now = self.units.ctx.clock.now()
        run_id = now.strftime("%Y%m%dT%H%M%S%fZ") + "-" + self.mint_suffix()
        with self.units.begin(project, Actor.EDITOR) as u:
            u.sync_memory()
            memory = u.memory
            started = EditorRunStarted(
                run_id=run_id,
                trigger=trigger,
                memory_position=memory.position,
                positions=dict(memory.changed_at),
                reason=reason,
            )
            u.append([started])
        return _Backup(run_id, memory.position, dict(memory.changed_at), trigger, reason)

    def _converse(
        self, project: Project, backup: _Backup, sessions: Path | None, session: str
    ) -> LoopResult:
        pid = project.project_id
        with self.units.ctx.store.reader() as r:
            memory = self.units.memory.load(r, pid, at=backup.position)
            asks = self.units.asks.every(r, pid)
        today = self.units.ctx.today(project)
        session_dir = self._session_dir(project, sessions)
        turns = session_dir.turns(session) if is_session_name(session) else None
        prompt = render_prompt(
            today.isoformat(),
            memory_section(memory.files, self.count),
            sorted(asks.values(), key=lambda a: (a.opened, a.seq)),
            lessons_block(session, render_turns(turns)) if turns is not None else "",
        )
        gateway = self.units.ctx.files(project)

        def read_file(name: str) -> str | None:
            data = gateway.read_bytes(name)
            return None if data is None else data.decode("utf-8", errors="replace")

        names = [MEMORY_FILES[k] for k in MEMORY_KEYS] + list(ARCHIVE_FILES.values())
        tools = ReadOnlyTools(read_file, names, session_dir)
        provider = self.provider()
        try:
            return run_tool_loop(provider, SYSTEM_PROMPT, prompt, tools)
        finally:
            close = getattr(provider, "close", None)
            if callable(close):
                close()

    def _apply(
        self, project: Project, backup: _Backup, loop: LoopResult, sessions: Path | None
    ) -> EditorReport:
        """Apply the choices in one unit: OCC against the backup's per-file positions."""
        messages_of = self._session_dir(project, sessions).user_messages
        with self.units.begin(project, Actor.EDITOR) as u:
            memory, asks = u.memory, u.asks
            applier = MemoryChoicesApplier(
                files=memory.files,
                baseline=backup.versions,
                positions=memory.changed_at,
                ever_used=u.ever_used(),
                mint_suffix=self.mint_suffix,
                mint_id=u.mint,
            )
            run = finish_run(
                loop,
                asks=asks.asks,
                today=u.today,
                messages_of=messages_of,
                apply_entries=applier,
            )
            closes = [e for e in run.events if isinstance(e, AskClosed)]
            entries = [e for e in run.events if not isinstance(e, AskClosed)]
            summaries = u.append(entries) + u.append(closes)
            u.append([_recorded(backup, run)])
        return _report(backup, run, summaries)

    def _record_failure(self, project: Project, backup: _Backup, loop: LoopResult) -> EditorReport:
        run = EditorRun(
            RunRecord(outcome="failed", calls=loop.calls, choices=None, error=loop.error)
        )
        with self.units.begin(project, Actor.EDITOR) as u:
            u.append([_recorded(backup, run)])
        return _report(backup, run, [])

    def _backstop(self, project: Project) -> tuple[list[EventSummary], str]:
        try:
            return self.memory.session_end(project).events, ""
        except (OrbitalError, OSError) as exc:
            return [], f"backstop failed: {exc}"

    def _advance_watermark(self, project: Project, run_id: str, started_at: dt.datetime) -> bool:
        try:
            with self.units.begin(project, Actor.EDITOR) as u:
                position = self.units.memory.load(u.w, u.pid).position
                mark = EditorWatermarkAdvanced(
                    run_id=run_id, started_at=started_at, memory_position=position
                )
                u.append([mark])
        except OrbitalError:
            return False
        return True

    # -- helpers --------------------------------------------------------------------------

    def _passes(self, r: Reader, pid: str) -> tuple[_Watermark | None, dt.datetime | None]:
        """The watermark, and when the last model pass started (whichever process ran it)."""
        mark: _Watermark | None = None
        started: dt.datetime | None = None
        for recorded in reversed(r.read_stream(pid, STREAM)):
            event = recorded.event
            if mark is None and isinstance(event, EditorWatermarkAdvanced):
                mark = _Watermark(event.started_at, event.memory_position)
            if (
                started is None
                and isinstance(event, EditorRunStarted)
                and event.trigger in get_args(Trigger)
            ):
                started = recorded.recorded_at
            if mark is not None and started is not None:
                break
        return mark, started

    def _session_dir(self, project: Project, sessions: Path | None) -> SessionDir:
        return SessionDir(sessions or Path(project.root) / MEMORY_DIR / SESSIONS_DIR)


def _recorded(backup: _Backup, run: EditorRun) -> EditorRunRecorded:
    record = run.record
    return EditorRunRecorded(
        run_id=backup.run_id,
        trigger=backup.trigger,
        reason=backup.reason,
        outcome=record.outcome,
        calls=record.calls,
        choices=record.choices,
        applied=tuple(_applied(a) for a in record.applied),
        rejected=record.rejected,
        skipped_files=record.skipped_files,
        error=record.error,
    )


def _applied(item: Applied) -> AppliedChoice:
    return AppliedChoice(
        kind=item.kind, file=item.file, id=item.id, ids=item.ids, session=item.session
    )


def _report(backup: _Backup, run: EditorRun, summaries: Sequence[EventSummary]) -> EditorReport:
    record = run.record
    return EditorReport(
        outcome=record.outcome,
        run_id=backup.run_id,
        backup_position=backup.position,
        calls=record.calls,
        applied=list(record.applied),
        rejected=list(record.rejected),
        skipped_files=list(record.skipped_files),
        error=record.error,
        events=list(summaries),
    )
