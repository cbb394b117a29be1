"""The unit of work: every use case is one of these, one write transaction.

A use case opens a unit over a project with its actor (and session), reads the state it
decides on, calls its pure decider with that state, the actor and its own inputs, and appends
the events it got back. The unit does the rest, the same way for every use case:

1. **load** — on first read, from the in-process cache, else snapshot + the events after it;
2. **take in hand edits** — files changed on disk since Orbital wrote them become events
   (actor ``file``) before anything is decided on that state (:mod:`._hand_edits`);
3. **append** — each event to its stream, inside the store's single write lock (so no
   decision is made on a stale state and no version check is needed);
4. **write projections** — when the block ends without error: the memory files that changed
   (each archive before its live file) and ASKS.md (the new lines appended), each with its
   checkpoint, in the same transaction; an asks snapshot when due;
5. **commit** — in-process caches are published on commit only, and a file written in a
   transaction that does not commit is put back.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from orbital.catalogue import (
    EDITOR_STREAM,
    ENTRY_PREFIX,
    MEMORY_FILES,
    MEMORY_PREFIXES,
    file_stream,
    stream_id,
)
from orbital.domain.asks_open import is_held
from orbital.domain.budgets import TokenCounter
from orbital.domain.entries import stream_for
from orbital.domain.secrets import Found, locate, redacted, refuse_secrets
from orbital.errors import PlantedJournal
from orbital.events import Actor, Event, event_type
from orbital.events.asks import ASK_EVENTS
from orbital.events.asks import stream_of as ask_stream
from orbital.events.editor import EDITOR_EVENTS
from orbital.events.files import HandEditConflict
from orbital.files import FileStamp, HeldGateway, projected_file, sha256
from orbital.grammar.asks_md import render_lines
from orbital.grammar.text import without_nul
from orbital.project import Project
from orbital.service._asks_file import AsksFile, Projection
from orbital.service._asks_state import ASKS_PREFIX, AsksNow, AsksState
from orbital.service._context import Context, EventSummary, HeldLine
from orbital.service._memory_state import MEMORY_KEYS, Memory, MemoryFiles
from orbital.service._stream_keys import catch_up
from orbital.store import Writer
from projections import Heads
from projections.files import render_asks_file, render_memory_file
from projections.history import summarize

if TYPE_CHECKING:
    from orbital.service._meanings import KeptMeanings


class Intake(NamedTuple):
    """How a unit takes in what changed on disk before it decides (step 2): given to
    :class:`Units` by the service, since those functions (:mod:`._hand_edits`) work on a unit
    and would otherwise be imported by the module that defines it."""

    #: Each memory file changed on disk becomes events.
    memory: Callable[[Unit], None]
    #: ASKS.md taken in (the bytes of the write being made, if any: not a hand edit).
    asks: Callable[[Unit, bytes | None], Projection]


def stream_of(event: Event) -> str:
    """The stream an event is appended to: ``ask:<id>`` or ``asks``, ``editor``, else
    ``entry:<id>`` or ``file:<key>``."""
    if isinstance(event, ASK_EVENTS):
        return ask_stream(event)
    if isinstance(event, EDITOR_EVENTS):
        return EDITOR_STREAM
    return stream_for(event)


class Unit:
    """One use case's transaction over one project: state to decide on, appends, and the
    projections written when it ends."""

    def __init__(
        self,
        units: Units,
        w: Writer,
        project: Project,
        actor: Actor,
        session: str | None,
        proposals: Mapping[str, bytes],
        held: str | None = None,
    ) -> None:
        self.units, self.w, self.project = units, w, project
        #: A file whose new bytes are held back for the agent's own tool to write.
        self.held = (
            None
            if held is None
            else HeldGateway(project.root, held, units.ctx.files(project).journal)
        )
        #: What the writer is told besides the result (a NUL removed from the session id).
        self.warnings: list[str] = []
        if session is not None:
            session, self.warnings = without_nul(session, "the session id")
        self.actor, self.session = actor, session
        #: The writes being made (file key -> bytes): the disk holding one is no hand edit.
        self.proposals = proposals
        self.today: dt.date = units.ctx.today(project)
        self.mint: Callable[[], str] = units.ctx.mint
        self.events: list[EventSummary] = []
        #: The command's decision changed nothing and its warnings say why (see :meth:`decided`).
        self.refused = False
        #: Lines held, not appended: they possibly repeat what the person dropped or retracted.
        self.held_lines: list[HeldLine] = []
        self.conflicts: list[str] = []
        #: Memory files to write again whatever changed (taken in, regenerated).
        self.rewrite: set[str] = set()
        #: Per projected file, what the unit found on disk and decided on (SHA-256 or
        #: ``ABSENT``): a file found otherwise when written is a save, never overwritten.
        self.seen: dict[str, str | None] = {}
        #: Projected files left alone, not being plain files (a symlink): name -> why. One
        #: such file blocks only itself; a write to it is refused.
        self.blocked: dict[str, str] = {}
        self._before: Memory | None = None
        self._memory: Memory | None = None
        #: The entry ids read by :meth:`ever_used` (at the entry head then); the entry
        #: streams this unit appended to, and the position of the last such event.
        self._ever_used: tuple[int, frozenset[str]] | None = None
        self._entry_ids: set[str] = set()
        self._entry_head = 0
        #: Memory events appended since :attr:`memory` was folded (position, event).
        self._folding: list[tuple[int, Event]] = []
        self._asks_file: Projection | None = None
        self._lines: list[str] = []
        self._ask_events = 0
        self._restore = self._create = False
        #: After the unit ended: the memory files and the ASKS.md text (or its builder).
        self.memory_after: Memory | None = None
        #: With :attr:`memory_after`: the newest memory event then, what its texts are of.
        self.memory_head: tuple[int, str] | None = None
        #: The live memory files' texts as the unit wrote them.
        self._texts: dict[str, str] = {}
        self.asks_text: str | Callable[[], str] = ""
        #: What the memory files held when the unit first checked a text for secrets.
        self._known: str | None = None

    @property
    def pid(self) -> str:
        return self.project.project_id

    # -- state to decide on ---------------------------------------------------------------

    @property
    def memory(self) -> Memory:
        """The memory files now, hand edits of them taken in first."""
        if self._before is None:
            self._before = self._memory = self._load_memory()
            self.units.intake.memory(self)
        if self._memory is None:
            self._memory = self._load_memory()
        elif self._folding:
            folding, self._folding = self._folding, []
            self._memory = self.units.memory.advanced(self.w, self.pid, self._memory, folding)
        return self._memory

    def _load_memory(self) -> Memory:
        self._folding = []  # the load reads them
        return self.units.memory.load(self.w, self.pid)

    @property
    def asks(self) -> AsksNow:
        """The asks now, a hand edit of ASKS.md taken in first."""
        self.asks_file  # noqa: B018 - taking the file in is the point
        return self.units.asks.now(self.w, self.pid)

    @property
    def asks_file(self) -> Projection:
        """The ASKS.md the asks decision is made against (taken in on first use)."""
        if self._asks_file is None:
            self._asks_file = self.units.intake.asks(self, self.proposals.get("asks"))
        return self._asks_file

    def ever_used(self) -> frozenset[str]:
        """Every entry id the project ever had (a new id never reuses one): kept per project
        at the entry streams' head (any entry event moves it), so a write reads every entry
        stream's name only when another process added entries since."""
        head = self.w.prefix_head(self.pid, ENTRY_PREFIX)
        known = self.units.entry_ids.get(self.pid)
        if known is None or known[0] != head:
            names = self.w.stream_names(self.pid, ENTRY_PREFIX)
            known = (head, frozenset(stream_id(stream) for stream in names))
        if self._ever_used is None:
            self._ever_used = known
        return known[1]

    def _keep_ever_used(self) -> None:
        """Keep the entry ids read, with the ones this unit added, for the next unit: on
        commit, and only when no entry event but this unit's came after the read."""
        if self._ever_used is None:
            return
        head, ids = self._ever_used
        ids |= self._entry_ids
        now = self.w.prefix_head(self.pid, ENTRY_PREFIX)
        if now == max(head, self._entry_head):
            self.w.on_commit(lambda: self.units.entry_ids.__setitem__(self.pid, (now, ids)))

    # -- appends --------------------------------------------------------------------------

    def append(
        self,
        events: Sequence[Event],
        *,
        actor: Actor | None = None,
        stream: str | None = None,
        expected_version: int | None = None,
        session: str | None = None,
    ) -> list[EventSummary]:
        """Append the decided events, each to its stream (or all to ``stream``, as one batch
        when ``expected_version`` is given: 0 for a stream that must be new), as the unit's
        actor and session (or as ``actor``, in ``session`` if given: what the unit itself
        takes in). An ask event's line goes to ASKS.md when the unit ends."""
        if any(isinstance(e, ASK_EVENTS) for e in events):
            self.asks_file  # noqa: B018 - ASKS.md is taken in before the asks change
        appended = self._append(events, actor, stream, expected_version, session)
        self._lines += render_lines(events)
        return appended

    def decided(
        self, events: Sequence[Event], audit: Sequence[Event], warnings: Sequence[str]
    ) -> None:
        """Append a decision's events and its audit events (a refusal recorded), and keep its
        warnings. A decision that changes nothing and warns is the command refused: what the
        interfaces report as a refusal (exit 4, ``"refused": true``, a tool error), unless it
        held a line: the writer may write that again naming what it differs from."""
        self.append([*events, *audit])
        self.warnings += warnings
        held = [HeldLine(e.text, e.ask_id or "") for e in audit if is_held(e)]
        self.held_lines += held
        self.refused = bool(warnings) and not events and not held

    def record(
        self, events: Sequence[Event], *, actor: Actor, session: str | None = None
    ) -> list[EventSummary]:
        """:meth:`append` without a line for ASKS.md: for the events of a take-in of ASKS.md,
        which the projection it renders afterwards already holds."""
        return self._append(events, actor, None, None, session)

    def _append(
        self,
        events: Sequence[Event],
        actor: Actor | None,
        stream: str | None,
        expected_version: int | None,
        session: str | None = None,
    ) -> list[EventSummary]:
        refuse_secrets(events, self._known_text, self._where)
        if expected_version is not None and stream is not None:
            batches = [(stream, list(events))]
        else:
            batches = [(stream or stream_of(e), [e]) for e in events]
        appended = []
        for target, batch in batches:
            result = self.w.append(
                self.pid,
                target,
                batch,
                expected_version=expected_version,
                actor=actor or self.actor,
                session=self.session if actor is None else session,
            )
            appended += [
                EventSummary(position, target, event_type(type(event)), summarize(event))
                for position, event in zip(result.positions, batch, strict=True)
            ]
            if target.startswith(ENTRY_PREFIX):
                self._entry_ids.add(stream_id(target))
                self._entry_head = result.positions[-1]
            if target.startswith(ASKS_PREFIX):
                self._ask_events += len(batch)
            elif target.startswith(MEMORY_PREFIXES):
                self._folding += zip(result.positions, batch, strict=True)
        self.events += appended
        return appended

    def _known_text(self) -> str:
        """What the memory files hold (entries, pointers, layout, raw), as one string: a
        secret found in it is not new text."""
        if self._known is None:
            texts: list[str] = []
            files = self._memory.files.values() if self._memory is not None else ()
            for state in files:
                texts += [e.text for e in state.entries.values()]
                texts += [e.pointer for e in state.entries.values()]
                texts += [slot.text for slot in state.layout]
                texts.append(state.raw or "")
            self._known = "\n".join(texts)
        return self._known

    def _where(self, event: Event, found: Found) -> tuple[str, int]:
        """Where the writer finds a refused line: in the file it wrote, else in the text."""
        for key, raw in self.proposals.items():
            n = locate(found, raw.decode("utf-8", "replace"))
            if n is not None:
                return f"orbital/{MEMORY_FILES.get(key, key)}", n
        if isinstance(event, ASK_EVENTS):
            return "the ask's text", found.line
        return "the text", found.line

    def save_aside(self, name: str, key: str, raw: bytes, base: int = 0) -> HandEditConflict:
        """Keep a person's edited file beside its projection (under a name no other copy
        has) and return the event that records it, with the text itself: the store keeps
        every conflict's text, whatever becomes of the copy on disk. A line that looks like a
        secret is left out of both (a note says which): the door that keeps it out of the
        store keeps it out of the project folder too."""
        found_sha256 = sha256(raw)
        try:
            left, found = redacted(raw.decode("utf-8"))
        except UnicodeDecodeError:
            found = ()
        if found:
            raw = left.encode()
        copy = self.units.ctx.conflict_copy(self.project, name, raw)
        self.conflicts.append(copy)
        text, _ = without_nul(raw.decode("utf-8", errors="replace"), copy)
        return HandEditConflict(
            file=key, conflict_copy=copy, found_sha256=found_sha256, base=base, text=text
        )

    def displaced(self, name: str, kept: bytes | None) -> None:
        """A save found where a projection was to be written: it stayed on disk (taken in
        by the next sync; the watcher sees it) or, when ``kept``, is saved as a copy."""
        if kept is None:
            self.warnings.append(
                f"{name} was saved while Orbital was writing it; the save is left on disk "
                "and taken in by the next sync."
            )
            return
        self.keep_copy(name, kept, "was saved while Orbital was writing it")

    def keep_copy(self, name: str, raw: bytes, why: str) -> None:
        """Keep ``raw`` of projected file ``name`` as a conflict copy, recorded and listed."""
        conflict = self.save_aside(name, projected_file(name).key, raw)
        key, copy = conflict.file, conflict.conflict_copy
        result = self.w.append(
            self.pid, file_stream(key), [conflict], expected_version=None, actor=Actor.FILE
        )
        self._folding += zip(result.positions, [conflict], strict=True)
        self.warnings.append(
            f"{name} {why}; that version is saved as orbital/{copy} so nothing is lost."
        )

    def recover(self) -> None:
        """Finish what a crashed writer left in ``orbital/`` before anything is read: an
        uncommitted projection is put back, temp files are removed (:meth:`FileGateway.recover`)."""
        files = self.units.ctx.files(self.project)

        def committed(name: str) -> FileStamp | None:
            found = self.w.checkpoint(self.project, name)
            return None if found is None else FileStamp(found.size, found.mtime_ns, found.sha256)

        for name, raw in files.recover(committed):
            self.keep_copy(name, raw, "was found beside an unfinished write after a crash")

    def text_after(self, key: str) -> str:
        """Memory file ``key`` as it stands after the unit (rendered once)."""
        assert self.memory_after is not None  # set when the unit ended
        text = self._texts.get(key)
        return text if text is not None else render_memory_file(self.memory_after.files[key])

    # -- what the projections become -----------------------------------------------------

    def refuse_planted(self) -> None:
        """Refuse to go on beside a name that looks like a write's journal but is no record
        of Orbital's (``init`` and ``sync``: a checkout that may hold what git brought)."""
        planted = self.units.ctx.files(self.project).planted()
        if planted:
            raise PlantedJournal(planted)

    def sync_memory(self, *, create: bool = False) -> None:
        """Take the memory files in and write each missing or stale one again (``create``:
        also the files never written yet, with their format contracts)."""
        self.memory  # noqa: B018 - taking the files in is the point
        self._restore, self._create = True, create

    def sync_asks(self) -> None:
        """Take ASKS.md in and write it again if missing or stale (a project without asks
        gets the file with its format contract)."""
        if self.asks_file.disk is None and not self.asks_file.rendered:
            self.asks_file.rendered = render_asks_file([])

    def rewrite_all(self) -> None:
        """Write every projection again from events, whatever is on disk (nothing taken in)."""
        self._before, self._memory, self._folding = self.units.memory.empty(), None, []
        self.rewrite = set(MEMORY_KEYS)
        self._asks_file = Projection(rendered=self.units.asks.render(self.w, self.pid))

    def finish(self) -> None:
        """Write the projections the unit changed, with their checkpoints (step 4)."""
        self._keep_ever_used()
        if self._before is not None:
            after = self.memory
            memory = self.units.memory
            memory.write_files(
                self.w,
                self.project,
                self._before,
                after,
                self.rewrite,
                seen=self.seen,
                displaced=self.displaced,
                files=self.held,
                texts=self._texts,
                blocked=self.blocked,
            )
            if self._restore:
                memory.write_missing(
                    self.w,
                    self.project,
                    after,
                    new_too=self._create,
                    displaced=self.displaced,
                    files=self.held,
                    blocked=self.blocked,
                )
            self.warnings += [
                f"{name} was neither read nor written: {why}; the other files are written as "
                "usual. Make it a plain file again (or remove it) and run `orbital sync`."
                for name, why in self.blocked.items()
            ]
            self.memory_after = after
            self.memory_head = Heads(self.w.category_heads(self.pid)).newest(*MEMORY_PREFIXES)
        catch_up(self.w, self.pid)  # the asks' keys, current when this commits
        if self._ask_events:
            self.units.asks.maybe_snapshot(self.w, self.pid, self._ask_events)
        if self._asks_file is not None:
            self.asks_text = self.units.asks_file.write(
                self.w,
                self.project,
                self._asks_file,
                self._lines,
                self.displaced,
                self.held,
            )


