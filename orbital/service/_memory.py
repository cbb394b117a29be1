"""Durable memory use cases: the write path of DECISIONS, LESSONS, PROJECT_STATE and INDEX,
their projections (live file and archive), the per-turn injection view and the session-end
backstop.

State is never rebuilt from the whole log: the four folded files are kept in a snapshot row
every :data:`SNAPSHOT_EVERY` events and in memory between calls, so a load folds only the few
events recorded since; the injection view is cached per (memory head, asks head, window,
audience, day) and token counts per text.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES
from orbital.domain.asks import Ask
from orbital.domain.asks_view import runtime_block, subagent_dropped_line
from orbital.domain.backstop import plan_backstop
from orbital.domain.budgets import TokenCounter
from orbital.domain.entries import fold_file, stream_for
from orbital.domain.entry_actions import EntryAction, decide_entry_action, find_entry
from orbital.domain.file_write import decide_file_write
from orbital.domain.hand_edits import replay_edit
from orbital.domain.merge import closest
from orbital.domain.views import assemble_view
from orbital.domain.writes import Decision
from orbital.errors import InvalidEncoding
from orbital.events import Actor, Event, RecordedEvent
from orbital.events.entries import EntryRetired
from orbital.events.files import HandEditConflict, HandEditDetected
from orbital.files import check_size, decode_utf8, sha256
from orbital.grammar.model import FileState
from orbital.grammar.render import render_archive, render_file
from orbital.project import Project
from orbital.service._asks import AsksService
from orbital.service._context import Context, EventSummary, SyncReport, WriteOutcome
from orbital.store import Checkpoint, Reader, Writer

MEMORY_KEYS: tuple[str, ...] = ("state", "decisions", "lessons", "index")
MEMORY_PREFIXES: tuple[str, ...] = ("entry:", "file:")
SNAPSHOT_NAME = "memory"
#: Fold at most this many events on a cold load before a new snapshot is written.
SNAPSHOT_EVERY = 64
#: How many of the newest written versions a hand edit is compared with to find its base.
MERGE_BASES = 8


class _Snapshot(msgspec.Struct):
    files: dict[str, FileState]
    #: Per file: the position of the last event that changed it.
    changed_at: dict[str, int]


@dataclass(frozen=True)
class Memory:
    """The four folded memory files as of ``position`` (the newest entry/file event)."""

    position: int
    files: Mapping[str, FileState]
    changed_at: Mapping[str, int]
    #: Events folded since the snapshot this state was built from.
    folded: int = 0


@dataclass(frozen=True)
class SessionEndReport:
    events: list[EventSummary]
    over_by: dict[str, int]
    notes: list[str]
    #: The memory editor's outcome when one is configured ("" when none is).
    editor: str = ""


@dataclass
class _Intake:
    """What taking in the files on disk did."""

    memory: Memory
    warnings: list[str] = field(default_factory=list)
    events: list[EventSummary] = field(default_factory=list)
    #: Files to write again whatever changed (regenerated over a hand edit).
    rewrite: set[str] = field(default_factory=set)
    conflicts: list[str] = field(default_factory=list)


@dataclass
class MemoryService:
    ctx: Context
    asks: AsksService
    count: TokenCounter
    _cache: dict[str, Memory] = field(default_factory=dict)
    _views: dict[tuple[object, ...], str] = field(default_factory=dict)

    # -- state ----------------------------------------------------------------------------

    def _head(self, r: Reader, pid: str) -> int:
        return max(r.prefix_head(pid, p) for p in MEMORY_PREFIXES)

    def _empty(self) -> Memory:
        return Memory(0, {k: FileState(key=k) for k in MEMORY_KEYS}, dict.fromkeys(MEMORY_KEYS, 0))

    def _fold(self, base: Memory, events: Sequence[RecordedEvent], head: int) -> Memory:
        files = dict(base.files)
        changed = dict(base.changed_at)
        for recorded in events:
            for key in MEMORY_KEYS:
                folded = fold_file(key, [recorded.event], files[key])
                if folded != files[key]:
                    files[key] = folded
                    changed[key] = recorded.position
        return Memory(max(head, base.position), files, changed, base.folded + len(events))

    def load(self, r: Reader, pid: str, *, at: int | None = None) -> Memory:
        """The memory files now (``at`` None) or as of position ``at``: the nearest state
        at or before the target (the in-process cache or a snapshot) plus the events after."""
        head = self._head(r, pid) if at is None else at
        cached = self._cache.get(pid)
        if at is None and cached is not None and cached.position == head:
            return cached
        base = cached if cached is not None and cached.position <= head else None
        at_snapshot = r.snapshot_position(pid, SNAPSHOT_NAME, head)
        if at_snapshot is not None and (base is None or at_snapshot > base.position):
            decoded = self.ctx.decoded(
                (pid, SNAPSHOT_NAME, at_snapshot),
                lambda: msgspec.json.decode(
                    self._snapshot_state(r, pid, at_snapshot), type=_Snapshot
                ),
            )
            base = Memory(at_snapshot, decoded.files, decoded.changed_at)
        if base is None:
            base = self._empty()
        events = list(
            r.read_project(
                pid,
                from_position=base.position,
                until_position=head,
                stream_prefix=MEMORY_PREFIXES,
            )
        )
        memory = self._fold(base, events, head)
        if isinstance(r, Writer) and at is None and memory.folded >= SNAPSHOT_EVERY:
            self._save(r, pid, memory)
            memory = dataclasses.replace(memory, folded=0)
        if at is None:
            if isinstance(r, Writer):  # cache only what committed: positions are reused
                r.on_commit(lambda: self._cache.__setitem__(pid, memory))
            else:
                self._cache[pid] = memory
        return memory

    @staticmethod
    def _snapshot_state(r: Reader, pid: str, position: int) -> bytes:
        found = r.snapshot(pid, SNAPSHOT_NAME, position)
        assert found is not None and found[0] == position
        return found[1]

    def _save(self, w: Writer, pid: str, memory: Memory) -> None:
        state = _Snapshot(dict(memory.files), dict(memory.changed_at))
        w.save_snapshot(pid, SNAPSHOT_NAME, memory.position, msgspec.json.encode(state))

    def _append(
        self, w: Writer, pid: str, events: Sequence[Event], actor: Actor, session: str | None
    ) -> list[EventSummary]:
        return self.ctx.append_each(w, pid, events, stream_for, actor, session)

    # -- projections ----------------------------------------------------------------------

    def _write_files(
        self,
        w: Writer,
        project: Project,
        before: Memory,
        after: Memory,
        rewrite: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        """Write what changed: each archive before its live file (over budget beats losing an
        entry), and a checkpoint per file in the same transaction."""
        files = self.ctx.files(project)
        pid = project.project_id
        for key in MEMORY_KEYS:
            archive_name = ARCHIVE_FILES.get(key)
            if archive_name is not None:
                text = render_archive(after.files[key])
                stale = w.checkpoint(pid, archive_name) is None
                if text and (stale or text != render_archive(before.files[key])):
                    self._write(w, project, archive_name, text, after.changed_at[key])
        for key in MEMORY_KEYS:
            name = MEMORY_FILES[key]
            unchanged = after.files[key] is before.files[key] and key not in rewrite
            if unchanged and w.checkpoint(pid, name) is not None:
                continue
            if (
                files.stat(name) is None
                and not after.files[key].layout
                and after.changed_at[key] == 0
                and w.checkpoint(pid, name) is None
            ):
                continue
            self._write(w, project, name, render_file(after.files[key]), after.changed_at[key])

    def _write(self, w: Writer, project: Project, name: str, text: str, position: int) -> None:
        files = self.ctx.files(project)
        w.on_rollback(files.restorer(name))
        stamp = files.write(name, text.encode())
        w.set_checkpoint(
            project.project_id, name, Checkpoint(position, stamp.size, stamp.mtime_ns, stamp.sha256)
        )

    def _take_in_hand_edits(
        self,
        w: Writer,
        project: Project,
        memory: Memory,
        today: dt.date,
        proposal: tuple[str, bytes] | None = None,
    ) -> _Intake:
        """Files changed on disk since Orbital wrote them become events (actor ``file``)
        before anything else is decided.

        The edit is merged three ways: against the version the person started from, the
        store's current projection and the file on disk. A file that is exactly a version
        Orbital wrote before (``git checkout`` of an older one) is regenerated, never taken as
        a revert; overlapping changes keep the person's file beside as a conflict copy.
        """
        pid, files = project.project_id, self.ctx.files(project)
        intake = _Intake(memory)
        for key in MEMORY_KEYS:
            name = MEMORY_FILES[key]
            checkpoint = w.checkpoint(pid, name)
            stat = files.stat(name)
            if stat is None or (
                checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns)
            ):
                continue
            raw = files.read_bytes(name) or b""
            if proposal == (key, raw):
                continue  # the write being made is this very content (``orbital ingest``)
            ours = render_file(intake.memory.files[key])
            if raw == ours.encode() or not raw.strip():
                # Same bytes, or an editor's truncate-then-write caught half way: no change.
                intake.rewrite.add(key)
                continue
            if checkpoint is None:
                self._import(w, project, key, raw, today, intake)
            else:
                self._merge(w, project, key, raw, ours, today, intake)
        return intake

    def _import(
        self, w: Writer, project: Project, key: str, raw: bytes, today: dt.date, intake: _Intake
    ) -> None:
        """A file from before Orbital's store (upstream Orbital, a hand-made one) is read in
        as a write by ``system``: its id comments are kept."""
        name = MEMORY_FILES[key]
        try:
            text = decode_utf8(raw)
        except InvalidEncoding:
            self._keep_aside(w, project, key, raw, intake, "is not valid UTF-8")
            return
        self._decide(w, project, key, text, today, Actor.SYSTEM, intake)
        intake.warnings.append(f"{name}: imported the file on disk ({sha256(raw)[:12]}).")

    def _merge(
        self,
        w: Writer,
        project: Project,
        key: str,
        raw: bytes,
        ours: str,
        today: dt.date,
        intake: _Intake,
    ) -> None:
        pid, name = project.project_id, MEMORY_FILES[key]
        found = sha256(raw)
        detected = HandEditDetected(
            file=key, expected_sha256=sha256(ours.encode()), found_sha256=found
        )
        intake.events += self._append(w, pid, [detected], Actor.FILE, None)
        versions = w.written_versions(pid, name)
        if found in versions:
            intake.rewrite.add(key)
            intake.warnings.append(
                f"{name} on disk is the version Orbital wrote at position {versions[found]} "
                "(an older copy brought back, e.g. by git checkout); the store is newer, so "
                "the file was regenerated and nothing was reverted."
            )
            return
        try:
            theirs = decode_utf8(raw)
        except InvalidEncoding:
            self._keep_aside(w, project, key, raw, intake, "is not valid UTF-8")
            return
        current = intake.memory.files[key]
        recent = sorted(set(versions.values()), reverse=True)[:MERGE_BASES]
        bases = [self.load(w, pid, at=p).files[key] for p in recent] or [current]
        base = bases[closest(theirs, [render_file(b) for b in bases])]
        decision = self._decided(w, project, key, base, theirs, today, Actor.FILE, None, intake)
        replayed = replay_edit(base, current, decision.events)
        if replayed is None:
            self._keep_aside(w, project, key, raw, intake, "changes what the store changed too")
            return
        intake.events += self._append(w, pid, replayed, Actor.FILE, None)
        intake.warnings += decision.warnings
        intake.warnings.append(f"{name}: took in a hand edit ({found[:12]}).")
        intake.memory = self.load(w, pid)
        intake.rewrite.add(key)

    def _decide(
        self,
        w: Writer,
        project: Project,
        key: str,
        text: str,
        today: dt.date,
        actor: Actor,
        intake: _Intake,
    ) -> None:
        pid = project.project_id
        state = intake.memory.files[key]
        decision = self._decided(w, project, key, state, text, today, actor, None, intake)
        intake.events += self._append(w, pid, decision.events, actor, None)
        intake.warnings += decision.warnings
        intake.memory = self.load(w, pid)
        intake.rewrite.add(key)

    def _decided(
        self,
        w: Writer,
        project: Project,
        key: str,
        state: FileState,
        text: str,
        today: dt.date,
        actor: Actor,
        session: str | None,
        intake: _Intake,
    ) -> Decision:
        """The events for a proposed text of ``key`` against ``state``; ``[user]`` lines of
        PROJECT_STATE first become asks in this transaction (reported through ``intake``)."""
        if key == "state":
            text, moved, ask_warnings = self.asks.take_legacy_flags(
                w, project, text, today, actor, session
            )
            intake.events += moved
            intake.warnings += ask_warnings
        ever_used = self._ever_used(w, project.project_id)
        return decide_file_write(state, text, today, mint=self.ctx.mint, ever_used=ever_used)

    def _keep_aside(
        self, w: Writer, project: Project, key: str, raw: bytes, intake: _Intake, why: str
    ) -> None:
        """Save the person's file beside the projection, record it, regenerate."""
        name = MEMORY_FILES[key]
        copy = self.ctx.conflict_copy(project, name, raw)
        conflict = HandEditConflict(file=key, conflict_copy=copy, found_sha256=sha256(raw))
        intake.events += self._append(w, project.project_id, [conflict], Actor.FILE, None)
        intake.conflicts.append(copy)
        intake.rewrite.add(key)
        intake.warnings.append(
            f"{name} was edited outside Orbital and the edit {why}; the edited file is saved "
            f"as orbital/{copy} and {name} was regenerated from events. Merge your change "
            "into the new file (or write it again) and delete the copy."
        )

    def _ever_used(self, r: Reader, pid: str) -> set[str]:
        return {stream.split(":", 1)[1] for stream in r.states(pid, "entry:")}

    # -- use cases ------------------------------------------------------------------------

    def write(
        self,
        project: Project,
        key: str,
        content: bytes,
        actor: Actor,
        session: str | None,
    ) -> WriteOutcome:
        """A writer's proposed full text of one memory file (reference §5)."""
        check_size(content)
        proposed = decode_utf8(content)
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            before = self.load(w, pid)
            intake = self._take_in_hand_edits(w, project, before, today, (key, content))
            state = intake.memory.files[key]
            decision = self._decided(
                w, project, key, state, proposed, today, actor, session, intake
            )
            warnings, summaries = intake.warnings, intake.events
            summaries += self._append(w, pid, decision.events, actor, session)
            warnings += decision.warnings
            retired = sum(isinstance(e, EntryRetired) for e in decision.events)
            if retired:
                warnings.append(
                    f"{MEMORY_FILES[key]}: {retired} entr{'y' if retired == 1 else 'ies'} the "
                    "new text no longer has were removed from the file; their text stays in "
                    f"the history (orbital history --file {MEMORY_FILES[key]})."
                )
            after = self.load(w, pid)
            self._write_files(w, project, before, after, intake.rewrite)
        return WriteOutcome(render_file(after.files[key]), warnings, summaries)

    def entry_ids(self, project: Project, key: str) -> list[str]:
        """Every entry the file ever had (live, archived, merged or retired)."""
        with self.ctx.store.reader() as r:
            return list(self.load(r, project.project_id).files[key].entries)

    def read(self, project: Project, key: str, *, at: int | None = None) -> str:
        """The file as Orbital renders it now, or as of position ``at``."""
        with self.ctx.store.reader() as r:
            memory = self.load(r, project.project_id, at=at)
        return render_file(memory.files[key])

    def read_archive(self, project: Project, key: str, *, at: int | None = None) -> str:
        with self.ctx.store.reader() as r:
            memory = self.load(r, project.project_id, at=at)
        return render_archive(memory.files[key])

    def sync(self, project: Project) -> SyncReport:
        """Take in hand edits and rewrite any projection that is missing or stale."""
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            before = self.load(w, pid)
            intake = self._take_in_hand_edits(w, project, before, today)
            self._write_files(w, project, before, intake.memory, intake.rewrite)
            self._restore_missing(w, project, intake.memory)
        return SyncReport(intake.warnings, intake.events, intake.conflicts)

    def unmerged(self, project: Project) -> list[str]:
        """Memory files whose disk content differs from what Orbital last wrote."""
        with self.ctx.store.reader() as r:
            pid, files = project.project_id, self.ctx.files(project)
            changed = []
            for key in MEMORY_KEYS:
                name = MEMORY_FILES[key]
                checkpoint, stat = r.checkpoint(pid, name), files.stat(name)
                if stat is None or (
                    checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns)
                ):
                    continue
                memory = self.load(r, pid)
                if (files.read_bytes(name) or b"") != render_file(memory.files[key]).encode():
                    changed.append(name)
            return changed

    def regenerate(self, project: Project) -> list[str]:
        """Rewrite every memory file and archive from events; a file that differs from what
        Orbital last wrote is first saved beside as a conflict copy. Returns the copies."""
        pid = project.project_id
        copies = []
        with self.ctx.store.writing() as w:
            memory = self.load(w, pid)
            files = self.ctx.files(project)
            for name in self.unmerged(project):
                key = next(k for k, n in MEMORY_FILES.items() if n == name)
                raw = files.read_bytes(name) or b""
                intake = _Intake(memory)
                self._keep_aside(w, project, key, raw, intake, "was not merged")
                copies += intake.conflicts
            self._write_files(w, project, self._empty(), memory, frozenset(MEMORY_KEYS))
        return copies

    def _restore_missing(self, w: Writer, project: Project, memory: Memory) -> None:
        files = self.ctx.files(project)
        for key in MEMORY_KEYS:
            name = MEMORY_FILES[key]
            checkpoint = w.checkpoint(project.project_id, name)
            if checkpoint is not None and files.stat(name) is None:
                self._write(
                    w, project, name, render_file(memory.files[key]), memory.changed_at[key]
                )

    def init_files(self, project: Project) -> None:
        """Create the four memory files with their format contracts (never overwriting)."""
        with self.ctx.store.writing() as w:
            memory = self.load(w, project.project_id)
            files = self.ctx.files(project)
            for key in MEMORY_KEYS:
                name = MEMORY_FILES[key]
                if files.stat(name) is None and w.checkpoint(project.project_id, name) is None:
                    self._write(
                        w, project, name, render_file(memory.files[key]), memory.changed_at[key]
                    )

    def view(
        self,
        project: Project,
        *,
        window: int | None = None,
        audience: str = "agent",
        at: tuple[int, dt.datetime] | None = None,
    ) -> str:
        """The per-turn injection view, from materialised state (no file is read); ``at``
        (position, instant) renders it as it stood then."""
        pid = project.project_id
        if at is not None:
            today = at[1].astimezone(project.tz()).date()
            with self.ctx.store.reader() as r:
                memory = self.load(r, pid, at=at[0])
                asks = self.asks.at(r, pid, at[0])
            return self._assemble(pid, memory, asks, today, window, audience)
        today = self.ctx.today(project)
        with self.ctx.store.reader() as r:
            # Positions are global and gapless: an unchanged project head means no event of
            # the project was appended since, so one indexed max() answers a repeated call.
            head_key = ("head", pid, r.head(pid), window, audience, today)
            cached = self._views.get(head_key)
            if cached is not None:
                return cached
            memory = self.load(r, pid)
            asks_head = r.prefix_head(pid, "ask")
            key = (pid, memory.position, asks_head, window, audience, today)
            cached = self._views.get(key)
            if cached is None:
                asks = self.asks.current(r, pid)
        if cached is None:
            cached = self._assemble(pid, memory, asks, today, window, audience, cache=True)
            self._remember(key, cached)
        self._remember(head_key, cached)
        return cached

    def _assemble(
        self,
        pid: str,
        memory: Memory,
        asks: Mapping[str, Ask],
        today: dt.date,
        window: int | None,
        audience: str,
        *,
        cache: bool = False,
    ) -> str:
        if audience == "subagent":
            dropped = subagent_dropped_line(asks, today)
            return assemble_view({}, today, self.count, audience=audience, dropped_line=dropped)
        # The memory part depends on the memory files only: an ask change reuses it (the asks
        # block is the last part, joined like the others).
        memory_key = ("memory", pid, memory.position, window, today)
        memory_part = self._views.get(memory_key) if cache else None
        if memory_part is None:
            texts = {k: render_file(memory.files[k]) for k in MEMORY_KEYS}
            memory_part = assemble_view(texts, today, self.count, window=window)
            if cache:
                self._remember(memory_key, memory_part)
        asks_block = runtime_block(asks, today, empty_cue=True)
        return "\n\n".join(p for p in (memory_part, asks_block) if p)

    def _remember(self, key: tuple[object, ...], view: str) -> None:
        if len(self._views) > 256:
            self._views.clear()
        self._views[key] = view

    def entry_action(
        self, project: Project, entry_id: str, action: EntryAction, actor: Actor
    ) -> WriteOutcome:
        """Pin, unpin or restore one entry (a restored entry returns to its old slot)."""
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            before = self.load(w, pid)
            intake = self._take_in_hand_edits(w, project, before, today)
            warnings, summaries = intake.warnings, intake.events
            events = decide_entry_action(intake.memory.files, entry_id, action, today)
            summaries += self._append(w, pid, events, actor, None)
            after = self.load(w, pid)
            self._write_files(w, project, before, after, intake.rewrite)
        key = find_entry(after.files, entry_id).file
        return WriteOutcome(render_file(after.files[key]), warnings, summaries)

    def session_end(self, project: Project) -> SessionEndReport:
        """The deterministic backstop (reference §7): demote the coldest entries of files over
        their soft budget, as undoable events; archives are written before live files."""
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            before = self.load(w, pid)
            intake = self._take_in_hand_edits(w, project, before, today)
            summaries = intake.events
            plan = plan_backstop(intake.memory.files, today, self.count)
            summaries += self._append(w, pid, plan.events, Actor.SYSTEM, None)
            after = self.load(w, pid)
            self._write_files(w, project, before, after, intake.rewrite)
        return SessionEndReport(summaries, dict(plan.over_by), list(plan.notes))
