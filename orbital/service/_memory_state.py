"""The four memory files (DECISIONS, LESSONS, PROJECT_STATE, INDEX) as folded state, and
their projections (live file and archive).

State is never rebuilt from the whole log: the folded files are kept in a snapshot row every
:data:`SNAPSHOT_EVERY` events and in memory between calls, so a load folds only the few events
recorded since.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence

import msgspec

from orbital.catalogue import ARCHIVE_FILES, LAYER1_KEYS, MEMORY_FILES, MEMORY_PREFIXES
from orbital.domain.entries import fold_positions
from orbital.errors import UnsafePath
from orbital.events import Event
from orbital.files import ABSENT, FileGateway
from orbital.grammar.model import FileState
from orbital.grammar.text import same_text, uses_crlf, with_line_endings
from orbital.project import Project
from orbital.service._context import Context
from orbital.service._held import memory_not_landed
from orbital.store import Checkpoint, Reader, Writer
from projections.files import render_archive_file, render_memory_file

MEMORY_KEYS = LAYER1_KEYS
SNAPSHOT_NAME = "memory"
#: Fold at most this many events on a cold load before a new snapshot is written.
SNAPSHOT_EVERY = 64
#: How many committed states per project are kept for whole-file writes based on them.
RECENT_STATES = 16
#: How many of the newest written versions a hand edit is compared with to find its base.
MERGE_BASES = 8
#: Told of a save found where Orbital meant to write (file name, bytes to keep as a conflict
#: copy, or None when the save stayed on disk to be taken in).
Displaced = Callable[[str, bytes | None], None]


class _Snapshot(msgspec.Struct):
    files: dict[str, FileState]
    #: Per file: the position of the last event that changed it.
    changed_at: dict[str, int]


class Memory(msgspec.Struct, frozen=True):
    """The four folded memory files as of ``position`` (the newest entry/file event)."""

    position: int
    files: Mapping[str, FileState]
    changed_at: Mapping[str, int]
    #: Events folded since the snapshot this state was built from.
    folded: int = 0


class MemoryFiles:
    """Loads the memory files' state and writes their projections; keeps the last committed
    state per project."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._cache: dict[str, Memory] = {}
        #: The last few committed states per project, newest last: the versions writers read.
        self._recent: dict[str, collections.deque[Memory]] = {}

    def forget(self, pid: str) -> None:
        """Drop the project's states kept in this process (after a purge)."""
        self._cache.pop(pid, None)
        self._recent.pop(pid, None)

    def head(self, r: Reader, pid: str) -> int:
        return max(r.prefix_head(pid, p) for p in MEMORY_PREFIXES)

    def empty(self) -> Memory:
        return Memory(0, {k: FileState(key=k) for k in MEMORY_KEYS}, dict.fromkeys(MEMORY_KEYS, 0))

    @staticmethod
    def _fold(base: Memory, events: Sequence[tuple[int, Event]], head: int) -> Memory:
        """``base`` with ``events`` (position, event) folded in."""
        files = dict(base.files)
        changed = dict(base.changed_at)
        for key in MEMORY_KEYS:
            files[key], at = fold_positions(key, events, files[key])
            if at:
                changed[key] = at
        return Memory(max(head, base.position), files, changed, base.folded + len(events))

    def load(
        self, r: Reader, pid: str, *, at: int | None = None, head: int | None = None
    ) -> Memory:
        """The memory files now (``at`` None) or as of position ``at``: the nearest state
        at or before the target (the in-process cache or a snapshot) plus the events after.
        ``head``: the memory head now when the caller read it already
        (:class:`projections.Heads`)."""
        if at is not None:
            head = at
        elif head is None:
            head = self.head(r, pid)
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
            base = self.empty()
        events = r.read_project(
            pid, from_position=base.position, until_position=head, stream_prefix=MEMORY_PREFIXES
        )
        memory = self._fold(base, [(e.position, e.event) for e in events], head)
        if at is not None:
            return memory
        if isinstance(r, Writer):
            return self._folded_in(r, pid, memory)
        self._remember(pid, memory)
        return memory

    def advanced(
        self, w: Writer, pid: str, memory: Memory, events: Sequence[tuple[int, Event]]
    ) -> Memory:
        """``memory`` (loaded in ``w``) with the memory events ``w`` just appended (position,
        event) folded in: what a load would give now, without reading them back."""
        return self._folded_in(w, pid, self._fold(memory, events, events[-1][0]))

    def _folded_in(self, w: Writer, pid: str, memory: Memory) -> Memory:
        """A state folded in a write transaction: snapshot when due, cached on commit only
        (positions are reused after a rollback)."""
        if memory.folded >= SNAPSHOT_EVERY:
            self._save(w, pid, memory)
            memory = msgspec.structs.replace(memory, folded=0)
        w.on_commit(lambda: self._remember(pid, memory))
        return memory

    def _remember(self, pid: str, memory: Memory) -> None:
        self._cache[pid] = memory
        recent = self._recent.setdefault(pid, collections.deque(maxlen=RECENT_STATES))
        if not recent or recent[-1].position < memory.position:
            recent.append(memory)

    def file_at(self, r: Reader, pid: str, key: str, at: int) -> FileState:
        """File ``key`` as of position ``at``: from a recently committed state that already
        held it (the version a concurrent writer read moments ago), else loaded."""
        for memory in reversed(self._recent.get(pid, ())):
            if memory.changed_at[key] <= at <= memory.position:
                return memory.files[key]
        return self.load(r, pid, at=at).files[key]

    @staticmethod
    def _snapshot_state(r: Reader, pid: str, position: int) -> bytes:
        found = r.snapshot(pid, SNAPSHOT_NAME, position)
        assert found is not None and found[0] == position
        return found[1]

    def _save(self, w: Writer, pid: str, memory: Memory) -> None:
        state = _Snapshot(dict(memory.files), dict(memory.changed_at))
        w.save_snapshot(pid, SNAPSHOT_NAME, memory.position, msgspec.json.encode(state))

    # -- projections ----------------------------------------------------------------------

    def write_files(
        self,
        w: Writer,
        project: Project,
        before: Memory,
        after: Memory,
        rewrite: set[str] | frozenset[str] = frozenset(),
        *,
        seen: Mapping[str, str | None] | None = None,
        displaced: Displaced | None = None,
        files: FileGateway | None = None,
        texts: dict[str, str] | None = None,
        blocked: dict[str, str] | None = None,
    ) -> None:
        """Write what changed: each archive before its live file (over budget beats losing an
        entry), and a checkpoint per file in the same transaction (through ``files``: the
        project's gateway unless one holds a file back); ``texts`` gets each live file's
        text as written (the caller's answer need not render it again). A file this checkout
        last wrote before a change another checkout made is written too (its checkpoint is
        behind). ``blocked``: files that are not plain files (a symlink) are left alone and
        named there, instead of refusing every write (see :meth:`write`)."""
        files = files or self.ctx.files(project)
        for key in MEMORY_KEYS:
            archive_name = ARCHIVE_FILES.get(key)
            if archive_name is not None:
                text = render_archive_file(after.files[key])
                # A file's state left as it was renders as it did: rendered once, not twice.
                changed = after.files[key] is not before.files[key] and text != (
                    render_archive_file(before.files[key])
                )
                # An empty archive is never written, so its checkpoint is not even read.
                if text and (
                    changed or _behind(w.checkpoint(project, archive_name), after.changed_at[key])
                ):
                    self.write(
                        w,
                        project,
                        archive_name,
                        text,
                        after.changed_at[key],
                        files=files,
                        blocked=blocked,
                    )
        for key in MEMORY_KEYS:
            name = MEMORY_FILES[key]
            unchanged = after.files[key] is before.files[key] and key not in rewrite
            if unchanged and not _behind(w.checkpoint(project, name), after.changed_at[key]):
                continue
            if blocked is not None and name in blocked:
                continue
            if (
                files.stat(name) is None
                and not after.files[key].layout
                and after.changed_at[key] == 0
                and w.checkpoint(project, name) is None
            ):
                continue
            text = render_memory_file(after.files[key])
            if texts is not None:
                texts[key] = text
            expect = (seen or {}).get(name)
            position = after.changed_at[key]
            self.write(
                w,
                project,
                name,
                text,
                position,
                expect=expect,
                displaced=displaced,
                files=files,
                blocked=blocked,
            )

    def write(
        self,
        w: Writer,
        project: Project,
        name: str,
        text: str,
        position: int,
        *,
        expect: str | None = None,
        displaced: Displaced | None = None,
        files: FileGateway | None = None,
        blocked: dict[str, str] | None = None,
    ) -> None:
        """Replace the file unless a save landed since it was read as ``expect`` (then the
        save is left, or handed to ``displaced``), with its checkpoint and its undo; in the
        file's own line endings (a CRLF file is written CRLF). A file that is not a plain
        file is refused; with ``blocked``, it is left alone and named there instead."""
        files = files or self.ctx.files(project)
        try:
            crlf = uses_crlf(files.read_bytes(name))
            done = files.replace(name, with_line_endings(text, crlf).encode(), expect)
        except UnsafePath as exc:
            if blocked is None:
                raise
            blocked[name] = exc.reason
            return
        if displaced is not None and (done.stamp is None or done.kept is not None):
            displaced(name, done.kept)
        stamp = done.stamp
        if stamp is None:
            return
        w.on_rollback(lambda: files.undo(name, done))
        w.on_commit(lambda: self.ctx.settle(project, files, name, done))
        w.set_checkpoint(
            project, name, Checkpoint(position, stamp.size, stamp.mtime_ns, stamp.sha256)
        )

    def write_missing(
        self,
        w: Writer,
        project: Project,
        memory: Memory,
        *,
        new_too: bool = False,
        displaced: Displaced | None = None,
        files: FileGateway | None = None,
        blocked: dict[str, str] | None = None,
    ) -> None:
        """Write again each file Orbital wrote that is gone from disk; ``new_too``: also each
        file never written (with its format contract), never overwriting one on disk."""
        files = files or self.ctx.files(project)
        for key in MEMORY_KEYS:
            name = MEMORY_FILES[key]
            if blocked is not None and name in blocked:
                continue
            written = w.checkpoint(project, name) is not None
            if files.stat(name) is None and (written or new_too):
                self.write(
                    w,
                    project,
                    name,
                    render_memory_file(memory.files[key]),
                    memory.changed_at[key],
                    expect=ABSENT,
                    displaced=displaced,
                    files=files,
                )

    def unmerged(self, r: Reader, project: Project) -> list[str]:
        """Memory files whose disk content differs from what Orbital last wrote."""
        pid, files = project.project_id, self.ctx.files(project)
        changed = []
        for key in MEMORY_KEYS:
            name = MEMORY_FILES[key]
            checkpoint, stat = r.checkpoint(project, name), files.stat(name)
            if stat is None or (
                checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns)
            ):
                continue
            raw, ours = (
                files.read_bytes(name) or b"",
                render_memory_file(self.load(r, pid).files[key]),
            )
            if same_text(raw, ours) or memory_not_landed(r, pid, name, checkpoint, raw, ours):
                continue
            changed.append(name)
        return changed


def _behind(checkpoint: Checkpoint | None, changed_at: int) -> bool:
    """Whether a file was never written in this checkout, or before its last change."""
    return checkpoint is None or checkpoint.position < changed_at
