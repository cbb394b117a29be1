"""The service's one entry point, :class:`Orbital`: every use case, each one unit of work
(:mod:`._unit`) or one read."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.catalogue import MEMORY_DIR
from orbital.clock import Clock, clock_from_env
from orbital.domain.asks import Ask, CloseKind
from orbital.domain.budgets import TokenCounter
from orbital.domain.entry_actions import EntryAction
from orbital.errors import InvalidInput, Refused
from orbital.events import Actor
from orbital.files import memory_file, projected_file
from orbital.project import Project
from orbital.service._as_of import AsOf, resolve_as_of
from orbital.service._asks import AsksService, MigrationReport, StateFilter
from orbital.service._asks_state import ASK_REDUCER
from orbital.service._checkouts import Checkouts, registering
from orbital.service._context import Context, InitReport, SyncReport, WriteOutcome, mint_hex
from orbital.service._file_writes import FileWrites
from orbital.service._hand_edits import HAND_EDITS
from orbital.service._handoffs import HANDOFF_REDUCER
from orbital.service._memory import MemoryService, SessionEndReport
from orbital.service._mentions import Mentions
from orbital.service._on_first_use import OnFirstUse
from orbital.service._trust import Trust
from orbital.service._unit import Units
from orbital.service._workspaces import WORKSPACE_REDUCER, Workspaces
from orbital.store import EventStore, StoreStatus
from orbital.tokens import CachedCounter

if TYPE_CHECKING:
    from orbital.domain.editor.schedule import Trigger
    from orbital.service._agents import AgentSessions
    from orbital.service._claude_code import ClaudeCodeHooks
    from orbital.service._conflicts import ConflictPreview
    from orbital.service._editor import EditorReport
    from orbital.service._history import ConflictCopy
    from orbital.service._kept import KeptCounter
    from orbital.service._outputs import Seal

#: Materialised state per stream category, kept by the store in the append transaction.
REDUCERS = {"ask": ASK_REDUCER, "workspace": WORKSPACE_REDUCER, "handoff": HANDOFF_REDUCER}


class Orbital(OnFirstUse):
    """The composition root's view of the service: a store and a clock."""

    def __init__(
        self,
        store: EventStore,
        clock: Clock,
        *,
        mint: Callable[[], str] = mint_hex,
        counter: TokenCounter | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        #: Opens every use case's unit of work (benchmarks and tests reach the state here).
        counter = counter or CachedCounter()
        self.units = Units(Context(store, clock, mint), HAND_EDITS, counter)
        self._asks = AsksService(self.units)
        #: This machine's checkouts, and what keeps their files current (the follower's).
        self.local = Checkouts(self.units)
        self.mentions = Mentions(
            self.units, self._asks, lambda project: self._history.memory_entries(project)
        )
        self.workspaces = Workspaces(store, clock, self.mentions)
        self._memory = MemoryService(self.units, counter)
        self._kept_counter: KeptCounter | None = None
        self._writes = FileWrites(self.units, self._asks, self._memory, self.mentions)
        self.trust = Trust(self.units)

    @functools.cached_property
    def agents(self) -> AgentSessions:
        """An agent's session use cases (made on first use, as the parts of
        :class:`OnFirstUse` are: a CLI write never needs them)."""
        from orbital.service._agents import AgentSessions

        return AgentSessions(self.units, self.local, self._writes, self._memory, self.workspaces)

    @functools.cached_property
    def claude_code(self) -> ClaudeCodeHooks:
        """Claude Code's hooks (made on first use)."""
        from orbital.service._claude_code import ClaudeCodeHooks

        return ClaudeCodeHooks(self.agents, lambda: self.editor.configured())

    @classmethod
    def open(
        cls,
        db_url: str | None = None,
        *,
        clock: Clock | None = None,
        mint: Callable[[], str] = mint_hex,
        counter: TokenCounter | None = None,
        create: bool = True,
        damaged_ok: bool = False,
        busy_timeout_ms: int | None = None,
    ) -> Orbital:
        """Open (and upgrade) the store at ``db_url`` (default: ``ORBITAL_DB`` or the user
        data directory), with ``ORBITAL_NOW`` honoured unless a clock is given; ``create``:
        a SQLite store may be created where there is none; ``damaged_ok``: a damaged store
        is opened for the reads that still work (a server's); ``busy_timeout_ms``: how long a
        writer waits for the store's lock (default ``ORBITAL_BUSY_TIMEOUT_MS``)."""
        clock = clock or clock_from_env()
        store = EventStore(
            db_url,
            clock=clock,
            reducers=REDUCERS,
            create=create,
            damaged_ok=damaged_ok,
            timeout_ms=busy_timeout_ms,
        )
        return cls(store, clock, mint=mint, counter=counter)

    def keep_caches(self, folder: Path) -> None:
        """Keep what a short-lived process (a hook, a CLI command) would otherwise compute
        again for the next one, in ``folder``: token counts, WordNet's exception lists parsed,
        and views and files at a head (:mod:`._kept`); each file signed with the store's key,
        and one it does not confirm dropped (:class:`Seal`). Its asks are read from the
        store's keys (:mod:`._stored_asks`), never all of them."""
        from orbital.service._meanings import KeptMeanings
        from orbital.service._outputs import Outputs
        from orbital.service._wordnet import Indexing, LoadedWordNet

        seal, asks = self._seal(), self.units.asks
        asks.wordnet = LoadedWordNet(folder / "wordnet", seal)
        asks.indexing = Indexing(asks.wordnet)
        self.units.meanings = KeptMeanings(folder / "entry-meanings.msgpack", seal)
        self.keep_counts(folder, seal)
        self._memory.outputs = Outputs(folder / "outputs", seal)

    def keep_counts(self, folder: Path, seal: Seal | None = None) -> None:
        """Keep only token counts in ``folder``: what a long-running server, which keeps its
        views in memory, still gains at its next start."""
        from orbital.service._kept import KeptCounter

        self._kept_counter = KeptCounter(folder / "tokens.msgpack", seal or self._seal())
        self._memory.count = self.units.count = self._kept_counter

    def _seal(self) -> Seal:
        """Signs and confirms kept files with the store's key (read once, when first needed)."""
        from orbital.service._outputs import Seal

        return Seal(self.units.ctx.store_key)

    def close(self) -> None:
        if self._kept_counter is not None:
            self._kept_counter.save()
        if self.units.meanings is not None:
            self.units.meanings.save()
        self.store.close()

    def __enter__(self) -> Orbital:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- projects -------------------------------------------------------------------------

    def init_project(self, root: str | Path, *, timezone: str = "") -> Project:
        """Register ``root`` and create its ``orbital/`` directory (see :meth:`init`)."""
        return self.init(root, timezone=timezone).project

    def init(
        self, root: str | Path, *, timezone: str = "", new_project: bool = False, name: str = ""
    ) -> InitReport:
        """Register ``root`` and create its ``orbital/`` directory (idempotent), importing the
        memory files and ASKS.md already there (ids kept; a file not UTF-8 is kept beside as
        a conflict copy). Refused: Orbital's own source tree (memory files would land among
        its modules), and a folder whose committed id this store does not know
        (:class:`ProjectElsewhere`, a silent fork) unless ``new_project``. A new project's
        id is random, its display name ``name`` or the folder's. The store is recorded as
        this project's for the user (:func:`orbital.project.remember_store`)."""
        path = Path(root).expanduser().resolve()
        if not path.is_dir():
            raise InvalidInput(f"{path} is not a directory: create it first or pass --project")
        if (path / MEMORY_DIR / "__init__.py").exists():
            raise Refused(
                f"{path / MEMORY_DIR} is a Python package (Orbital's own source?), not a memory "
                "directory: run `orbital init` in your project's directory, or pass --project PATH"
            )
        if not new_project:
            self.local.refuse_elsewhere(path)
        with (
            self.store.writing() as w,
            registering(w, path, timezone, new_project=new_project, name=name) as project,
            self.units.over(w, project, Actor.SYSTEM) as u,
        ):
            u.refuse_planted()
            u.sync_memory(create=True)
            u.sync_asks()
        self.store.pin(project)
        self.local.remember(project)
        return InitReport(project, u.warnings, u.conflicts)

    def project(self, ref: str | Path) -> Project:
        """A project by id, or by its directory (or any directory inside it) in that
        folder's checkout, which this process then works in (a folder whose id file names a
        known project joins it: a clone, or the folder moved)."""
        return self.local.find(ref)

    def project_by_id(self, project: str) -> Project:
        """A registered project by its id (kept in memory once found)."""
        return self.store.project(project)

    def projects(self) -> list[Project]:
        """Every registered project, by id."""
        with self.store.reader() as r:
            return r.projects()

    def make_keys(self) -> list[Project]:
        """Every project's asks filed by their keys for this Orbital's code now (after an
        upgrade; else the first write that needs them files them). Returns the projects."""
        found = self.projects()
        for project in found:
            self.units.asks.make_keys(project.project_id)
        return found

    @property
    def store_backend(self) -> str:
        """The store's database: ``sqlite`` or ``postgresql``."""
        return self.store.backend

    @property
    def store_location(self) -> str:
        """A SQLite store's file, or the store's URL (password hidden)."""
        return self.store.location

    def store_status(self) -> StoreStatus:
        """Whether the store can take writes, and the database underneath it."""
        return self.store.status()

    def when_damaged(self, said: Callable[[], None]) -> None:
        """Call ``said`` once, when a read first finds the store damaged (a server says so)."""
        self.store.on_damaged = said

    def head(self, project: str | None = None) -> int:
        """The last position of the store (or of one project); 0 when empty."""
        with self.store.reader() as r:
            return r.head(project)

    # -- history --------------------------------------------------------------------------

    # -- memory files ---------------------------------------------------------------------

    def write_file(
        self,
        project: str,
        name: str,
        content: bytes,
        *,
        actor: Actor,
        session: str | None = None,
        hold: bool = False,
        transcript: Path | None = None,
        base: int | None = None,
        remove: Collection[str] = (),
    ) -> WriteOutcome:
        """Apply a proposed full content of ``orbital/<name>``: events, then the file
        (``hold``: its new bytes are the outcome's content, for an agent's own file tool to
        write; ``transcript``: the writer's session, where the quotes of its ask changes are
        checked). Decided against ``base``, the version the writer read (an overlap with
        what changed since is ``StaleWrite``); without one, it removes only what ``remove``
        names."""
        return self._writes.write(
            project,
            name,
            content,
            actor=actor,
            session=session,
            hold=hold,
            transcript=transcript,
            base=base,
            remove=remove,
        )

    def read_versioned(self, project: str, name: str) -> tuple[str, int]:
        """A memory file now, with its version: the position of the last event that changed
        it (an HTTP ETag; what a whole-file write passes back as its ``base``)."""
        key = memory_file(name).key
        if key == "asks":
            raise InvalidInput("ASKS.md has no version: its writes are append-only")
        return self._memory.read_versioned(self.store.project(project), key)

    def as_of(self, project: str, when: AsOf) -> tuple[int, dt.datetime] | None:
        """Resolve an as-of (an instant, a date: the end of that day in the project's
        timezone, or a position) to ``(position, instant)``."""
        return resolve_as_of(self.store, self.clock, project, when)

    def read_file(self, project: str, name: str, *, as_of: AsOf = None) -> str:
        """A projected file (a memory file or an archive) exactly as Orbital renders it from
        events, now or as of an instant or position."""
        target = projected_file(name)
        found = self.store.project(project)
        at = self.as_of(project, as_of)
        position = None if at is None else at[0]
        if target.key == "asks":
            return self._asks.read(found, at=position)
        if target.key.endswith("_archive"):
            return self._memory.read_archive(found, target.key[: -len("_archive")], at=position)
        return self._memory.read(found, target.key, at=position)

    def sync(self, project: str) -> SyncReport:
        """Take in hand edits of every projected file and rewrite what is stale."""
        return self.local.sync(self.store.project(project))

    def unmerged(self, project: str) -> list[str]:
        """Projected files changed on disk and not taken in yet."""
        return self.local.unmerged(self.store.project(project))

    def regenerate(self, project: str, *, force: bool = False) -> list[str]:
        """Rewrite every projection from events. A file edited by hand and not merged is
        refused unless ``force``, which first saves it beside as a conflict copy."""
        return self._conflicts.regenerate(self.store.project(project), force)

    def context_view(
        self,
        project: str,
        *,
        window: int | None = None,
        audience: str = "agent",
        as_of: AsOf = None,
    ) -> str:
        """The per-turn injection view (reference §4), served from materialised state; as of
        an instant or position when asked."""
        if audience not in ("agent", "subagent"):
            raise InvalidInput(f"audience is agent or subagent, not {audience!r}")
        if window is not None and window <= 0:
            raise InvalidInput(f"the context window must be a positive token count, not {window}")
        found = self.store.project(project)
        at = self.as_of(project, as_of)
        return self._memory.view(found, window=window, audience=audience, at=at)

    def kept_view(self, project: Project, *, window: int | None, audience: str) -> str | None:
        """:meth:`context_view` now, if this process has it and nothing was committed since;
        None when it must be read (then call :meth:`context_view`, off the event loop)."""
        return self._memory.kept_view(project, window=window, audience=audience)

    def warm(self) -> None:
        """Render each project's agent view once (the token table loaded, the views cached):
        a server does this before it takes requests, so its first is as fast as the rest."""
        self.store.listen_for_changes()
        for found in self.projects():
            self.context_view(found.project_id)
        from orbital.service._credentials import WARM_TOKEN

        self.credentials.verify(WARM_TOKEN)  # the credential read prepared (no such token)

    def entry_action(
        self, project: str, entry_id: str, action: EntryAction, *, actor: Actor
    ) -> WriteOutcome:
        """Pin, unpin or restore a durable entry (the person's Workbench actions)."""
        return self._memory.entry_action(self.store.project(project), entry_id, action, actor)

    def session_end(self, project: str) -> SessionEndReport:
        """The session-end routine: a memory-editor pass when a model is configured and its
        gates allow (over soft budget, changed, at most every 30 minutes, single flight), then
        the deterministic backstop, whatever the editor did."""
        found = self.store.project(project)
        outcome = self.editor.run(found, trigger="auto").outcome if self.editor.configured() else ""
        return self._memory.session_end(found, editor=outcome)

    # -- hand-edit conflicts ---------------------------------------------------------------

    def conflicts(self, project: str) -> list[ConflictCopy]:
        """Conflict copies kept beside the projections and not settled yet."""
        return self._history.conflicts(project)

    def resolve_conflict(self, project: str, copy: str, keep: str, *, actor: Actor) -> WriteOutcome:
        """Settle a conflict copy: ``mine`` applies the person's own changes to today's
        state, ``orbital`` keeps the store's text (see :mod:`._conflicts`)."""
        return self._conflicts.resolve(project, copy, keep, actor)

    def preview_conflict(self, project: str, copy: str, *, actor: Actor) -> ConflictPreview:
        """What Keep mine and Keep Orbital's would each do to the file, as diffs."""
        return self._conflicts.preview(project, copy, actor)

    # -- memory editor --------------------------------------------------------------------

    def editor_run(
        self, project: str, *, force: bool = False, sessions: Path | None = None,
        session: str = "", reason: str = "",
    ) -> EditorReport:  # fmt: skip
        """One editor pass when due (``force``: now, whatever the gates say but single
        flight; a checkpoint's ``reason``: requested), then the backstop; ``session``: the
        one that just ended, read for lessons whatever the budget (:mod:`._editor`)."""
        found = self.store.project(project)
        trigger: Trigger = (
            "forced" if force else "requested" if reason else "session_end" if session else "auto"
        )
        return self.editor.run(
            found, trigger=trigger, sessions=sessions, session=session, reason=reason
        )

    def editor_apply(
        self, project: str, choices: str, *, sessions: Path | None = None
    ) -> EditorReport:
        """Apply a choices document (JSON text) as the editor would, without a model."""
        return self.editor.apply(self.store.project(project), choices, sessions=sessions)

    # -- asks -----------------------------------------------------------------------------

    def asks(self, project: str, state: StateFilter = "open") -> list[Ask]:
        return self._asks.listing(self.store.project(project), state)

    def ask_open(
        self,
        project: str,
        text: str,
        due: str | None = None,
        *,
        actor: Actor,
        session: str | None = None,
        distinct_from: Sequence[str] = (),
    ) -> WriteOutcome:
        """Open an ask; ``distinct_from``: the dropped asks the agent says it differs from."""
        found = self.store.project(project)
        outcome = self._asks.open(found, text, due, actor, session, distinct_from)
        if not outcome.refused:
            outcome.warnings += self.mentions.warnings(found, "the ask", [text])
        return outcome

    def ask_close(
        self,
        project: str,
        ask_id: str,
        kind: str,
        note: str = "",
        *,
        actor: Actor,
        session: str | None = None,
        transcript: Path | None = None,
    ) -> WriteOutcome:
        if kind not in ("done", "dropped"):
            raise InvalidInput(f"an ask is closed as done or dropped, not {kind!r}")
        close: CloseKind = "done" if kind == "done" else "dropped"
        found = self.store.project(project)
        return self._asks.change(found, ask_id, close, note, actor, session, transcript)

    def ask_reopen(
        self,
        project: str,
        ask_id: str,
        note: str = "",
        *,
        actor: Actor,
        session: str | None = None,
        transcript: Path | None = None,
    ) -> WriteOutcome:
        found = self.store.project(project)
        return self._asks.change(found, ask_id, "reopen", note, actor, session, transcript)

    def ask_proposal(
        self, project: str, ask_id: str, confirm: bool, note: str = "", *, actor: Actor
    ) -> WriteOutcome:
        """The person confirms (``confirm``) or declines an agent's reopen held for them."""
        found = self.store.project(project)
        return self._asks.answer_proposal(found, ask_id, confirm, note, actor)

    def migrate_retractions(
        self,
        project: str,
        path: Path | None = None,
        *,
        dry_run: bool = False,
        progress: bool = False,
    ) -> MigrationReport:
        found = self.store.project(project)
        return self._asks.migrate_retractions(found, path, dry_run=dry_run, progress=progress)

    # -- the Workbench (the person's views) -----------------------------------------------