class Units:
    """Opens units of work; holds the state loaders and projections they share."""

    def __init__(self, ctx: Context, intake: Intake, count: TokenCounter) -> None:
        self.ctx, self.intake = ctx, intake
        #: Tokens in a text (the service's counter), for the rules a write is decided by.
        self.count = count
        self.memory = MemoryFiles(ctx)
        self.asks = AsksState(ctx)
        self.asks_file = AsksFile(ctx, self.asks)
        #: Per project: the entry streams' head and every entry id up to it (committed).
        self.entry_ids: dict[str, tuple[int, frozenset[str]]] = {}
        #: Entries' meanings kept between processes (:meth:`Orbital.keep_caches`).
        self.meanings: KeptMeanings | None = None

    @contextmanager
    def begin(
        self,
        project: Project,
        actor: Actor,
        *,
        session: str | None = None,
        proposals: Mapping[str, bytes] | None = None,
        held: str | None = None,
    ) -> Iterator[Unit]:
        """A unit in its own write transaction, committed when the block ends (``proposals``:
        the writes it makes, file key -> bytes; ``held``: a projected file whose new bytes are
        kept in ``Unit.held`` instead of written)."""
        with (
            self.ctx.store.writing() as w,
            self.over(w, project, actor, session, proposals, held) as u,
        ):
            yield u

    @contextmanager
    def over(
        self,
        w: Writer,
        project: Project,
        actor: Actor,
        session: str | None = None,
        proposals: Mapping[str, bytes] | None = None,
        held: str | None = None,
    ) -> Iterator[Unit]:
        """A unit inside the transaction ``w`` (which registered the project, say)."""
        unit = Unit(self, w, project, actor, session, proposals or {}, held)
        unit.recover()
        yield unit
        unit.finish()
