"""Citations in the shell (issue 29): the cited files observed on disk, cheaply, and the checks
that turn what moved into events.

A check stats each cited file and hashes only one whose size or mtime changed since this
checkout last hashed it (:class:`CitedFiles`, kept signed in the state folder like every kept
file: a forged record is dropped, and then every cited file is hashed). It runs at session start
(:func:`check_at_start`) and on every write of the agent (:func:`decide_citations`), never per
prompt and never over the whole tree. The record also keeps the entry head at which a check
last found every citation as the store has it: a session start at that head whose cited files
all keep their stats needs nothing more (:func:`quiet`, the hooks' first look). What an
observation means is decided by :mod:`orbital.domain.citations`; the events it decides are
the only place the views read it from (no view stats the disk).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import msgspec

from orbital.domain.citations import (
    Span,
    checked_spans,
    content_hash,
    decide_checks,
    decide_cited,
    decide_confirm,
    written_spans,
)
from orbital.domain.trust import find
from orbital.events import Actor, Event
from orbital.files import max_file_bytes
from orbital.project import Project, read_inside
from orbital.service._outputs import Seal
from orbital.service._sessions import state_dir

if TYPE_CHECKING:
    from orbital.service._unit import Unit, Units


class _Stat(msgspec.Struct, array_like=True):
    size: int
    mtime_ns: int
    #: Each cited range of the file (``""``: all of it) -> its SHA-256 at this stat.
    hashes: dict[str, str]


class _Record(msgspec.Struct):
    #: The entry head at which a check found every citation as the store has it (0: none).
    head: int = 0
    files: dict[str, _Stat] = msgspec.field(default_factory=dict)


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Record)


def _stat(root: str, path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(os.path.join(root, path), follow_symlinks=False)
    except (OSError, ValueError):
        return None
    return info.st_size, info.st_mtime_ns


class CitedFiles:
    """One checkout's cited files as last hashed (its record in the state folder)."""

    def __init__(self, project: Project, key: Callable[[], bytes | None]) -> None:
        self.root = project.root
        self.path = state_dir() / "cache" / "citations" / f"{project.checkout}.msgpack"
        self.seal = Seal(key)
        raw = self.seal.read(self.path)
        try:
            self.record = _DECODER.decode(raw) if raw is not None else _Record()
        except msgspec.DecodeError:
            self.record = _Record()
        self.changed = False

    def observe(self, spans: Iterable[Span]) -> dict[Span, str | None]:
        """Each span -> the SHA-256 of its content now (None: no file inside the project);
        a file is read only when its stat is not the one it was hashed at."""
        wanted: dict[str, set[str]] = {}
        for path, lines in spans:
            wanted.setdefault(path, set()).add(lines)
        found: dict[Span, str | None] = {}
        for path, ranges in wanted.items():
            hashes = self._hashes(path, ranges)
            for lines in ranges:
                found[path, lines] = None if hashes is None else hashes[lines]
        return found

    def _hashes(self, path: str, ranges: set[str]) -> dict[str, str] | None:
        stat = _stat(self.root, path)
        kept = self.record.files.get(path)
        if stat is None:
            if kept is not None:
                del self.record.files[path]
                self.changed = True
            return None
        if kept is not None and (kept.size, kept.mtime_ns) == stat and ranges <= kept.hashes.keys():
            return kept.hashes
        raw = read_inside(self.root, path, max_file_bytes())
        if raw is None:
            return None
        known = kept.hashes if kept is not None and (kept.size, kept.mtime_ns) == stat else {}
        hashes = {**known, **{lines: content_hash(raw, lines) for lines in ranges}}
        self.record.files[path] = _Stat(stat[0], stat[1], hashes)
        self.changed = True
        return hashes

    def quiet(self, head: int) -> bool:
        """Whether a check at entry head ``head`` would find nothing: the last check found
        every citation as the store has it at this head, and no cited file's stat moved."""
        if not self.record.head or self.record.head != head:
            return False
        return all(
            _stat(self.root, path) == (kept.size, kept.mtime_ns)
            for path, kept in self.record.files.items()
        )

    def save(self, head: int = 0, spans: Iterable[Span] | None = None) -> None:
        """Keep the record; ``head``: the entry head at which every citation of ``spans``
        (then the only files kept) was found as the store has it."""
        if spans is not None:
            paths = {path for path, _ in spans}
            files = {p: s for p, s in self.record.files.items() if p in paths}
            self.changed = self.changed or files.keys() != self.record.files.keys()
            self.record.files = files
        if head != self.record.head:
            self.record.head, self.changed = head, True
        if self.changed:
            try:
                self.seal.write(self.path, _ENCODER.encode(self.record))
            except OSError:  # a cache: the next check hashes again
                pass
            self.changed = False


def quiet(project: Project, head: int, key: Callable[[], bytes | None]) -> bool:
    """A session start's first look: nothing cited moved since the last check at ``head``."""
    return CitedFiles(project, key).quiet(head)


def citations_of_write(u: Unit, written: Sequence[Event]) -> list[Event]:
    """In a write's unit, before its ``written`` events are appended: when the agent writes,
    the checks of every citation, appended as Orbital's; returned, what the written entries
    cite now (for the caller to append after ``written``, as the writer's)."""
    cited = CitedFiles(u.project, u.units.ctx.store_key)
    files = u.memory.files
    spans = written_spans(written)
    agent = u.actor is Actor.AGENT
    if agent:
        spans |= checked_spans(files)
    if not spans:
        return []
    observed = cited.observe(spans)
    if agent:
        u.append(decide_checks(files, observed, u.today), actor=Actor.SYSTEM)
    cited.save()
    return decide_cited(files, written, observed, u.today)


class Citations:
    """The citation use cases: the check a session start runs, and a confirmation."""

    def __init__(self, units: Units) -> None:
        self.units = units

    def check(self, project: Project) -> None:
        """Every citation checked; what moved appended as Orbital's events (one unit, only
        when something moved: an unchanged project costs a read and the stats)."""
        units, pid = self.units, project.project_id
        with units.ctx.store.reader() as r:
            head = r.prefix_head(pid, "entry:")
            files = units.memory.load(r, pid).files
        cited = CitedFiles(project, units.ctx.store_key)
        spans = checked_spans(files)
        if not decide_checks(files, cited.observe(spans), units.ctx.today(project)):
            cited.save(head, spans)
            return
        with units.begin(project, Actor.SYSTEM) as u:
            files = u.memory.files
            u.append(decide_checks(files, cited.observe(checked_spans(files)), u.today))
        cited.save()

    def confirm(self, project: str, entry_id: str, *, actor: Actor) -> list[str]:
        """The agent's or the person's confirmation that ``entry_id`` holds with its cited
        files as they are now; the events' summaries (none: every citation matched)."""
        found = self.units.ctx.store.project(project)
        cited = CitedFiles(found, self.units.ctx.store_key)
        with self.units.begin(found, actor) as u:
            files = u.memory.files
            entry = find(files, entry_id)
            spans = {(c.path, c.lines) for c in entry.citations} if entry is not None else set()
            u.append(decide_confirm(files, entry_id, cited.observe(spans), actor, u.today))
        cited.save()
        return [e.summary for e in u.events]
