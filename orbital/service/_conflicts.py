"""Settling a hand-edit conflict copy (the person's choice in the Workbench), and showing
what each choice would do first.

Keep mine applies the person's own changes — the copy against the version it started from,
recorded with the conflict — to today's state, their side where both changed an entry; entries
they did not touch are never retired by it, however stale the copy. Keep Orbital's leaves the
file as it is and records the person's text in the event. Either way the copy is removed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from orbital.catalogue import ASKS_KEY
from orbital.errors import InvalidInput, Refused, UnmergedEdits
from orbital.events import Actor
from orbital.events.files import HandEditResolved
from orbital.files import check_size, decode_utf8, memory_file
from orbital.grammar.text import without_nul
from orbital.project import Project
from orbital.service._asks import AsksService
from orbital.service._asks_file import ASKS_FILE
from orbital.service._checkouts import unmerged_files
from orbital.service._context import WriteOutcome
from orbital.service._hand_edits import ASKS_FILE_STREAM, keep_aside
from orbital.service._history import ConflictCopy, History
from orbital.service._proposals import decide_proposal
from orbital.service._trust import decide_trust_of_write
from orbital.service._unit import Unit, Units
from projections.files import render_memory_file


def keep_unmerged_aside(u: Unit) -> None:
    """Keep each projected file edited by hand and not taken in yet beside as a conflict
    copy, before every projection is written again from events."""
    files = u.units.ctx.files(u.project)
    for name in unmerged_files(u.units, u.w, u.project):
        raw = files.read_bytes(name) or b""
        if name == ASKS_FILE:
            conflict = u.save_aside(name, ASKS_KEY, raw)
            u.append([conflict], actor=Actor.FILE, stream=ASKS_FILE_STREAM)
        else:
            keep_aside(u, memory_file(name).key, raw)


class _Preview(Exception):
    """Ends a unit decided only to be shown (its transaction rolls back)."""


@dataclass(frozen=True)
class ConflictPreview:
    """What each way of settling a conflict copy does, as unified diffs ("" for none), and
    what the rules would leave out of Keep mine (its warnings: a refused line, a dropped ask
    proposed again), so an empty diff is never read as "already there"."""

    copy: str
    keep_mine: str
    keep_orbital: str
    keep_mine_warnings: tuple[str, ...] = ()


def _diff(before: str, after: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), old, new
    )
    return "".join(lines)


def _text(u: Unit, key: str) -> str:
    """The file as the unit now has it."""
    if key != ASKS_KEY:
        return render_memory_file(u.memory.files[key])
    return u.units.asks.render(u.w, u.pid)


@dataclass
class Conflicts:
    units: Units
    history: History
    asks: AsksService

    def _pending_copy(self, project: str, copy: str) -> tuple[ConflictCopy, bytes]:
        conflict = {c.copy: c for c in self.history.conflicts(project)}.get(copy)
        if conflict is None:
            raise Refused(
                f"{copy!r} is not an unsettled conflict copy of this project; the Workbench "
                "lists the ones waiting"
            )
        raw = self.units.ctx.files(self.units.ctx.store.project(project)).read_aside(copy)
        if raw is None:
            raise Refused(f"the conflict copy {copy!r} is gone; nothing was changed")
        return conflict, raw

    def _keep_mine(self, u: Unit, conflict: ConflictCopy, raw: bytes) -> str:
        """Apply the person's own changes (the copy against the version it started from) to
        today's state, their side where both changed an entry; returns the file's key. An
        ASKS.md copy is taken as a write of that file (its rules are append-only)."""
        key = memory_file(conflict.file).key
        text, removed = without_nul(decode_utf8(raw), conflict.copy)
        u.warnings += removed
        if key == ASKS_KEY:
            self.asks.decide_write(u, text.encode(), None)
            return key
        proposal = decide_proposal(u, key, text, base=conflict.base or None, prefer_edit=True)
        decide_trust_of_write(u, proposal.events)
        u.warnings += proposal.warnings
        return key

    def resolve(self, project: str, copy: str, keep: str, actor: Actor) -> WriteOutcome:
        """Settle a conflict copy: ``mine`` applies the person's own changes (the copy against
        the version it started from) to today's state, theirs where both changed an entry;
        ``orbital`` keeps the store's text and records the person's in the event. Either way
        the copy is then removed; nothing is lost."""
        if keep not in ("mine", "orbital"):
            raise InvalidInput(f"keep is 'mine' or 'orbital', not {keep!r}")
        conflict, raw = self._pending_copy(project, copy)
        found = self.units.ctx.store.project(project)
        key = memory_file(conflict.file).key
        mine = keep == "mine"
        if mine:
            check_size(raw)
        with self.units.begin(found, actor, proposals={key: raw} if mine else None) as u:
            if mine:
                self._keep_mine(u, conflict, raw)
            text, removed = without_nul("" if mine else raw.decode("utf-8", errors="replace"), copy)
            written = WriteOutcome("", [*u.warnings, *removed], list(u.events), refused=u.refused)
            settled = HandEditResolved(file=key, conflict_copy=copy, kept=keep, text=text)
            u.append([settled])
        self.units.ctx.files(found).remove_aside(copy)
        if not mine:
            return written
        if key == ASKS_KEY:
            return WriteOutcome(
                u.asks_text, written.warnings, written.events, refused=u.refused, held=u.held_lines
            )
        assert u.memory_after is not None  # set when the unit ended
        content = render_memory_file(u.memory_after.files[key])
        version = u.memory_after.changed_at[key]
        return WriteOutcome(
            content, written.warnings, written.events, version, refused=written.refused
        )

    def preview(self, project: str, copy: str, actor: Actor) -> ConflictPreview:
        """What settling a conflict copy each way would do, as unified diffs of the file:
        Keep mine (today's file -> the file with the person's changes applied) and Keep
        Orbital's (the person's copy -> today's file, which stays). Nothing is written: the
        Keep-mine unit is decided and rolled back."""
        conflict, raw = self._pending_copy(project, copy)
        found = self.units.ctx.store.project(project)
        key = memory_file(conflict.file).key
        check_size(raw)
        try:
            with self.units.begin(found, actor, proposals={key: raw}) as u:
                today = _text(u, key)
                self._keep_mine(u, conflict, raw)
                raise _Preview(today, _text(u, key), tuple(u.warnings))
        except _Preview as preview:
            today, after, warnings = preview.args
        name = conflict.file
        return ConflictPreview(
            copy=copy,
            keep_mine=_diff(today, after, f"{name} (today)", f"{name} (keep mine)"),
            keep_orbital=_diff(raw.decode("utf-8", "replace"), today, copy, f"{name} (today)"),
            keep_mine_warnings=warnings,
        )

    def regenerate(self, found: Project, force: bool) -> list[str]:
        """Rewrite every projection from events; a file edited by hand and not taken in is
        refused (:class:`UnmergedEdits`) unless ``force``, which first keeps it aside as a
        conflict copy. Returns the copies made."""
        with self.units.begin(found, Actor.SYSTEM) as u:
            if not force and (pending := unmerged_files(self.units, u.w, found)):
                raise UnmergedEdits(tuple(pending))
            keep_unmerged_aside(u)
            u.rewrite_all()
        return u.conflicts
