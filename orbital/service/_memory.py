"""Durable memory use cases: the write of DECISIONS, LESSONS, PROJECT_STATE and INDEX, the
person's entry actions, the session-end backstop, and reads (files, archives, the per-turn
injection view). Each write is a unit of work (:mod:`._unit`).

Files and views are outputs of the projectors in ``projections/``, kept in the output store
by their keys (:mod:`._outputs`, :mod:`._view_outputs`); token counts are kept per text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from orbital.catalogue import (
    ARCHIVE_FILES,
    HANDOFF_STREAM,
    MEMORY_FILES,
    MEMORY_PREFIXES,
    PROJECT_STREAM,
)
from orbital.domain.asks import Ask
from orbital.domain.budgets import TokenCounter
from orbital.domain.entry_actions import EntryAction, decide_entry_action, find_entry
from orbital.domain.removals import check_removals
from orbital.errors import StaleWrite
from orbital.events import Actor
from orbital.files import decode_utf8
from orbital.project import Project
from orbital.service._asks_state import ASKS_PREFIX
from orbital.service._context import EventSummary, WriteOutcome
from orbital.service._memory_state import Memory
from orbital.service._outputs import Outputs
from orbital.service._proposals import decide_proposal
from orbital.service._trust import decide_trust_of_write
from orbital.service._unit import Unit, Units
from projections import PROJECTORS, Heads, ViewMemo, ViewState
from projections.files import render_archive_file, render_memory_file

if TYPE_CHECKING:
    from orbital.service._workspaces import ViewTexts
    from orbital.store import Reader


class SessionEndReport(msgspec.Struct, frozen=True):
    events: list[EventSummary]
    over_by: dict[str, int]
    notes: list[str]
    #: The memory editor's outcome when one is configured ("" when none is).
    editor: str = ""


def kept_warning(name: str, kept: tuple[str, ...]) -> str:
    """What a writer is told of the entries its write without a base left out and kept."""
    n = len(kept)
    return (
        f"{name}: kept {', '.join(kept)}: left out of this write, but a write that does not "
        "say which version it was made from (--base, If-Match, base) removes only the "
        f"entries it names, and {'this one' if n == 1 else 'these'} may have been written "
        "after your read. To remove them, write again with the version you read, or name "
        "them (--remove, remove)."
    )


@dataclass
class MemoryService:
    units: Units
    count: TokenCounter
    #: Outputs by key (views, files), in the process and, for a short-lived one, on disk.
    outputs: Outputs = field(default_factory=Outputs)
    #: The view's render's intermediate results, for this service's store alone.
    _memo: ViewMemo = field(default_factory=ViewMemo)
    #: Per project: the store's commit count when its heads were read, and the heads.
    _heads: dict[str, tuple[int, Heads]] = field(default_factory=dict)
    #: Per project: the head of its stream and its view texts then.
    _view_texts: dict[str, tuple[int, ViewTexts]] = field(default_factory=dict)

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
        against the version it was based on (``base``), replayed on today's state; without
        one, against today's state, removing only the entries it names. Refuses a write
        whose change overlaps what changed since (:class:`StaleWrite`) and one that would
        empty the file or remove most of it at once unless ``remove`` names those entries
        (:class:`MassRemoval`)."""
        name = MEMORY_FILES[key]
        proposal = decide_proposal(u, key, decode_utf8(content), base=base, remove=remove)
        if proposal.clashes:
            raise StaleWrite(name, proposal.base, proposal.clashes)
        gone = check_removals(u.memory.files[key], proposal.events, remove)
        decide_trust_of_write(u, proposal.events)
        u.warnings += proposal.warnings
        if proposal.kept_back:
            u.warnings.append(kept_warning(name, proposal.kept_back))
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

    def session_end(self, project: Project, *, editor: str = "") -> SessionEndReport:
        """The deterministic backstop (reference §7): demote the coldest entries of files over
        their soft budget, as undoable events; archives are written before live files."""
        from orbital.domain.backstop import plan_backstop

        with self.units.begin(project, Actor.SYSTEM) as u:
            plan = plan_backstop(u.memory.files, u.today, self.count)
            u.append(plan.events)
        return SessionEndReport(u.events, dict(plan.over_by), list(plan.notes), editor)

    # -- reads ----------------------------------------------------------------------------

    def forget(self) -> None:
        """Drop every output and intermediate result this process keeps (after a purge)."""
        self.outputs = Outputs()
        self._memo = ViewMemo()
        self._heads.clear()
        self._view_texts.clear()

    def entry_ids(self, project: Project, key: str) -> list[str]:
        """Every entry the file ever had (live, archived, merged or retired)."""
        return list(self.load(project).files[key].entries)

    def read(self, project: Project, key: str, *, at: int | None = None) -> str:
        """The file as Orbital renders it now, or as of position ``at``."""
        if at is not None:
            return render_memory_file(self.load(project, at=at).files[key])
        return self._kept_read(
            project, MEMORY_FILES[key], lambda m: render_memory_file(m.files[key])
        )

    def read_versioned(self, project: Project, key: str) -> tuple[str, int]:
        """The file now and the position of the last event that changed it."""
        memory = self.load(project)
        return render_memory_file(memory.files[key]), memory.changed_at[key]

    def read_archive(self, project: Project, key: str, *, at: int | None = None) -> str:
        if at is not None:
            return render_archive_file(self.load(project, at=at).files[key])
        name = ARCHIVE_FILES[key]
        return self._kept_read(project, name, lambda m: render_archive_file(m.files[key]))

    def _kept_read(self, project: Project, name: str, render: Callable[[Memory], str]) -> str:
        """A projected file now, from the output store by its key, else rendered and kept."""
        pid = project.project_id
        heads = self._heads_now(pid)
        with self.units.ctx.store.reader() as r:
            key = PROJECTORS[name].key(pid, heads or self._read_heads(r, pid))
            text = self.outputs.get(key)
            if text is not None:
                return text
            memory = self.units.memory.load(r, pid)
        text = render(memory)
        self.outputs.put(key, text)
        return text

    def keep_written(self, u: Unit, key: str) -> None:
        """Keep memory file ``key`` as unit ``u`` committed it, for the next read."""
        if u.memory_head is not None and not u.refused:
            name = MEMORY_FILES[key]
            self.outputs.put(PROJECTORS[name].key_at(u.pid, u.memory_head), u.text_after(key))

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
        return render_memory_file(memory.files[key])

    def view(
        self,
        project: Project,
        *,
        window: int | None = None,
        audience: str = "agent",
        at: tuple[int, dt.datetime] | None = None,
        session: str = "",
    ) -> str:
        """The per-turn injection view, from materialised state (no memory file is read), in
        the order of :mod:`projections.view_order`; ``at`` (position, instant) renders it
        as it stood then; ``session``: the session whose start it is for (with the hand-off
        it took). A view now is found in the output store by its key, else rendered and kept
        there (:mod:`._view_outputs`)."""
        # The view's modules load here: a process that only writes (a hook, a CLI write)
        # never renders one.
        from orbital.service._view_outputs import find_view, render_view
        from orbital.service._workspaces import view_texts

        pid = project.project_id
        if at is not None:
            with self.units.ctx.store.reader() as r:
                memory = self.units.memory.load(r, pid, at=at[0])
                asks: Mapping[str, Ask] = self.units.asks.at(r, pid, at[0])
                texts = view_texts(r, pid, at[0])
            state = self._state(pid, memory, asks, texts)
            return render_view(
                None,
                project,
                None,
                state,
                texts.zone_setting(project),
                at[1],
                count=self.count,
                window=window,
                audience=audience,
                memo=self._memo,
                session=session,
            )
        instant = self.units.ctx.clock.now()
        heads = self._heads_now(pid)
        if heads is None:
            with self.units.ctx.store.reader() as r:
                heads = self._read_heads(r, pid)
        found = find_view(self.outputs, project, heads, instant, window, audience, session)
        if found is not None:
            return found
        with self.units.ctx.store.reader() as r:
            memory = self.units.memory.load(r, pid, head=heads.of(*MEMORY_PREFIXES))
            asks = self.units.asks.now(r, pid, head=heads.of(ASKS_PREFIX)).view
            # The project stream is the only one of its category.
            texts = self._view_texts_now(r, pid, heads.of(PROJECT_STREAM + ":"))
            state = self._state(pid, memory, asks, texts)
            state = state._replace(handoffs=r.state(pid, HANDOFF_STREAM))
            # Rendered inside the read: the asks may be the store's, read a page at a time
            # as the view reads them (the first asks of each order).
            return render_view(
                self.outputs,
                project,
                heads,
                state,
                texts.zone_setting(project),
                instant,
                count=self.count,
                window=window,
                audience=audience,
                memo=self._memo,
                session=session,
            )

    def kept_view(self, project: Project, *, window: int | None, audience: str) -> str | None:
        """The view now if it can be had without a query (nothing committed to the store
        since this process read the project's heads, and the view kept under today's facts),
        so a server answers it without leaving its event loop; else None."""
        from orbital.service._view_outputs import find_view

        heads = self._heads_now(project.project_id)
        if heads is None:
            return None
        now = self.units.ctx.clock.now()
        return find_view(self.outputs, project, heads, now, window, audience)

    def _heads_now(self, pid: str) -> Heads | None:
        """The project's heads as last read, if nothing was committed since (SQLite's commit
        counter; PostgreSQL has none, so there the heads are read every time)."""
        changes = self.units.ctx.store.changes()
        found = self._heads.get(pid)
        return found[1] if changes and found is not None and found[0] == changes else None

    def _read_heads(self, r: Reader, pid: str) -> Heads:
        """The project's heads (one read), remembered by the store's commit counter."""
        changes = self.units.ctx.store.changes()
        heads = Heads(r.category_heads(pid))
        if changes:
            self._heads[pid] = (changes, heads)
        return heads

    @staticmethod
    def _state(pid: str, memory: Memory, asks: Mapping[str, Ask], texts: ViewTexts) -> ViewState:
        return ViewState(
            project=pid,
            memory_position=memory.position,
            files=memory.files,
            changed_at=memory.changed_at,
            asks=asks,
            description=texts.project.description,
            workspace=texts.workspace,
        )

    def _view_texts_now(self, r: Reader, pid: str, version: int) -> ViewTexts:
        """The project's description and workspace now, kept by the head of its stream: a
        change of either appends to it (a workspace's change, a notice to each member)."""
        found = self._view_texts.get(pid)
        if found is None or found[0] != version:
            from orbital.service._workspaces import view_texts

            found = self._view_texts[pid] = (version, view_texts(r, pid))
        return found[1]
