"""Asks use cases: the agent's ASKS.md write, person and agent actions, the ASKS.md
projection (incremental append, full regenerate, hand-edit intake) and the legacy migration.

Every use case is one write transaction (the store's lock serialises writers): load state →
decide (pure, ``orbital.domain.asks``) → append → write the projection → record the checkpoint.
The file is written inside the transaction, after the appends, so two writers can never
interleave lines; if the commit then fails the file is put back.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec
from tqdm import tqdm

from orbital.catalogue import ASKS_KEY
from orbital.domain.asks import (
    Ask,
    AskState,
    CloseKind,
    DroppedIndex,
    OpenIndex,
    check_request,
    decide_agent_change,
    decide_agent_open,
    decide_change,
    decide_open,
    fold,
    index_dropped,
    index_open,
)
from orbital.domain.asks_legacy import (
    LegacyFlag,
    Retraction,
    UnparsedLine,
    extract_legacy_flags,
    parse_retractions,
    plan_migration,
)
from orbital.domain.asks_write import Appended, decide_agent_append, decide_agent_write
from orbital.domain.layered import Layered
from orbital.errors import InvalidInput, UnknownAsk
from orbital.events import Actor, Event, RecordedEvent
from orbital.events.asks import AskClosed, AskOpened, AskReopened, stream_of
from orbital.events.files import HandEditConflict, HandEditDetected
from orbital.events.migration import LegacyItemMigrated, MigrationCompleted
from orbital.files import check_size, decode_utf8, sha256
from orbital.grammar.asks_md import (
    append_lines,
    decode_asks_bytes,
    parse_file,
    parse_line,
    render_event,
    render_file,
)
from orbital.grammar.text import norm
from orbital.project import Project
from orbital.service._context import Context, EventSummary, SyncReport, WriteOutcome
from orbital.store import Checkpoint, Reader, Reducer, Writer

ASKS_FILE = "ASKS.md"
ASKS_SNAPSHOT = "asks"
LINES_SNAPSHOT = "asks-lines"
ASKS_SNAPSHOT_EVERY = 1000
#: Event types that render a line of ASKS.md (audit events render none).
RENDERED_TYPES = ("ask.opened", "ask.closed", "ask.reopened", "ask.file_line")
#: Stream prefix covering ``ask:<id>`` and the log-level ``asks`` stream.
ASKS_PREFIX = "ask"
StateFilter = Literal["open", "done", "dropped", "all"]


def fold_ask_stream(state: Ask | None, recorded: RecordedEvent) -> Ask | None:
    """Materialised state of one ``ask:<id>`` stream (the reference fold, one ask)."""
    initial = {state.id: state} if state is not None else None
    folded = fold([(recorded.position, recorded.event)], initial)
    return next(iter(folded.values()), None)


ASK_REDUCER = Reducer(Ask, fold_ask_stream)


#: What a use case decided: state events, audit events, warnings.
Decided = tuple[list[Event], list[Event], list[str]]
DecideFn = Callable[["_Cached", dt.date], Decided]


class _OnDisk:
    """ASKS.md as Orbital last wrote it, identified by its stat, so that a write finding the
    same stat neither reads nor decodes the file again.

    The bytes are kept as the pieces appended (compared piece by piece, joined only when the
    whole is wanted), with the set of the file's lines (to tell a written line from a moved
    one) and the text, decoded on first use. Successive versions share the line set: it grows
    only when the append that adds the lines has committed.
    """

    #: Pieces kept before they are joined into one (bounds the piece-by-piece comparison).
    MAX_PIECES = 64

    def __init__(
        self,
        size: int,
        mtime_ns: int,
        pieces: list[bytes],
        lines: set[str],
        text: str | None = None,
    ) -> None:
        self.size, self.mtime_ns = size, mtime_ns
        self.lines = lines
        self._pieces = pieces
        self._text = text
        #: The previous version's text, when it was decoded: this one's is it plus the last piece.
        self._text_before: str | None = None

    @classmethod
    def of(cls, size: int, mtime_ns: int, raw: bytes, text: str) -> _OnDisk:
        return cls(size, mtime_ns, [raw], set(text.split("\n")), text)

    @property
    def stat(self) -> tuple[int, int]:
        return self.size, self.mtime_ns

    @property
    def text(self) -> str:
        if self._text is None:
            if self._text_before is not None:
                self._text = self._text_before + self._pieces[-1].decode("utf-8")
                self._text_before = None
            else:
                if len(self._pieces) > 1:
                    self._pieces = [b"".join(self._pieces)]
                self._text = self._pieces[0].decode("utf-8")
        return self._text

    def added_by(self, content: bytes) -> bytes | None:
        """What ``content`` adds after this file, when it is this file (ending with a newline)
        with something appended; ``None`` otherwise. Nothing is joined or copied but the
        addition."""
        if len(content) < self.size or not self._pieces[-1].endswith(b"\n"):
            return None
        offset = 0
        for piece in self._pieces:
            if not content.startswith(piece, offset):
                return None
            offset += len(piece)
        return content[offset:]

    def appended(self, size: int, mtime_ns: int, added: bytes) -> _OnDisk:
        """This file once ``added`` was appended (its line set still to be grown)."""
        pieces = self._pieces if len(self._pieces) < self.MAX_PIECES else [b"".join(self._pieces)]
        after = _OnDisk(size, mtime_ns, [*pieces, added], self.lines)
        after._text_before = self._text
        return after


@dataclass(frozen=True)
class _Cached:
    """A project's asks as of ``head`` (the newest position of its ``ask…`` streams), with
    the indexes the agent's refusals look up; a write updates them by the asks it changed,
    copying none of the rest."""

    head: int
    asks: Layered[str, Ask]
    opened: OpenIndex
    dropped: DroppedIndex

    @classmethod
    def of(cls, head: int, asks: dict[str, Ask]) -> _Cached:
        return cls(head, Layered(asks), index_open(asks), index_dropped(asks))

    def after(self, head: int, changed: list[Ask]) -> _Cached:
        asks = self.asks.updated((ask.id, ask) for ask in changed)
        return _Cached(head, asks, self.opened.changed(changed), self.dropped.changed(changed))


@dataclass
class _Projection:
    """The ASKS.md the decision is made against."""

    #: The file on disk, when it is exactly the projection (new lines can be appended to it).
    disk: _OnDisk | None = None
    #: The projection's text when the disk does not hold it ("": there is nothing yet).
    rendered: str = ""
    warnings: list[str] = field(default_factory=list)
    events: list[EventSummary] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.disk.text if self.disk is not None else self.rendered

    def added_by(self, content: bytes) -> str | None:
        """What ``content`` adds after the file on disk, decoded, when ``content`` is that
        file with lines appended (``None`` otherwise)."""
        if self.disk is None:
            return None
        added = self.disk.added_by(content)
        return None if added is None else decode_utf8(added, offset=self.disk.size)


@dataclass(frozen=True)
class MigrationReport:
    opened: int
    dropped: int
    appended_events: int
    already_migrated: bool
    unparsed: list[UnparsedLine]
    plan: list[str]
    dry_run: bool
    #: How many legacy items were found (retractions plus ``[user]`` lines).
    found: int = 0


def _by_for(actor: Actor) -> str:
    return {Actor.USER: "user", Actor.EDITOR: "editor", Actor.FILE: "file"}.get(actor, "agent")


def _restamp(
    events: Iterable[Event], warnings: list[str], actor: Actor
) -> tuple[list[Event], list[str]]:
    """The agent deciders stamp ``by:agent``; a hand edit is stamped ``by:file`` instead, so
    it never reads as the user's consent and stays undoable (and the warnings that quote the
    appended lines say so)."""
    events = list(events)
    if actor is not Actor.FILE:
        return events, warnings
    restamped = [
        msgspec.structs.replace(e, by="file") if isinstance(e, AskClosed | AskReopened) else e
        for e in events
    ]
    for before, after in zip(events, restamped, strict=True):
        old, new = render_event(before), render_event(after)
        if old and new and old != new:
            warnings = [w.replace(old, new) for w in warnings]
    return restamped, warnings


def _represented(line: str, events: Sequence[Event]) -> bool:
    """Whether a line the person wrote was taken in as one of ``events`` (re-stamped)."""
    parsed = parse_line(line)
    if parsed is None:
        return False
    if parsed.kind == "open":
        return any(isinstance(e, AskOpened) and norm(e.text) == norm(parsed.text) for e in events)
    kind = "reopen" if parsed.kind == "reopen" else parsed.kind
    return any(
        (
            (isinstance(e, AskReopened) and kind == "reopen")
            or (isinstance(e, AskClosed) and e.kind == kind)
        )
        and e.ask_id == parsed.ask_id
        for e in events
    )


class AsksService:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._cache: dict[str, _Cached] = {}
        self._since_snapshot: dict[str, int] = {}
        self._on_disk: dict[str, _OnDisk] = {}

    # -- state ----------------------------------------------------------------------------

    def _asks(self, w: Reader, project: str) -> dict[str, Ask]:
        """Current asks from the materialised stream states; only streams that changed since
        the last call are read (O(change) in a long-running process)."""
        return self._cached(w, project).asks.merged

    def _cached(self, w: Reader, project: str) -> _Cached:
        head = w.prefix_head(project, ASKS_PREFIX)
        cached = self._cache.get(project)
        if cached is not None and cached.head == head:
            return cached
        after = cached.head if cached is not None else 0
        changed = [s for s in w.states(project, "ask:", after=after).values() if s is not None]
        if cached is None:
            fresh = _Cached.of(head, {ask.id: ask for ask in changed})
        else:
            fresh = cached.after(head, changed)
        if isinstance(w, Writer):  # cache only what committed: positions are reused otherwise
            w.on_commit(lambda: self._cache.__setitem__(project, fresh))
        else:
            self._cache[project] = fresh
        return fresh

    def current(self, r: Reader, project: str) -> dict[str, Ask]:
        """The project's asks (for the injection view), from materialised state."""
        return self._asks(r, project)

    def at(self, r: Reader, project: str, position: int) -> dict[str, Ask]:
        """The asks as of ``position``: the nearest snapshot at or before it plus the ask
        events after it (never the whole log)."""
        asks: dict[str, Ask] = {}
        after = 0
        at_snapshot = r.snapshot_position(project, ASKS_SNAPSHOT, position)
        if at_snapshot is not None:

            def load() -> dict[str, Ask]:
                found = r.snapshot(project, ASKS_SNAPSHOT, at_snapshot)
                assert found is not None
                return msgspec.json.decode(found[1], type=dict[str, Ask])

            after = at_snapshot
            asks = self.ctx.decoded((project, ASKS_SNAPSHOT, at_snapshot), load)
        events = r.read_project(
            project, from_position=after, until_position=position, stream_prefix="ask:"
        )
        return fold(((e.position, e.event) for e in events), asks)

    def _maybe_snapshot(self, w: Writer, project: str, appended: int) -> None:
        """Every :data:`ASKS_SNAPSHOT_EVERY` ask events, keep the folded asks for as-of reads."""
        since = self._since_snapshot.get(project)
        if since is None:
            head = w.prefix_head(project, "ask:")
            last = w.snapshot(project, ASKS_SNAPSHOT, head)
            since = w.count(
                project, "ask:", until_position=head, after_position=last[0] if last else 0
            )
        else:
            since += appended
        if since >= ASKS_SNAPSHOT_EVERY:
            head = w.prefix_head(project, "ask:")
            w.save_snapshot(
                project, ASKS_SNAPSHOT, head, msgspec.json.encode(self._asks(w, project))
            )
            lines = self._lines_at(w, project, head)
            w.save_snapshot(project, LINES_SNAPSHOT, head, str(lines).encode())
            since = 0
        counted = since
        w.on_commit(lambda: self._since_snapshot.__setitem__(project, counted))

    def _render_full(self, w: Reader, project: str) -> str:
        events = w.read_project(project, stream_prefix=ASKS_PREFIX)
        return render_file(e.event for e in events)

    def _append(
        self,
        w: Writer,
        project: str,
        events: Sequence[Event],
        actor: Actor,
        session: str | None,
    ) -> list[EventSummary]:
        appended = self.ctx.append_each(w, project, events, stream_of, actor, session)
        if events:
            self._maybe_snapshot(w, project, len(events))
        return appended

    # -- the projection -------------------------------------------------------------------

    def _current(
        self, w: Writer, project: Project, today: dt.date, proposal: bytes | None = None
    ) -> _Projection:
        """The projected ASKS.md, taking in whatever changed on disk since Orbital wrote it
        (unless the disk holds ``proposal``, the very write being made: ``orbital ingest``)."""
        pid, files = project.project_id, self.ctx.files(project)
        checkpoint = w.checkpoint(pid, ASKS_FILE)
        head = w.prefix_head(pid, ASKS_PREFIX)
        stat = files.stat(ASKS_FILE)
        if (
            checkpoint is not None
            and stat == (checkpoint.size, checkpoint.mtime_ns)
            and checkpoint.position == head
        ):
            known = self._on_disk.get(pid)
            if known is None or known.stat != stat:
                raw = files.read_bytes(ASKS_FILE) or b""
                known = _OnDisk.of(stat[0], stat[1], raw, raw.decode("utf-8"))
                self._on_disk[pid] = known  # what the committed checkpoint describes
            return _Projection(known)
        if stat is None:
            return _Projection(rendered=self._render_full(w, pid) if head else "")
        raw = files.read_bytes(ASKS_FILE) or b""
        if checkpoint is None and head == 0:
            return self._import(w, project, raw, today)
        expected = self._render_full(w, pid)
        if raw == proposal:
            return _Projection(rendered=expected)
        if raw == expected.encode():
            # Unchanged content (touched, or a git checkout of the same bytes).
            return _Projection(_OnDisk.of(len(raw), stat[1], raw, expected))
        if not raw.strip():
            # An editor's truncate-then-write caught half way: nothing to take in.
            return _Projection(rendered=expected)
        return self._hand_edit(w, project, expected, raw, today)

    def _import(self, w: Writer, project: Project, raw: bytes, today: dt.date) -> _Projection:
        """An ASKS.md that predates the store (upstream Orbital, another tool) becomes events,
        kept as written (its ``by:`` included): it is history, not a new claim."""
        text, replaced = decode_asks_bytes(raw)
        events: list[Event] = [*replaced, *parse_file(text, today)]
        summaries = self._append(w, project.project_id, events, Actor.SYSTEM, None)
        warnings = [f"ASKS.md: imported {len(summaries)} line(s) written before Orbital's store."]
        if replaced:
            lines = ", ".join(str(r.line) for r in replaced)
            warnings.append(
                f"ASKS.md: line(s) {lines} held bytes that are not UTF-8; they show as \ufffd "
                "and the original bytes are kept in history (ask.bytes_replaced)."
            )
        return _Projection(None, self._render_full(w, project.project_id), warnings, summaries)

    def _hand_edit(
        self, w: Writer, project: Project, expected: str, raw: bytes, today: dt.date
    ) -> _Projection:
        """A hand edit follows the append-only rules, attributed ``file``; if anything the
        person typed would not survive, their file is saved beside it first."""
        pid = project.project_id
        text, _ = decode_asks_bytes(raw)
        known = self._cached(w, pid)
        result = decide_agent_write(
            known.asks, expected, text, today, self.ctx.mint, known.dropped, known.opened
        )
        events, taken_warnings = _restamp(result.events, result.warnings, Actor.FILE)
        found = sha256(raw)
        detected = HandEditDetected(
            file=ASKS_KEY, expected_sha256=sha256(expected.encode()), found_sha256=found
        )
        w.append(pid, "file:asks", [detected], expected_version=None, actor=Actor.FILE)
        summaries = self._append(w, pid, [*events, *result.audit], Actor.FILE, None)
        new_text = self._render_full(w, pid)
        warnings = [
            f"ASKS.md was edited outside Orbital; took it in as a hand edit ({found[:12]})."
        ]
        warnings += taken_warnings
        kept = set(new_text.split("\n"))
        lost = [
            line
            for line in text.split("\n")
            if line.strip() and line not in kept and not _represented(line, events)
        ]
        copy = ""
        if lost:
            copy = self.ctx.conflict_copy(project, ASKS_FILE, raw)
            conflict = HandEditConflict(file=ASKS_KEY, conflict_copy=copy, found_sha256=found)
            w.append(pid, "file:asks", [conflict], expected_version=None, actor=Actor.FILE)
            warnings.append(
                f"ASKS.md: {len(lost)} line(s) of the hand edit are not ask events or were "
                f"refused; the edited file is saved as orbital/{copy} so nothing is lost."
            )
        return _Projection(None, new_text, warnings, summaries, [copy] if lost else [])

    def _project(
        self, w: Writer, project: Project, current: _Projection, lines: list[str]
    ) -> str | Callable[[], str]:
        """Bring ASKS.md up to date: append ``lines`` when the disk holds the projection, else
        write the whole file; record the checkpoint in the same transaction. Returns the
        file's text (a function building it, after an append)."""
        pid, files = project.project_id, self.ctx.files(project)
        previous = w.checkpoint(pid, ASKS_FILE)
        disk = current.disk
        content: str | Callable[[], str]
        if disk is not None and not lines:
            unchanged = previous is not None and (previous.size, previous.mtime_ns) == disk.stat
            checkpoint = previous if unchanged else Checkpoint(0, disk.size, disk.mtime_ns, None)
            content = lambda: disk.text  # noqa: E731 - built only if the caller reads it
        elif disk is not None and disk.size:
            w.on_rollback(lambda: files.truncate(ASKS_FILE, disk.size))
            added = "".join(f"{line}\n" for line in lines).encode()
            stamp = files.append(ASKS_FILE, added)
            checkpoint = Checkpoint(0, stamp.size, stamp.mtime_ns, stamp.sha256)
            after = disk.appended(stamp.size, stamp.mtime_ns, added)

            def publish() -> None:
                disk.lines.update(lines)
                self._on_disk[pid] = after

            w.on_commit(publish)
            content = lambda: after.text  # noqa: E731 - built only if the caller reads it
        else:
            text = append_lines(current.text, lines)
            if not text:
                return ""
            w.on_rollback(files.restorer(ASKS_FILE))
            data = text.encode()
            stamp = files.write(ASKS_FILE, data)
            checkpoint = Checkpoint(0, stamp.size, stamp.mtime_ns, stamp.sha256)
            written = _OnDisk.of(stamp.size, stamp.mtime_ns, data, text)
            w.on_commit(lambda: self._on_disk.__setitem__(pid, written))
            content = text
        assert checkpoint is not None
        position = w.prefix_head(pid, ASKS_PREFIX)
        w.set_checkpoint(pid, ASKS_FILE, dataclasses.replace(checkpoint, position=position))
        return content

    # -- use cases ------------------------------------------------------------------------

    def write(
        self, project: Project, content: bytes, actor: Actor, session: str | None
    ) -> WriteOutcome:
        """The agent's (or a hand edit's) full proposed ASKS.md: append-only rules (§6.5).

        A proposal that is the file on disk with lines appended is decided from those lines
        alone (:func:`decide_agent_append`): its cost is the size of the addition."""
        check_size(content)
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            current = self._current(w, project, today, content)
            known = self._cached(w, pid)
            added = current.added_by(content)
            result: Appended
            if current.disk is not None and added is not None:
                result = decide_agent_append(
                    known.asks,
                    current.disk.lines,
                    added,
                    today,
                    self.ctx.mint,
                    known.dropped,
                    known.opened,
                )
            else:
                result = decide_agent_write(
                    known.asks,
                    current.text,
                    decode_utf8(content),
                    today,
                    self.ctx.mint,
                    known.dropped,
                    known.opened,
                )
            events, warnings = _restamp(result.events, result.warnings, actor)
            summaries = self._append(w, pid, [*events, *result.audit], actor, session)
            lines = [line for line in map(render_event, events) if line is not None]
            text = self._project(w, project, current, lines)
        return WriteOutcome(text, current.warnings + warnings, current.events + summaries)

    def sync(self, project: Project) -> SyncReport:
        """Take in a changed ASKS.md and make the file match the store again (a project
        without asks gets the file with its format contract)."""
        with self.ctx.store.writing() as w:
            current = self._current(w, project, self.ctx.today(project))
            if current.disk is None and not current.rendered:
                current.rendered = render_file([])
            self._project(w, project, current, [])
        return SyncReport(current.warnings, current.events, current.conflicts)

    def read(self, project: Project, *, at: int | None = None) -> str:
        """ASKS.md as Orbital renders it now, or as of position ``at``.

        The log is append-only and renders one line per event in position order, so the file
        as of any position is a prefix of today's: count the lines, cut, no replay."""
        pid, files = project.project_id, self.ctx.files(project)
        with self.ctx.store.reader() as r:
            head = r.prefix_head(pid, ASKS_PREFIX)
            checkpoint = r.checkpoint(pid, ASKS_FILE)
            stat = files.stat(ASKS_FILE)
            clean = (
                checkpoint is not None
                and checkpoint.position == head
                and stat == (checkpoint.size, checkpoint.mtime_ns)
            )
            raw = files.read_bytes(ASKS_FILE) if clean else None
            text = raw.decode("utf-8") if raw is not None else self._render_full(r, pid)
            if at is None or at >= head:
                return text
            lines = self._lines_at(r, pid, at)
        return "".join(text.splitlines(keepends=True)[: lines + 1])

    def _lines_at(self, r: Reader, project: str, position: int) -> int:
        """How many lines ASKS.md had (header aside) as of ``position``: the count kept with
        the nearest snapshot plus the rendered events since."""
        snap = r.snapshot(project, LINES_SNAPSHOT, position)
        after, lines = (snap[0], int(snap[1])) if snap is not None else (0, 0)
        return lines + r.count(
            project,
            ASKS_PREFIX,
            after_position=after,
            until_position=position,
            types=RENDERED_TYPES,
        )

    def unmerged(self, project: Project) -> list[str]:
        """``["ASKS.md"]`` when the file on disk differs from what Orbital wrote."""
        pid, files = project.project_id, self.ctx.files(project)
        with self.ctx.store.reader() as r:
            checkpoint, stat = r.checkpoint(pid, ASKS_FILE), files.stat(ASKS_FILE)
            if stat is None or (
                checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns)
            ):
                return []
            expected = self._render_full(r, pid).encode()
        return [] if files.read_bytes(ASKS_FILE) == expected else [ASKS_FILE]

    def regenerate(self, project: Project) -> list[str]:
        """Rewrite ASKS.md from events; an unmerged edit is first saved beside it."""
        pid, files = project.project_id, self.ctx.files(project)
        copies = []
        with self.ctx.store.writing() as w:
            if self.unmerged(project):
                raw = files.read_bytes(ASKS_FILE) or b""
                copy = self.ctx.conflict_copy(project, ASKS_FILE, raw)
                conflict = HandEditConflict(
                    file="asks", conflict_copy=copy, found_sha256=sha256(raw)
                )
                w.append(pid, "file:asks", [conflict], expected_version=None, actor=Actor.FILE)
                copies.append(copy)
            self._project(w, project, _Projection(rendered=self._render_full(w, pid)), [])
        return copies

    def listing(self, project: Project, state: StateFilter = "open") -> list[Ask]:
        with self.ctx.store.reader() as r:
            asks = self._asks(r, project.project_id)
        chosen = [a for a in asks.values() if state == "all" or a.state == state]
        return sorted(chosen, key=lambda a: (a.opened, a.seq))

    def _act(
        self, project: Project, decide: DecideFn, actor: Actor, session: str | None
    ) -> WriteOutcome:
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            current = self._current(w, project, today)
            events, audit, warnings = decide(self._cached(w, pid), today)
            events, warnings = _restamp(events, warnings, actor)
            summaries = self._append(w, pid, [*events, *audit], actor, session)
            lines = [line for line in map(render_event, events) if line is not None]
            text = self._project(w, project, current, lines)
        return WriteOutcome(text, current.warnings + warnings, current.events + summaries)

    def open(
        self,
        project: Project,
        text: str,
        due: str | None,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        """Open an ask. The agent path refuses duplicates and dropped texts (exact or fuzzy);
        the person may open what they like, except an exact duplicate of an open ask."""
        check_request(text, due)

        def decide(known: _Cached, today: dt.date) -> Decided:
            asks, opened = known.asks, known.opened
            if actor is Actor.AGENT:
                d = decide_agent_open(
                    asks, text, due, today, self.ctx.mint, None, known.dropped, opened
                )
                return d.events, d.audit, d.warnings
            event = decide_open(asks, text, due, today, self.ctx.mint, opened)
            if event is None:
                return [], [], ["ASKS.md: an open ask already has that text — not added again."]
            return [event], [], []

        return self._act(project, decide, actor, session)

    def change(
        self,
        project: Project,
        ask_id: str,
        kind: CloseKind | Literal["reopen"],
        note: str,
        actor: Actor,
        session: str | None = None,
    ) -> WriteOutcome:
        """Close (done/dropped) or reopen an ask. Unknown id: :class:`UnknownAsk`.
        Closing a closed ask or reopening an open one changes nothing."""
        ask_id = ask_id.strip().lower()

        def decide(known: _Cached, today: dt.date) -> Decided:
            asks = known.asks
            if ask_id not in asks:
                raise UnknownAsk(ask_id)
            if actor is Actor.AGENT:
                d = decide_agent_change(asks, kind, ask_id, note, today)
                return d.events, d.audit, d.warnings
            event = decide_change(asks, kind, ask_id, today, by=_by_for(actor), note=note)
            if event is None:
                state: AskState = asks[ask_id].state
                return [], [], [f"ASKS.md: [{ask_id}] is already {state} — nothing changed."]
            return [event], [], []

        return self._act(project, decide, actor, session)

    def take_legacy_flags(
        self,
        w: Writer,
        project: Project,
        state_text: str,
        today: dt.date,
        actor: Actor,
        session: str | None,
    ) -> tuple[str, list[EventSummary], list[str]]:
        """``[user]`` bullets written into PROJECT_STATE become asks (reference §6.7), in the
        caller's transaction; returns the state text without them. Never refuses the write."""
        remaining, flags = extract_legacy_flags(state_text)
        if not flags:
            return state_text, [], []
        pid = project.project_id
        asks = self._asks(w, pid)
        by_text = {norm(a.text): a for a in asks.values()}
        warnings: list[str] = []
        fresh: list[LegacyFlag] = []
        for flag in flags:
            known = by_text.get(norm(flag.text))
            if known is None:
                fresh.append(flag)
                continue
            warnings.append(
                f'Removed [user] line "{flag.text[:60]}" from PROJECT_STATE — it is already '
                f"ask [{known.id}] ({known.state}) in orbital/ASKS.md."
            )
        plan = plan_migration(asks, [], fresh, today, self.ctx.mint)
        events = [event for _, batch in plan for event in batch]
        if not events:
            return remaining, [], warnings
        current = self._current(w, project, today)
        summaries = self._append(w, pid, events, actor, session)
        lines = [line for line in map(render_event, events) if line is not None]
        self._project(w, project, current, lines)
        listed = "; ".join(
            f"[{e.ask_id}] {e.text[:60]}" for e in events if isinstance(e, AskOpened)
        )
        warnings.append(
            f"Moved {len(events)} [user] line(s) out of PROJECT_STATE into orbital/ASKS.md as "
            f"open asks: {listed}. Things waiting on the user live in ASKS.md now (see its "
            "header)."
        )
        return remaining, summaries, warnings

    # -- legacy migration ------------------------------------------------------------------

    def migrate_retractions(
        self, project: Project, path: Path | None, *, dry_run: bool, progress: bool
    ) -> MigrationReport:
        """Legacy ``retractions.md`` and ``[user]`` lines of PROJECT_STATE.md into events.

        Idempotent (planning skips anything already an ask), resumable (each chunk of items is
        one transaction with its progress markers), and it never modifies the legacy files.
        """
        files = self.ctx.files(project)
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
        pid = project.project_id
        today = self.ctx.today(project)
        with self.ctx.store.writing() as w:
            plan = plan_migration(self._asks(w, pid), retractions, flags, today, self.ctx.mint)
        described = [
            f"{stream}: " + "; ".join(filter(None, (render_event(e) for e in events)))
            for stream, events in plan
        ]
        opened = sum(1 for _, events in plan for e in events if isinstance(e, AskOpened))
        dropped = sum(1 for _, events in plan for e in events if isinstance(e, AskClosed))
        found = len(retractions) + len(flags)
        if dry_run or not plan:
            return MigrationReport(
                opened, dropped, 0, not plan, unparsed, described, dry_run, found
            )
        appended = 0
        chunks = [plan[i : i + 500] for i in range(0, len(plan), 500)]
        bar = tqdm(total=len(plan), unit="item", disable=not progress, leave=False)
        try:
            for chunk in chunks:
                with self.ctx.store.writing() as w:
                    current = self._current(w, project, today)
                    asks = self._asks(w, pid)
                    lines: list[str] = []
                    for stream, events in chunk:
                        ask_id = stream.split(":", 1)[1]
                        if ask_id in asks:
                            continue  # a resumed run: this item landed before the crash
                        w.append(pid, stream, events, expected_version=0, actor=Actor.SYSTEM)
                        first = events[0]
                        legacy = first.legacy if isinstance(first, AskOpened) else None
                        key = f"{legacy.legacy_id}@{legacy.line}" if legacy else ask_id
                        marker = LegacyItemMigrated(
                            source=str(source), legacy_key=key, ask_id=ask_id
                        )
                        w.append(
                            pid,
                            f"migration:{source.name}",
                            [marker],
                            expected_version=None,
                            actor=Actor.SYSTEM,
                        )
                        lines += [line for e in events if (line := render_event(e))]
                        appended += len(events) + 1
                    self._maybe_snapshot(w, pid, len(lines))
                    self._project(w, project, current, lines)
                bar.update(len(chunk))
            with self.ctx.store.writing() as w:
                done = MigrationCompleted(source=str(source), items=len(plan))
                w.append(
                    pid,
                    f"migration:{source.name}",
                    [done],
                    expected_version=None,
                    actor=Actor.SYSTEM,
                )
        finally:
            bar.close()
        return MigrationReport(opened, dropped, appended, False, unparsed, described, False, found)
