"""Durable memory use cases: the write of DECISIONS, LESSONS, PROJECT_STATE and INDEX, the
person's entry actions, the session-end backstop, and reads (files, archives, the per-turn
injection view). Each write is a unit of work (:mod:`._unit`).

The injection view is cached per (memory head, asks head, window, audience, day) and token
counts per text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES
from orbital.domain.asks import Ask
from orbital.domain.asks_view import runtime_block, subagent_dropped_line
from orbital.domain.backstop import plan_backstop
from orbital.domain.beliefs import view_state
from orbital.domain.budgets import TokenCounter
from orbital.domain.entry_actions import EntryAction, decide_entry_action, find_entry
from orbital.domain.removals import check_removals
from orbital.domain.views import assemble_view
from orbital.errors import StaleWrite
from orbital.events import Actor
from orbital.events.entries import EntryRetired
from orbital.files import decode_utf8
from orbital.grammar.render import render_archive, render_file
from orbital.project import Project
from orbital.service._context import EventSummary, WriteOutcome
from orbital.service._kept import KeptTexts, file_key, view_key
from orbital.service._memory_state import MEMORY_KEYS, Memory
from orbital.service._proposals import decide_proposal
from orbital.service._trust import decide_trust_of_write
from orbital.service._unit import Unit, Units


@dataclass(frozen=True)
class SessionEndReport:
    events: list[EventSummary]
    over_by: dict[str, int]
    notes: list[str]
    #: The memory editor's outcome when one is configured ("" when none is).
    editor: str = ""


@dataclass
class MemoryService:
    units: Units
    count: TokenCounter
    _views: dict[tuple[object, ...], str] = field(default_factory=dict)
    #: Views and files at a head kept for the next process (:meth:`Orbital.keep_caches`).
    kept: KeptTexts | None = None

    # -- decisions ------------------------------------------------------------------------

    @staticmethod
    def decide_write(
        u: Unit,
        key: str,
        content: bytes,
        *,
        base: int | None = None,
        remove: AbstractSet[str] = frozenset(),
    ) -> None:
        """Decide a writer's proposed full text of one memory file (reference §5) in ``u``,
        against the version it was based on (``base``; None: the written version it most
        resembles), replayed on today's state. Refuses a write whose change overlaps what
        changed since (:class:`StaleWrite`) and one that would empty the file or remove most
        of it at once unless ``remove`` names those entries (:class:`MassRemoval`)."""
        name = MEMORY_FILES[key]
        proposal = decide_proposal(u, key, decode_utf8(content), base=base, remove=remove)
        if proposal.clashes:
            raise StaleWrite(name, proposal.base, proposal.clashes)
        # What the text leaves out counts, kept back or not: an empty write is refused.
        asked = [EntryRetired(entry_id=i, date=u.today) for i in proposal.kept_back]
        gone = check_removals(u.memory.files[key], (*proposal.events, *asked), remove)
        gone = [i for i in gone if i not in proposal.kept_back]
        decide_trust_of_write(u, proposal.events)
        u.warnings += proposal.warnings
        if proposal.kept_back:
            u.warnings.append(
                f"{name}: kept {', '.join(proposal.kept_back)}, left out of this write but "
                "written after the oldest version it could have been read from; to remove "
                "them, write with the version you read (--base, If-Match) or name them "
                "(remove)."
            )
        if gone:
            n = len(gone)
            u.warnings.append(
                f"{name}: {n} entr{'y' if n == 1 else 'ies'} the new text no longer has "
                f"{'was' if n == 1 else 'were'} removed from the file ({', '.join(gone)}); "
                f"their text stays in the history (orbital history --file {name}) and "
                "`orbital restore ID` brings one back."
            )

    def entry_action(
        self, project: Project, entry_id: str, action: EntryAction, actor: Actor
    ) -> WriteOutcome:
        """Pin, unpin or restore one entry (a restored entry returns to its old slot)."""
        with self.units.begin(project, actor) as u:
            u.append(decide_entry_action(u.memory.files, entry_id, action, u.today))
        assert u.memory_after is not None
        key = find_entry(u.memory_after.files, entry_id).file
        return WriteOutcome(self._text(u.memory_after, key), u.warnings, u.events)

    def session_end(self, project: Project) -> SessionEndReport:
        """The deterministic backstop (reference §7): demote the coldest entries of files over
        their soft budget, as undoable events; archives are written before live files."""
        with self.units.begin(project, Actor.SYSTEM) as u:
            plan = plan_backstop(u.memory.files, u.today, self.count)
            u.append(plan.events)
        return SessionEndReport(u.events, dict(plan.over_by), list(plan.notes))

    # -- reads ----------------------------------------------------------------------------

    def entry_ids(self, project: Project, key: str) -> list[str]:
        """Every entry the file ever had (live, archived, merged or retired)."""
        return list(self.load(project).files[key].entries)

    def read(self, project: Project, key: str, *, at: int | None = None) -> str:
        """The file as Orbital renders it now, or as of position ``at``."""
        if at is not None:
            return render_file(self.load(project, at=at).files[key])
        return self._kept_read(project, MEMORY_FILES[key], lambda m: render_file(m.files[key]))

    def read_versioned(self, project: Project, key: str) -> tuple[str, int]:
        """The file now and the position of the last event that changed it."""
        memory = self.load(project)
        return render_file(memory.files[key]), memory.changed_at[key]

    def read_archive(self, project: Project, key: str, *, at: int | None = None) -> str:
        if at is not None:
            return render_archive(self.load(project, at=at).files[key])
        name = ARCHIVE_FILES[key]
        return self._kept_read(project, name, lambda m: render_archive(m.files[key]))

    def _kept_read(self, project: Project, name: str, render: Callable[[Memory], str]) -> str:
        """A projected file now, kept by the head it was rendered at (:data:`kept`)."""
        pid, kept = project.project_id, self.kept
        if kept is None:
            return render(self.load(project))
        with self.units.ctx.store.reader() as r:
            key = file_key(pid, r.head_event(pid), name)
            text = kept.get(key)
            if text is not None:
                return text
            memory = self.units.memory.load(r, pid)
        text = render(memory)
        kept.put(key, text)
        return text

    def load(self, project: Project, *, at: int | None = None) -> Memory:
        """The memory files now or as of position ``at`` (nothing taken in)."""
        with self.units.ctx.store.reader() as r:
            return self.units.memory.load(r, project.project_id, at=at)

    def unmerged(self, project: Project) -> list[str]:
        """Memory files whose disk content differs from what Orbital last wrote."""
        with self.units.ctx.store.reader() as r:
            return self.units.memory.unmerged(r, project)

    @staticmethod
    def _text(memory: Memory | None, key: str) -> str:
        assert memory is not None  # set when the unit ended
        return render_file(memory.files[key])

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
            with self.units.ctx.store.reader() as r:
                memory = self.units.memory.load(r, pid, at=at[0])
                asks = self.units.asks.at(r, pid, at[0])
            return self._assemble(pid, memory, asks, today, window, audience)
        today = self.units.ctx.today(project)
        store = self.units.ctx.store
        # Nothing committed to the store since (its commit count): no query at all.
        changes = store.changes()
        changes_key = ("changes", pid, changes, window, audience, today)
        cached = self._views.get(changes_key) if changes is not None else None
        if cached is not None:
            return cached
        with store.reader() as r:
            # Positions are global and gapless: an unchanged project head means no event of
            # the project was appended since, so one indexed max() answers a repeated call.
            head_key = view_key(pid, r.head_event(pid), window, audience, today)
            cached = self._views.get(head_key)
            if cached is None and self.kept is not None:
                cached = self.kept.get(head_key)
                if cached is not None:
                    self._remember(head_key, cached)
            if cached is not None:
                if changes is not None:
                    self._remember(changes_key, cached)
                return cached
            memory = self.units.memory.load(r, pid)
            asks_head = r.prefix_head(pid, "ask")
            key = (pid, memory.position, asks_head, window, audience, today)
            cached = self._views.get(key)
            if cached is None:
                asks = self.units.asks.now(r, pid).asks.merged
        if cached is None:
            cached = self._assemble(pid, memory, asks, today, window, audience, cache=True)
            self._remember(key, cached)
        self._remember(head_key, cached)
        if changes is not None:
            self._remember(changes_key, cached)
        if self.kept is not None:
            self.kept.put(head_key, cached)
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
            texts = {k: render_file(view_state(memory.files[k])) for k in MEMORY_KEYS}
            memory_part = assemble_view(texts, today, self.count, window=window)
            if cache:
                self._remember(memory_key, memory_part)
        asks_block = runtime_block(asks, today, empty_cue=True)
        return "\n\n".join(p for p in (memory_part, asks_block) if p)

    def _remember(self, key: tuple[object, ...], view: str) -> None:
        if len(self._views) > 256:
            self._views.clear()
        self._views[key] = view
