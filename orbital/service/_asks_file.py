"""The ASKS.md projection: what is on disk, and how it is brought up to date (lines
appended when the disk holds the projection, else the whole file), with its checkpoint.

The file is written inside the write transaction, after the appends, so two writers can
never interleave lines; if the commit then fails the file is put back.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from orbital.files import ABSENT, FileGateway, decode_utf8, sha256
from orbital.grammar.asks_md import append_lines, line_block
from orbital.project import Project
from orbital.service._asks_state import ASKS_PREFIX, AsksState, Extent
from orbital.service._context import Context
from orbital.service._held import asks_not_landed
from orbital.store import Checkpoint, Reader, Writer

ASKS_FILE = "ASKS.md"
#: How far a format line is looked for (a longer first line is not one).
_LONGEST_FORMAT_LINE = 4096

#: Bytes of ASKS.md read past the size kept with the nearest asks snapshot for a cut as of a
#: past position: the lines of the (at most 1,000) ask events after it, unless they are very
#: long, when the whole file is read.
CUT_SLACK = 1 << 20


class OnDisk:
    """ASKS.md as Orbital last wrote it, identified by its stat, so that a write finding the
    same stat neither reads nor decodes the file again.

    The bytes are kept as the pieces appended (compared piece by piece, joined only when the
    whole is wanted), with the set of the file's lines (to tell a written line from a moved
    one) and the text, both made on first use: a server that only reads never holds them
    (at 100k events, twice the file's size each). Successive versions share the line set: it
    grows only when the append that adds the lines has committed. A file found on disk as
    its checkpoint describes it is read when a write first compares with it (``pieces`` a
    function that reads them), and stays unread through appends: a server that only reads,
    or only opens and closes asks, never holds its bytes either (6.2 MiB at 100k events).
    """

    #: Pieces kept before they are joined into one (bounds the piece-by-piece comparison).
    MAX_PIECES = 64

    def __init__(
        self,
        size: int,
        mtime_ns: int,
        pieces: list[bytes] | Callable[[], bytes],
        lines: set[str] | None = None,
        text: str | None = None,
    ) -> None:
        self.size, self.mtime_ns = size, mtime_ns
        self._lines = lines
        self._read = pieces if callable(pieces) else None
        self._kept = None if callable(pieces) else pieces
        self._text = text
        #: The previous version's text, when it was decoded: this one's is it plus the last piece.
        self._text_before: str | None = None

    @classmethod
    def of(cls, size: int, mtime_ns: int, raw: bytes, text: str) -> OnDisk:
        return cls(size, mtime_ns, [raw], text=text)

    @property
    def _pieces(self) -> list[bytes]:
        """The file's bytes, read on first use when they were not given."""
        if self._kept is None:
            assert self._read is not None
            self._kept, self._read = [self._read()], None
        return self._kept

    @property
    def lines(self) -> set[str]:
        if self._lines is None:
            self._lines = set(self.text.split("\n"))
        return self._lines

    @property
    def raw(self) -> bytes:
        return b"".join(self._pieces)

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
                    self._kept = [b"".join(self._pieces)]
                self._text = self._pieces[0].decode("utf-8")
        return self._text

    def added_by(self, content: bytes) -> bytes | None:
        """What ``content`` adds after this file, when it is this file (ending with a newline)
        with something appended, its first line possibly another format line (the contract is
        Orbital's own: one sent back changes nothing, as on the whole-file path); ``None``
        otherwise. Nothing is joined or copied but the addition."""
        if not self._pieces[-1].endswith(b"\n"):
            return None
        found = self._after(content, 0, 0)
        if found is None:
            own, theirs = _format_line_end(self._pieces[0]), _format_line_end(content)
            if own and theirs:
                found = self._after(content, own, theirs)
        return found

    def _after(self, content: bytes, skip: int, offset: int) -> bytes | None:
        """``content`` past this file's bytes, compared from ``skip`` in this file (within
        its first piece) and ``offset`` in ``content``."""
        if len(content) - offset < self.size - skip:
            return None
        for piece in self._pieces:
            part = memoryview(piece)[skip:] if skip else piece
            skip = 0
            if not content.startswith(part, offset):
                return None
            offset += len(part)
        return content[offset:]

    def grow(self, lines: list[str]) -> None:
        """Add appended ``lines`` to the line set (shared with the next version), if made."""
        if self._lines is not None:
            self._lines.update(lines)

    def appended(self, size: int, mtime_ns: int, added: bytes) -> OnDisk:
        """This file once ``added`` was appended (its line set still to be grown)."""
        if self._read is not None:  # never read: the longer file is read when wanted
            return OnDisk(size, mtime_ns, self._read)
        pieces = self._pieces if len(self._pieces) < self.MAX_PIECES else [b"".join(self._pieces)]
        after = OnDisk(size, mtime_ns, [*pieces, added], self._lines)
        after._text_before = self._text
        return after


def _format_line_end(data: bytes) -> int:
    """Where a one-line ``<!--format …-->`` first line ends (past its newline); 0: none."""
    if not data.startswith(b"<!--format"):
        return 0
    end = data.find(b"\n", 0, _LONGEST_FORMAT_LINE)
    return end + 1 if end > 0 and data[:end].rstrip(b"\r").endswith(b"-->") else 0


class Projection(msgspec.Struct):
    """The ASKS.md the decision is made against."""

    #: The file on disk, when it is exactly the projection (new lines can be appended to it).
    disk: OnDisk | None = None
    #: The projection's text when the disk does not hold it ("": there is nothing yet).
    rendered: str = ""
    #: What was found on disk when the disk does not hold the projection (SHA-256 or
    #: ``ABSENT``; None: not read): a save found otherwise when writing is never overwritten.
    seen: str | None = None
    #: The position of a held write that never reached the disk (None: none).
    not_landed: int | None = None

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


class Changed(msgspec.Struct, frozen=True):
    """ASKS.md changed on disk since Orbital wrote it: ``raw`` to take in, against
    ``expected`` (the projection; ``None`` when the file predates the store)."""

    raw: bytes
    expected: str | None


class AsksFile:
    """Reads and writes ASKS.md; keeps the bytes Orbital last wrote, under their stat."""

    def __init__(self, ctx: Context, state: AsksState) -> None:
        self.ctx = ctx
        self.state = state
        self._on_disk: dict[str, OnDisk] = {}

    def look(self, w: Writer, project: Project, proposal: bytes | None) -> Projection | Changed:
        """The projected ASKS.md, or what changed on disk since Orbital wrote it (unless the
        disk holds ``proposal``, the very write being made: ``orbital ingest``)."""
        pid, files = project.project_id, self.ctx.files(project)
        checkpoint = w.checkpoint(project, ASKS_FILE)
        head = w.prefix_head(pid, ASKS_PREFIX)
        stat = files.stat(ASKS_FILE)
        if (
            checkpoint is not None
            and stat == (checkpoint.size, checkpoint.mtime_ns)
            and checkpoint.position == head
        ):
            known = self._on_disk.get(project.checkout)
            if known is None or known.stat != stat:
                known = OnDisk(stat[0], stat[1], lambda: files.read_bytes(ASKS_FILE) or b"")
                self._on_disk[project.checkout] = known  # what the committed checkpoint describes
            return Projection(known)
        if stat is None:
            return Projection(rendered=self.state.render(w, pid) if head else "", seen=ABSENT)
        raw = files.read_bytes(ASKS_FILE) or b""
        if checkpoint is None and head == 0:
            return Changed(raw, None)
        if raw != proposal and _holds_checkpoint(raw, checkpoint, head):
            # Orbital's bytes under a new stat (written by an agent's own file tool from a
            # held write, or touched): known by their hash, without rendering the log.
            return Projection(OnDisk(len(raw), stat[1], [raw]))
        expected = self.state.render(w, pid)
        if checkpoint is None and expected.encode().startswith(raw):
            # A new checkout's copy (a clone) of an older ASKS.md: behind, not edited.
            return Projection(rendered=expected, seen=sha256(raw))
        if raw == proposal:
            return Projection(rendered=expected, seen=sha256(raw))
        if raw == expected.encode():
            # Unchanged content (touched, or a git checkout of the same bytes).
            return Projection(OnDisk.of(len(raw), stat[1], raw, expected))
        if checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns):
            # What this checkout wrote, behind asks another checkout appended: written anew.
            return Projection(rendered=expected, seen=sha256(raw))
        if not raw.strip():
            # An editor's truncate-then-write caught half way: nothing to take in.
            return Projection(rendered=expected, seen=sha256(raw))
        if checkpoint is not None and asks_not_landed(checkpoint, raw, expected):
            return Projection(rendered=expected, seen=sha256(raw), not_landed=checkpoint.position)
        return Changed(raw, expected)

    def write(
        self,
        w: Writer,
        project: Project,
        current: Projection,
        lines: list[str],
        displaced: Callable[[str, bytes | None], None],
        files: FileGateway | None = None,
    ) -> str | Callable[[], str]:
        """Bring ASKS.md up to date: append ``lines`` when the disk holds the projection, else
        write the whole file; record the checkpoint in the same transaction (through ``files``:
        the project's gateway unless one holds the file back). Returns the file's text (a
        function building it, after an append)."""
        pid, files = project.project_id, files or self.ctx.files(project)
        previous = w.checkpoint(project, ASKS_FILE)
        disk = current.disk
        content: str | Callable[[], str]
        if disk is not None and not lines:
            unchanged = previous is not None and (previous.size, previous.mtime_ns) == disk.stat
            checkpoint = previous if unchanged else Checkpoint(0, disk.size, disk.mtime_ns, None)
            content = lambda: disk.text  # noqa: E731 - built only if the caller reads it
        elif disk is not None and disk.size:
            added = line_block(lines).encode()
            appended = files.append_checked(ASKS_FILE, added, disk.stat)
            stamp = appended.stamp
            if stamp is None:  # a save landed since the file was looked at: it stays
                displaced(ASKS_FILE, None)
                return self.state.render(w, pid)
            w.on_rollback(lambda: files.undo(ASKS_FILE, appended))
            w.on_commit(lambda: self.ctx.settle(project, files, ASKS_FILE, appended))
            checkpoint = Checkpoint(0, stamp.size, stamp.mtime_ns, stamp.sha256)
            after = disk.appended(stamp.size, stamp.mtime_ns, added)

            def publish() -> None:
                disk.grow(lines)
                self._on_disk[project.checkout] = after

            w.on_commit(publish)
            content = lambda: after.text  # noqa: E731 - built only if the caller reads it
        else:
            text = append_lines(current.text, lines)
            if not text:
                return ""
            data = text.encode()
            # With the disk holding the projection this branch only takes an empty file (any
            # other is appended to): the bytes the checkpoint describes are none, whatever a
            # save that landed since would make a read of the disk find now.
            expect = current.seen if disk is None else sha256(b"")
            done = files.replace(ASKS_FILE, data, expect)
            if done.stamp is None or done.kept is not None:
                displaced(ASKS_FILE, done.kept)
            stamp = done.stamp
            if stamp is None:
                return text
            w.on_rollback(lambda: files.undo(ASKS_FILE, done))
            w.on_commit(lambda: self.ctx.settle(project, files, ASKS_FILE, done))
            checkpoint = Checkpoint(0, stamp.size, stamp.mtime_ns, stamp.sha256)
            written = OnDisk.of(stamp.size, stamp.mtime_ns, data, text)
            w.on_commit(lambda: self._on_disk.__setitem__(project.checkout, written))
            content = text
        assert checkpoint is not None
        position = w.prefix_head(pid, ASKS_PREFIX)
        w.set_checkpoint(project, ASKS_FILE, msgspec.structs.replace(checkpoint, position=position))
        return content

    def read(self, r: Reader, project: Project, at: int | None) -> str:
        """ASKS.md as Orbital renders it now, or as of position ``at``.

        The log is append-only and renders one line per event in position order, so the file
        as of any position is a prefix of today's: count the lines, cut, no replay. The cut
        starts from the byte size kept with the nearest asks snapshot (every 1,000 ask
        events), so it never scans the file from its start."""
        pid, files = project.project_id, self.ctx.files(project)
        head = r.prefix_head(pid, ASKS_PREFIX)
        checkpoint = r.checkpoint(project, ASKS_FILE)
        stat = files.stat(ASKS_FILE)
        clean = (
            checkpoint is not None
            and checkpoint.position == head
            and stat == (checkpoint.size, checkpoint.mtime_ns)
        )
        if at is None or at >= head:
            raw = files.read_bytes(ASKS_FILE) if clean else None
            return self.state.render(r, pid) if raw is None else raw.decode("utf-8")
        lines, known = self.state.extent_at(r, pid, at)
        # The cut is within the lines of one snapshot's span after the known size.
        start = files.read_bytes(ASKS_FILE, limit=known.size + CUT_SLACK) if clean else None
        end = None if start is None else _cut(start, known, lines)
        if start is not None and end is not None:
            return str(memoryview(start)[:end], "utf-8")
        # Not clean, or its lines ran past what was read.
        whole = files.read_bytes(ASKS_FILE) if clean else None
        raw = self.state.render(r, pid).encode() if whole is None else whole
        end = _cut(raw, known, lines)
        assert end is not None, "a past ASKS.md is a prefix of today's"
        return str(memoryview(raw)[:end], "utf-8")

    def unmerged(self, r: Reader, project: Project) -> bool:
        """Whether the file on disk differs from what Orbital wrote."""
        pid, files = project.project_id, self.ctx.files(project)
        checkpoint, stat = r.checkpoint(project, ASKS_FILE), files.stat(ASKS_FILE)
        if stat is None or (
            checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns)
        ):
            return False
        raw = files.read_bytes(ASKS_FILE)
        if raw is not None and _holds_checkpoint(raw, checkpoint, r.prefix_head(pid, ASKS_PREFIX)):
            return False
        raw, expected = raw or b"", self.state.render(r, pid)
        return raw != expected.encode() and not asks_not_landed(checkpoint, raw, expected)


def _cut(raw: bytes, known: Extent, lines: int) -> int | None:
    """Where ``raw`` (ASKS.md, or the start of it) ends after ``lines`` lines, counting
    newlines from ``known`` (a point of it whose size is known); None: ``raw`` ends first."""
    end = known.size
    for _ in range(lines - known.lines):
        found = raw.find(b"\n", end)
        if found < 0:
            return None
        end = found + 1
    return end


def _holds_checkpoint(raw: bytes, checkpoint: Checkpoint | None, head: int) -> bool:
    """Whether ``raw`` are the bytes Orbital wrote at the head (its checkpoint's hash)."""
    return (
        checkpoint is not None
        and checkpoint.position == head
        and checkpoint.sha256 is not None
        and sha256(raw) == checkpoint.sha256
    )
