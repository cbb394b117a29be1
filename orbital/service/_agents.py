"""Use cases of an agent's session lifecycle (Claude Code's hooks call these).

* **Session start**: the whole view reaches the model through a file that the agent's memory
  file imports (hook context is cut past 10,000 characters); that file is read *before* the
  start hook runs, so the hook returns what changed since the position it was rendered at and,
  when it was rendered on another day, today's date and the asks as they stand today (their
  overdue marks and the recent closes shown depend on the day). Rendering the view counts
  tokens, so the file is brought up to date for next time by a process no one waits for
  (:meth:`AgentSessions.refresh_view`, started detached by the hook).
* **Each prompt**: what moved since the position the session last saw, leaving out its own
  writes; nothing when nothing moved.
* **File tools**: the agent's write goes through the write path as ``agent`` with its
  session, the new bytes held back for the agent's own tool to write (it keeps a record of
  each file's state and refuses to edit a file changed behind its back); edits made outside
  the file tools (a shell) are taken in as the agent's.
* **A turn ends** (Stop): the hand-off kept for the next session (:mod:`._handoffs`).
* **Session end**: the hand-off, the backstop, the view file brought up to date, the
  transcript's location kept for the memory editor.
* **The swap**: a session that starts (not resuming its own conversation) takes the hand-off
  another session left, once; it arrives in the view after today's date (the whole view's,
  for an agent without the view file; the context beside it, for Claude Code's).

Per session, the last position seen and the transcript's path are kept in a small JSON file
under the state directory (``ORBITAL_STATE_DIR``, default the user state directory).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.agents.claude_code_hooks import view_day, view_position, view_zone
from orbital.catalogue import ASKS_KEY, ask_stream
from orbital.domain.injection import ASKS, FULL, OFF
from orbital.errors import SecretRefused, UnknownProject
from orbital.events import Actor
from orbital.files import FileGateway, memory_file, sha256
from orbital.project import Project, identity_above, public_url
from orbital.service._citations import Citations
from orbital.service._context import WriteOutcome
from orbital.service._handoffs import HandoffService
from orbital.service._held_writes import HeldWrites
from orbital.service._injection import levels
from orbital.service._memory import SessionEndReport
from orbital.service._sessions import InjectionLog, SessionMarks, write_atomic
from projections.changes import describe_changes
from projections.view_file import VIEW_FILE_PROJECTOR

if TYPE_CHECKING:
    from orbital.service._checkouts import Checkouts
    from orbital.service._file_writes import FileWrites
    from orbital.service._memory import MemoryService
    from orbital.service._unit import Units
    from orbital.service._workspaces import Workspaces


@dataclass(frozen=True)
class StartReport:
    """Session start: the context for the model ("" for none), where the view stands, and
    whether the view file is to be brought up to date (:meth:`AgentSessions.refresh_view`)."""

    context: str
    position: int
    behind: bool = False


class AgentSessions:
    """The session use cases, over the parts that own each rule: the checkouts (which
    project a folder is, its files kept current), the whole-file writes, the memory (view and
    backstop) and the workspaces (the view's day)."""

    def __init__(
        self,
        units: Units,
        checkouts: Checkouts,
        writes: FileWrites,
        memory: MemoryService,
        workspaces: Workspaces,
        marks: SessionMarks | None = None,
        log: InjectionLog | None = None,
    ) -> None:
        self.units, self.checkouts, self.writes = units, checkouts, writes
        self.memory, self.workspaces = memory, workspaces
        self.store = units.ctx.store
        self._marks = marks
        self._log = log
        self.handoffs = HandoffService(units, memory)
        self.held_writes = HeldWrites(units, checkouts, lambda: self.marks)

    def project_at(self, cwd: str | None) -> Project | None:
        """The project an agent's hook runs in (its payload's ``cwd``), or None: a folder
        outside every registered project is none of Orbital's business."""
        try:
            return self.checkouts.find(Path(cwd or "."))
        except UnknownProject:
            return None

    def elsewhere(self, cwd: str | None) -> str:
        """Why a folder of no project in this store is still Orbital's business: its
        committed id names a project kept elsewhere (the session runs without its memory);
        "" when it names none."""
        identity = identity_above(cwd or ".")
        if identity is None:
            return ""
        return f"project {identity} of {cwd} is not in the store {public_url(self.store.url)}"

    @property
    def marks(self) -> SessionMarks:
        if self._marks is None:
            self._marks = SessionMarks()
        return self._marks

    @property
    def log(self) -> InjectionLog:
        if self._log is None:
            self._log = InjectionLog()
        return self._log

    def levels(self, project: Project) -> tuple[str, str]:
        """How much the hooks inject: the project's level and this session's."""
        return levels(self.workspaces.injection(project.project_id))

    # -- reading what the session should know ---------------------------------------------

    def changes(
        self, project: Project, after: int, session: str | None, asks_only: bool = False
    ) -> tuple[list[str], int]:
        """Lines for what changed after position ``after`` (not by ``session``; with
        ``asks_only`` the asks' changes alone), and the head they reach."""
        pid = project.project_id
        with self.store.reader() as r:
            head = r.head(pid)
            if head <= after:
                return [], head
            events = list(r.read_project(pid, from_position=after, until_position=head))
            if asks_only:
                events = [e for e in events if e.stream.startswith("ask:")]
            asks = {
                e.event.ask_id: r.state(pid, ask_stream(e.event.ask_id))  # type: ignore[attr-defined]
                for e in events
                if e.stream.startswith("ask:")
            }
        texts = {ask_id: getattr(state, "text", "") for ask_id, state in asks.items()}
        return describe_changes(events, session, texts), head

    def start(
        self,
        project: Project,
        session: str,
        view_path: Path | None,
        transcript: str = "",
        loaded_file: bool = True,
        source: str = "",
        agent: str = "claude-code",
    ) -> StartReport:
        """Session start: the context is what changed since the position of the view file
        the agent just loaded and, when that file was rendered on another day (or in another
        zone), today's date and the asks as they stand today; the whole view when there was
        no file (then written here), when the agent did not load it (``loaded_file`` False:
        the file is rewritten for it to read), or for an agent without one (``view_path``
        None). The view is not rendered otherwise: the report says whether the file is
        behind. What the session is given follows its level (the view file, the project's);
        what it loaded and is given is kept in the session's injection log. A session that
        does not resume a conversation (``source``) takes the hand-off another session of
        any ``agent`` left, and gets it after today's date. The entries' citations are
        checked first, so what moved is part of it."""
        Citations(self.units).check(project)
        took = self.handoffs.take(project, session, agent, resumed=source == "resume")
        given = session if took else ""
        before: str | None = None
        if view_path is not None and loaded_file:
            with contextlib.suppress(OSError):
                before = view_path.read_text(encoding="utf-8")
        report = self._start(project, session, view_path, transcript, before, given)
        self.log.add(project.project_id, session, "start", (before or "") + report.context)
        return report

    def _start(
        self,
        project: Project,
        session: str,
        view_path: Path | None,
        transcript: str,
        before: str | None,
        given: str,
    ) -> StartReport:
        """:meth:`start` once the view file is read; ``given``: the session the hand-off it
        took is for ("" when it took none)."""
        mine, level = self.levels(project)
        loaded = view_position(before)
        if view_path is None or loaded is None:
            head, view, day, zone = self.current_view(project, given)
            if view_path is not None:
                self.write_view(project, view_path, head, *self.current_view(project)[1:])
            self._seen(project, session, head, transcript)
            if level != mine:
                shown = self.workspaces.today(project)[2]
                view = self.injected(project, level, day, shown, given)
            return StartReport(view, head)
        lines, head = self.changes(project, loaded, session, asks_only=level == ASKS)
        self._seen(project, session, head, transcript)
        day, zone, shown = self.workspaces.today(project)
        name = view_path.name
        parts = []
        other_day = (view_day(before), view_zone(before)) != (day.isoformat(), zone)
        if level == OFF:
            return StartReport("", head, behind=other_day or head != loaded)
        if other_day:
            rendered = view_day(before) or "an earlier day"
            parts.append(
                f"The memory view above ({name}) was rendered on {rendered}; as of today:\n"
                + self.day_parts(project, day, shown)
            )
        if given:
            parts.append(self.handoffs.block(project, given))
        if lines:
            parts.append(
                f"Orbital memory changed after {name} (the memory view above, as of "
                f"@{loaded}) was loaded; now @{head}:\n" + "\n".join(lines)
            )
        return StartReport("\n\n".join(parts), head, behind=other_day or head != loaded)

    def _seen(self, project: Project, session: str, head: int, transcript: str) -> None:
        mark = self.marks.get(project.project_id, session)
        self.marks.put(project.project_id, session, mark._replace(seen=head, transcript=transcript))

    def day_parts(self, project: Project, day: dt.date, shown: str) -> str:
        """The parts of the view that depend on the day, as the view shows them on ``day``
        (in the zone named ``shown``): today's line and the asks (overdue marks, what the
        person settled in the last days, what was dropped). No token is counted."""
        from projections.asks_view import runtime_block
        from projections.view_order import today_line

        pid = project.project_id
        with self.store.reader() as r:  # the asks are read as the block reads them
            block = runtime_block(self.units.asks.now(r, pid).view, day, empty_cue=True)
        parts = (today_line(day, shown), block)
        return "\n\n".join(p for p in parts if p)

    def injected(
        self, project: Project, level: str, day: dt.date, shown: str, session: str = ""
    ) -> str:
        """What a session start injects at ``level``: the view (``full``), the parts of it
        that depend on the day, today's line and the asks (``asks``), or nothing (``off``:
        the agent reads memory through its tools); with the hand-off ``session`` took."""
        if level == FULL:
            return self.view(project, session=session)
        if level == ASKS:
            handoff = self.handoffs.block(project, session) if session else ""
            parts = (self.day_parts(project, day, shown), handoff)
            return "\n\n".join(p for p in parts if p)
        return ""

    def current_view(self, project: Project, session: str = "") -> tuple[int, str, dt.date, str]:
        """The project's head, the view at the project's level (at the start of ``session``:
        with the hand-off it took), today and the zone today is in (the view's: the
        workspace's, else the project's). Today is read first: a view rendered across
        midnight is marked with the earlier day, so the quick session start re-renders it."""
        day, zone, shown = self.workspaces.today(project)
        head = self._head(project)
        mine = self.workspaces.injection(project.project_id)
        return head, self.injected(project, mine, day, shown, session), day, zone

    def write_view(
        self, project: Project, view_path: Path, head: int, view: str, day: dt.date, zone: str
    ) -> None:
        """The imported view file at ``head`` rendered on ``day`` in ``zone`` (left alone
        when it holds those bytes)."""
        text = VIEW_FILE_PROJECTOR.render(view, head, day, zone)
        try:
            if view_path.read_text(encoding="utf-8") == text:
                return
        except OSError:
            pass
        write_atomic(view_path, text)

    def refresh_view(self, project: Project, view_path: Path) -> None:
        """The imported view file brought up to date (the view rendered, its tokens counted):
        what a session start leaves to a detached process, so that no one waits for it. A
        missing file is left missing (Claude Code's install was undone since)."""
        if view_path.exists():
            self.write_view(project, view_path, *self.current_view(project))

    def prompt(self, project: Project, session: str) -> str:
        """What changed since the session last looked ("" when nothing did, and for a session
        never seen: it starts from now), at the session's level; kept in its injection log."""
        text = self._prompt(project, session)
        self.log.add(project.project_id, session, "turn", text)
        return text

    def _prompt(self, project: Project, session: str) -> str:
        mark = self.marks.get(project.project_id, session)
        notes = self.held_writes.sync_unlanded(project, session)[1] if mark.pending else []
        if mark.seen is None:
            head = self._head(project)
            self.marks.put(project.project_id, session, mark._replace(seen=head, pending=()))
            return "\n".join(notes)
        level = self.levels(project)[1]
        lines: list[str]
        if level == OFF:
            lines, head = [], self._head(project)
        else:
            lines, head = self.changes(project, mark.seen, session, asks_only=level == ASKS)
        if head != mark.seen:
            self.marks.put(project.project_id, session, mark._replace(seen=head, pending=()))
        if not lines:
            return "\n".join(notes)
        changed = f"Orbital memory changed since you last looked (now @{head}):\n" + "\n".join(
            lines
        )
        return "\n".join([*notes, changed])

    def recall(self, project: Project, session: str, prompt: str) -> str:
        """Pointers to archived entries that match the prompt strongly and the session was
        not pointed at yet ("" for none; as many as ``ORBITAL_RECALL`` says, 0: off; none
        for a session injecting less than the whole view)."""
        from orbital.service._recall import recall_limit
        from orbital.service._search import SearchService

        limit = recall_limit()
        if not limit or not prompt or self.levels(project)[1] != FULL:
            return ""  # off, or a session (or project) injecting less than the whole view
        pid = project.project_id
        mark = self.marks.get(pid, session)
        text, ids = SearchService(self.store).recall(pid, prompt, limit, mark.recalled)
        if ids:
            self.marks.put(pid, session, mark._replace(recalled=(*mark.recalled, *ids)))
        return text

    def prompt_context(self, project: Project, session: str, prompt: str) -> str:
        """What a prompt brings the agent: what changed since the session last looked, then
        the archived entries it recalls ("" for nothing)."""
        parts = (self.prompt(project, session), self.recall(project, session, prompt))
        return "\n\n".join(part for part in parts if part)

    # -- the agent's writes ---------------------------------------------------------------

    def write(
        self,
        project: Project,
        name: str,
        content: bytes,
        session: str,
        transcript: Path | None = None,
        hold: bool = True,
        read: bytes | None = None,
    ) -> WriteOutcome:
        """The agent's proposed full content of ``orbital/<name>`` through the write path, as
        ``agent`` in ``session``; with ``hold`` the file's new bytes are not written but
        returned as the outcome's content, for the agent's own tool to write. The quotes of its
        ask closes and reopens are checked against the session's ``transcript``. ``read``: the
        file's bytes the agent's change was made from; when they are what this checkout last
        wrote, that version is the write's base (what the agent leaves out is removed). A
        write with a secret is refused like any other (the file as it is, the reason as its
        warning), so each hook denies the tool instead of letting it write what the store
        refused."""
        try:
            return self.writes.write(
                project.project_id,
                name,
                content,
                actor=Actor.AGENT,
                session=session,
                hold=hold,
                transcript=transcript,
                base=self._read_version(project, name, read),
                remove=(),
            )
        except SecretRefused as refused:
            raw = FileGateway(project.root).read_bytes(name) or b""
            return WriteOutcome(raw.decode("utf-8", "replace"), [str(refused)], [], refused=True)

    def _read_version(self, project: Project, name: str, read: bytes | None) -> int | None:
        """The version of ``orbital/<name>`` whose bytes are ``read``: the position this
        checkout last wrote there, if it wrote those bytes; None when not known."""
        found = memory_file(name)
        if read is None or found.key == ASKS_KEY:
            return None
        with self.store.reader() as r:
            checkpoint = r.checkpoint(project, found.name)
        if checkpoint is None or checkpoint.sha256 != sha256(read):
            return None
        return checkpoint.position

    def take_in(
        self,
        project: Project,
        session: str,
        names: Sequence[str] = (),
        transcript: Path | None = None,
    ) -> list[str]:
        """Memory files changed on disk (by the agent's shell or its own file tool) become the
        agent's writes in ``session`` (quotes checked against its ``transcript``), each based
        on the version this checkout last wrote there (what the agent read); a file holding
        Orbital's bytes only gets its stat recorded. Returns the warnings."""
        changed = self.unmerged(project)
        wanted = {memory_file(n).name for n in names} if names else None
        files = FileGateway(project.root)
        found: dict[str, bytes] = {}
        for name in changed:
            raw = files.read_bytes(name) if wanted is None or name in wanted else None
            if raw is not None:
                found[name] = raw
        checkout = self.store.project(project.project_id)
        return self.writes.take_in(
            checkout, found, actor=Actor.AGENT, session=session, transcript=transcript
        )

    # -- session end ----------------------------------------------------------------------

    def stopped(
        self,
        project: Project,
        session: str,
        agent: str,
        how: str,
        transcript: str = "",
        said_last: str = "",
    ) -> None:
        """Session ``session`` stopped (``how``: ``stop``, a turn ended; ``end``): its
        hand-off kept for the next session. A session that had seen everything before is
        marked as having seen its own hand-off, so its next prompt finds nothing moved."""
        pid = project.project_id
        path = Path(transcript) if transcript else None
        seen = self.marks.get(pid, session).seen
        head = self.handoffs.keep(project, session, agent, how, path, said_last, seen)
        if head is not None:  # nothing but its own hand-off since the session last looked
            mark = self.marks.get(pid, session)
            self.marks.put(pid, session, mark._replace(seen=head))

    def end(
        self,
        project: Project,
        session: str,
        view_path: Path | None,
        transcript: str = "",
        agent: str = "claude-code",
    ) -> SessionEndReport:
        """Held writes that never landed written again; the hand-off kept; the backstop;
        the view file brought up to date; the transcript's path kept."""
        pid = project.project_id
        self.held_writes.sync_unlanded(project, session)
        self.stopped(project, session, agent, "end", transcript)
        report = self.memory.session_end(self.store.project(pid))
        self.log.prune(pid)
        mark = self.marks.get(pid, session)
        self.marks.put(pid, session, mark._replace(transcript=transcript or mark.transcript))
        if view_path is not None:
            self.refresh_view(project, view_path)
        return report

    # -- reads the hooks share --------------------------------------------------------------

    def view(self, project: Project, audience: str = "agent", session: str = "") -> str:
        """The project's injection view now, for ``audience`` (``agent`` or ``subagent``);
        at the start of ``session``, with the hand-off it took."""
        found = self.store.project(project.project_id)
        return self.memory.view(found, window=None, audience=audience, at=None, session=session)

    def subagent_view(self, project: Project, session: str) -> str:
        """What a sub-agent starts with, at the session's level (kept in its log)."""
        level = self.levels(project)[1]
        if level == FULL:
            text = self.view(project, "subagent")
        else:
            day, _zone, shown = self.workspaces.today(project)
            text = self.injected(project, level, day, shown)
        self.log.add(project.project_id, session, "subagent", text)
        return text

    def unmerged(self, project: Project) -> list[str]:
        """The project's projected files changed on disk and not taken in yet."""
        return self.checkouts.unmerged(self.store.project(project.project_id))

    def _head(self, project: Project) -> int:
        with self.store.reader() as r:
            return r.head(project.project_id)
