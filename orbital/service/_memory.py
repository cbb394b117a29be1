"""Durable memory use cases: the write of DECISIONS, LESSONS, PROJECT_STATE and INDEX, the
person's entry actions, the session-end backstop, and reads (files, archives, the per-turn
injection view). Each write is a unit of work (:mod:`._unit`).

The injection view is cached per (project head, window, audience, day in the view's time zone),
its memory block per (memory position, window, day, what the parts before it cost, the
workspace lessons' version), and token counts per text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import msgspec

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES, MEMORY_PREFIXES, PROJECT_STREAM
from orbital.domain.asks import Ask
from orbital.domain.budgets import TokenCounter
from orbital.domain.entry_actions import EntryAction, decide_entry_action, find_entry
from orbital.domain.removals import check_removals
from orbital.errors import StaleWrite
from orbital.events import Actor
from orbital.events.entries import EntryRetired
from orbital.files import decode_utf8
from orbital.grammar.model import FileState
from orbital.grammar.render import render_archive, render_file
from orbital.project import Project
from orbital.service._asks_state import ASKS_PREFIX
from orbital.service._context import EventSummary, WriteOutcome
from orbital.service._heads import Heads
from orbital.service._kept import KeptTexts, file_key, view_key, zone_key, zone_named
from orbital.service._memory_state import MEMORY_KEYS, Memory
from orbital.service._proposals import decide_proposal
from orbital.service._trust import decide_trust_of_write
from orbital.service._unit import Unit, Units

if TYPE_CHECKING:
    from orbital.domain.mentions import Pointer
    from orbital.grammar.mentions import Mention
    from orbital.service._workspaces import ViewTexts
    from orbital.store import Reader

#: The (project, window, audience) whose views a process keeps (the least recently rendered
#: goes first), and twice as many time zones of the heads and commit counts they are at.
VIEWS_KEPT = 128
#: File views a process keeps (a few per project: each file under the budgets it was viewed at).
FILE_VIEWS_KEPT = 64
#: Where :meth:`MemoryService._rendered` keeps the mentions of the memory files (not a key).
_MENTIONS = "mentions"


class SessionEndReport(msgspec.Struct, frozen=True):
    events: list[EventSummary]
    over_by: dict[str, int]
    notes: list[str]
    #: The memory editor's outcome when one is configured ("" when none is).
    editor: str = ""


@dataclass
class MemoryService:
    units: Units
    count: TokenCounter
    #: Pointers of a view's mentions, given by the service (the shell checks file paths).
    pointers: Callable[
        [Project, list[str], Mapping[str, FileState], Mapping[str, Ask]], list[Pointer]
    ]
    #: Per (project, window, audience), its newest views by what each is at (a head, or the
    #: store's commit count) and its day: a newer one of the same kind replaces the older,
    #: which no read asks for again and whose memory the next view reuses.
    _views: dict[tuple[str, int | None, str], dict[tuple[Hashable, ...], str]] = field(
        default_factory=dict
    )
    #: Views and files at a head kept for the next process (:meth:`Orbital.keep_caches`).
    kept: KeptTexts | None = None
    _blocks: dict[tuple[object, ...], list[str]] = field(default_factory=dict)
    #: The view's time zone at a head (or commit count): the day a cached view is for.
    _zones: dict[tuple[Hashable, ...], dt.tzinfo] = field(default_factory=dict)
    _texts: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)
    #: Per (project, memory file): the position that last changed it, its rendered text and
    #: the mentions in it.
    _files: dict[tuple[str, str], tuple[int, str, list[Mention]]] = field(default_factory=dict)
    #: Per (file key, hard budget, rendered text): the file's view.
    _file_views: dict[tuple[str, float, str], str] = field(default_factory=dict)
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

    def session_end(self, project: Project, *, editor: str = "") -> SessionEndReport:
        """The deterministic backstop (reference §7): demote the coldest entries of files over
        their soft budget, as undoable events; archives are written before live files."""
        from orbital.domain.backstop import plan_backstop

        with self.units.begin(project, Actor.SYSTEM) as u:
            plan = plan_backstop(u.memory.files, u.today, self.count)
            u.append(plan.events)
        return SessionEndReport(u.events, dict(plan.over_by), list(plan.notes), editor)

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
            key = file_key(pid, Heads.read(r, pid).newest(*MEMORY_PREFIXES), name)
            text = kept.get(key)
            if text is not None:
                return text
            memory = self.units.memory.load(r, pid)
        text = render(memory)
        kept.put(key, text)
        return text

    def keep_written(self, u: Unit, key: str) -> None:
        """Keep memory file ``key`` as unit ``u`` committed it, for the next process's read."""
        if self.kept is not None and u.memory_head is not None and not u.refused:
            self.kept.put(file_key(u.pid, u.memory_head, MEMORY_FILES[key]), u.text_after(key))

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
        """The per-turn injection view, from materialised state (no memory file is read), in
        the order of :mod:`orbital.domain.view_order`; ``at`` (position, instant) renders it
        as it stood then."""
        # The view's modules load here: a process that only writes (a hook, a CLI write)
        # never renders one.
        from orbital.service._workspaces import view_texts

        pid = project.project_id
        if at is not None:
            with self.units.ctx.store.reader() as r:
                memory = self.units.memory.load(r, pid, at=at[0])
                asks = self.units.asks.at(r, pid, at[0])
                texts = view_texts(r, pid, at[0])
            return self._assemble(project, memory, asks, texts, at[1], window, audience)
        now = self.units.ctx.clock.now()
        store = self.units.ctx.store
        changes = store.changes()
        since = ("changes", pid, "commits", changes)
        cached = self._since(project, changes, now, window, audience)
        if cached is not None:
            return cached[1]
        with store.reader() as r:
            # Positions are global and gapless: an unchanged project head means no event of
            # the project was appended since (a change of its workspace appends a notice to
            # it), so one read of the heads answers a repeated call, and tells which parts
            # moved otherwise.
            heads = Heads.read(r, pid)
            at_head = ("head", pid, *heads.event())
            cached = self._cached(project, at_head, now, window, audience)
            if cached is None:
                memory = self.units.memory.load(r, pid, head=heads.of(*MEMORY_PREFIXES))
                asks = self.units.asks.now(r, pid, head=heads.of(ASKS_PREFIX)).asks.merged
                # The project stream is the only one of its category.
                texts = self._view_texts_now(r, pid, heads.of(PROJECT_STREAM + ":"))
        if cached is None:
            zone = texts.timezone(project)[0]
            view = self._assemble(project, memory, asks, texts, now, window, audience, cache=True)
            today = now.astimezone(zone).date()
            self._remember(at_head, zone, (pid, window, audience), today, view)
            if self.kept is not None:
                self.kept.put(zone_key(pid, at_head[2:]), getattr(zone, "key", ""))
                self.kept.put(view_key(pid, at_head[2:], window, audience, today), view)
        else:
            zone, view = cached
        if changes:
            today = now.astimezone(zone).date()
            self._remember(since, zone, (pid, window, audience), today, view)
        return view

    def kept_view(self, project: Project, *, window: int | None, audience: str) -> str | None:
        """The view this process rendered last, if nothing was committed to the store since
        (no query, so a server answers it without leaving its event loop); else None."""
        now = self.units.ctx.clock.now()
        cached = self._since(project, self.units.ctx.store.changes(), now, window, audience)
        return None if cached is None else cached[1]

    def _since(
        self,
        project: Project,
        changes: int | None,
        now: dt.datetime,
        window: int | None,
        audience: str,
    ) -> tuple[dt.tzinfo, str] | None:
        """The view kept at the store's commit count ``changes`` (SQLite's; PostgreSQL has
        none): nothing committed since it was rendered."""
        if not changes:
            return None
        since = ("changes", project.project_id, "commits", changes)
        return self._cached(project, since, now, window, audience)

    def _view_texts_now(self, r: Reader, pid: str, version: int) -> ViewTexts:
        """The project's description and workspace now, kept by the head of its stream: a
        change of either appends to it (a workspace's change, a notice to each member)."""
        found = self._view_texts.get(pid)
        if found is None or found[0] != version:
            from orbital.service._workspaces import view_texts

            found = self._view_texts[pid] = (version, view_texts(r, pid))
        return found[1]

    def _cached(
        self,
        project: Project,
        at: tuple[Hashable, ...],
        now: dt.datetime,
        window: int | None,
        audience: str,
    ) -> tuple[dt.tzinfo, str] | None:
        """The view's time zone and the view at ``at`` (a head, or the store's commit count)
        if this process, or one before it (a head only), rendered it for today in that zone."""
        zone = self._zones.get(at)
        kept = self.kept if at[0] == "head" else None
        if zone is None and kept is not None:
            name = kept.get(zone_key(project.project_id, at[2:]))
            zone = None if name is None else zone_named(name, project)
        if zone is None:
            return None
        today = now.astimezone(zone).date()
        slot = (project.project_id, window, audience)
        cached = self._views.get(slot, {}).get((*at, today))
        if cached is None and kept is not None:
            cached = kept.get(view_key(project.project_id, at[2:], window, audience, today))
            if cached is not None:
                self._remember(at, zone, slot, today, cached)
        return None if cached is None else (zone, cached)

    def _assemble(
        self,
        project: Project,
        memory: Memory,
        asks: Mapping[str, Ask],
        texts: ViewTexts,
        now: dt.datetime,
        window: int | None,
        audience: str,
        *,
        cache: bool = False,
    ) -> str:
        from orbital.domain.asks_view import runtime_block, subagent_dropped_line
        from orbital.domain.mentions import pointers_block
        from orbital.domain.view_order import ViewParts, assemble, head, head_cost
        from orbital.domain.views import memory_block

        zone, zone_name = texts.timezone(project)
        today = now.astimezone(zone).date()
        workspace = texts.workspace
        files = {} if audience == "subagent" else self._rendered(project.project_id, memory, cache)
        parts = ViewParts(
            today=today,
            timezone=zone_name,
            workspace=workspace.name if workspace else "",
            workspace_context=workspace.context if workspace else "",
            description=texts.project.description,
            asks_block=runtime_block(asks, today, empty_cue=True),
            dropped_line=subagent_dropped_line(asks, today) if audience == "subagent" else "",
            files=files,
            workspace_lessons=workspace.lessons if workspace and audience != "subagent" else "",
        )
        mentioned = [parts.workspace_context, parts.description]
        if audience != "subagent":
            memory_mentions = files.get(_MENTIONS, "")
            mentioned += [parts.asks_block, memory_mentions, parts.workspace_lessons]
        found = self.pointers(project, mentioned, memory.files, asks)
        parts = replace(parts, pointers_block=pointers_block(found))
        if audience == "subagent":
            return assemble(parts, self.count, audience=audience)
        # Without a window the budgets are the floors: what the parts before cost changes none.
        reserved = head_cost(head(parts), self.count) if window is not None else 0.0
        # The memory block depends on the memory files, the workspace's lessons and what the
        # parts before it cost: an ask change that leaves that cost alone reuses it.
        key = (
            "memory",
            project.project_id,
            memory.position,
            window,
            today,
            reserved,
            workspace.lessons_at if workspace else 0,
        )
        block = self._blocks.get(key) if cache else None
        if block is None:
            block = memory_block(
                files,
                self.count,
                window=window,
                reserved=reserved,
                workspace_lessons=parts.workspace_lessons,
                view=self._file_view if cache else None,
            )
            if cache:
                if len(self._blocks) > 64:
                    self._blocks.clear()
                self._blocks[key] = block
        return assemble(parts, self.count, window=window, memory=block)

    def _rendered(self, pid: str, memory: Memory, cache: bool) -> dict[str, str]:
        """The memory files as the view shows them, and (under :data:`_MENTIONS`) the
        mentions they hold: kept per memory position, so an ask change renders nothing, and
        each file per the position that last changed it, so a write renders only its file."""
        key = (pid, memory.position)
        found = self._texts.get(key) if cache else None
        if found is None:
            from orbital.domain.beliefs import view_state
            from orbital.grammar.mentions import find_mentions

            found = {}
            mentioned: dict[Mention, None] = {}
            for k in MEMORY_KEYS:
                at = memory.changed_at[k]
                kept = self._files.get((pid, k)) if cache else None
                if kept is None or kept[0] != at:
                    text = render_file(view_state(memory.files[k]))
                    kept = (at, text, find_mentions(text))
                    if cache:
                        self._files[pid, k] = kept
                found[k] = kept[1]
                mentioned.update(dict.fromkeys(kept[2]))
            found[_MENTIONS] = " ".join(m.text for m in mentioned)
            if cache:
                if len(self._texts) > 16:
                    self._texts.clear()
                self._texts[key] = found
        return found

    def _file_view(self, key: str, text: str, hard: float) -> str:
        """:func:`~orbital.domain.views.file_view`, kept while the file's text and budget
        stay: a write views again only the file it changed."""
        found = self._file_views.get((key, hard, text))
        if found is None:
            from orbital.domain.views import file_view

            found = file_view(key, text, hard, self.count)
            if len(self._file_views) >= FILE_VIEWS_KEPT:
                del self._file_views[next(iter(self._file_views))]
            self._file_views[key, hard, text] = found
        return found

    def _remember(
        self,
        at: tuple[Hashable, ...],
        zone: dt.tzinfo,
        slot: tuple[str, int | None, str],
        today: dt.date,
        view: str,
    ) -> None:
        """Keep ``view`` at ``at`` for ``today`` in its slot, in place of the slot's view of
        the same kind (head or commit count), and its time zone under ``at``."""
        self._zones.pop(at, None)
        self._zones[at] = zone
        views = {k: v for k, v in self._views.pop(slot, {}).items() if k[0] != at[0]}
        views[(*at, today)] = view
        self._views[slot] = views
        if len(self._views) > VIEWS_KEPT:
            del self._views[next(iter(self._views))]
        if len(self._zones) > 2 * VIEWS_KEPT:  # a head and a commit count per project
            del self._zones[next(iter(self._zones))]
