"""A hook's first look: the answers a few reads give, whichever lane asks.

Claude Code starts ``orbital hook claude-code <event>`` as a new process for every event, and
most events ask something a few rows answer: a prompt when nothing moved since the session last
looked, a session start when the imported view file is already at the head and rendered today,
a file tool on a file that is not Orbital's, a ``Bash`` command that changed no memory file.
:func:`first_answer` gives those answers from the store's first reads
(:class:`~orbital.store._first_reads.FirstReads`) and the session marks, and None for anything
else. Both lanes run it: the quick lane (:func:`quick_answer`) over a plain SQLite connection
before the service is opened, and :class:`._claude_code.ClaudeCodeHooks` over the store's
reader before its use cases, so each rule is written once.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import zoneinfo
from pathlib import Path
from typing import NamedTuple

from orbital.agents.claude_code import MEMORY_FILE, VIEW_FILE, imports_view
from orbital.agents.claude_code_hooks import (
    FILE_TOOLS,
    Json,
    Payload,
    context_answer,
    memory_target,
    view_day,
    view_position,
    view_zone,
)
from orbital.catalogue import (
    HANDOFF_STREAM,
    INJECT_VARIABLE,
    INJECTION_SET,
    MEMORY_DIR,
    MEMORY_FILES,
    PROJECT_STREAM,
)
from orbital.clock import clock_from_env
from orbital.project import Project
from orbital.service._cited_files import head_mark, quiet
from orbital.service._recall import recall_limit, recall_text
from orbital.service._sessions import InjectionLog, SessionMarks, ToolCalls
from orbital.store._first_reads import FirstReads
from orbital.store._quick import quick_reader

#: The memory files an agent's file tools may write through Orbital (not the archives).
WRITABLE = frozenset(MEMORY_FILES.values())


class HookResult(NamedTuple):
    """The answer to print (None: nothing), and what a detached process is to do in
    ``project`` after it (:mod:`orbital.cli._hook`): a memory-editor pass (``editor``, over
    the transcripts in ``editor_sessions``, None: the default folder; ``editor_session``:
    the one that just ended, whose corrections may become lessons) and the view file
    brought up to date (``view_file``); ``problem``: what the person is to read in the
    hooks' log (the store does not know the folder's project)."""

    answer: Json | None = None
    editor_sessions: Path | None = None
    project: Project | None = None
    editor: bool = False
    view_file: bool = False
    problem: str = ""
    editor_session: str = ""


NOTHING = HookResult()


def quick_answer(
    slug: str,
    payload: Payload,
    db_url: str | None,
    marks: SessionMarks | None = None,
    timeout_ms: int = 5000,
) -> HookResult | None:
    """The hook's first answer before the service is opened (a SQLite store at the newest
    schema), else None: take the full path, which also reports whatever went wrong here.
    ``timeout_ms``: how long a read may wait for a locked store."""
    if slug not in FIRST_LOOKS:
        return None
    try:
        reader = quick_reader(db_url, timeout_ms)
        if reader is None:
            return None
        with reader:
            project = reader.project_at(Path(payload.cwd or ".").expanduser().resolve())
            if project is None:
                return None
            with reader.reads() as reads:
                now = clock_from_env().now()
                return first_answer(slug, reads, project, payload, marks or SessionMarks(), now)
    except Exception:  # the full path does no worse, and reports it
        return None


def view_imported(root: Path) -> bool:
    """Whether the project's ``CLAUDE.local.md`` imports the view file, so that Claude Code
    loaded it before the session's first hook (``orbital install claude-code`` adds the
    import; sessions of the plugin alone have none)."""
    try:
        text = (root / MEMORY_FILE).read_text(encoding="utf-8")
    except (OSError, ValueError):
        text = None
    return imports_view(text)


#: The hooks a first look may answer.
FIRST_LOOKS = ("prompt", "session-start", "pre-tool", "post-tool")


def first_answer(
    slug: str,
    reads: FirstReads,
    project: Project,
    payload: Payload,
    marks: SessionMarks,
    now: dt.datetime,
) -> HookResult | None:
    """The answer a first look gives hook ``slug`` (one of :data:`FIRST_LOOKS`) in
    ``project``, else None (the session's use cases answer)."""
    look = _FirstLook(reads, project, payload, marks, now)
    answer: HookResult | None = getattr(look, slug.replace("-", "_"))()
    return answer


class _FirstLook:
    def __init__(
        self,
        reads: FirstReads,
        project: Project,
        payload: Payload,
        marks: SessionMarks,
        now: dt.datetime,
    ) -> None:
        self.reads = reads
        self.project = project
        self.p = payload
        self.marks = marks
        self.now = now

    def prompt(self) -> HookResult | None:
        """Nothing moved since the session last looked (or it was never seen: from now). A
        prompt means none of the session's tool calls runs (one refused after PreToolUse has
        no PostToolUse to end it)."""
        ToolCalls().end(self.project.project_id, self.p.session_id)
        pid = self.project.project_id
        mark = self.marks.get(pid, self.p.session_id)
        if mark.pending:
            return None  # a held write its tool never reported: the full path writes it again
        head = self.reads.head(pid)
        if mark.seen is None:
            self.marks.put(pid, self.p.session_id, mark._replace(seen=head))
        elif mark.seen != head:
            return None
        return self._recalled()

    def _recalled(self) -> HookResult | None:
        """Nothing moved: nothing to say, unless the prompt recalls archived entries
        (:mod:`._recall`; those the session was given before left out): the pointers are the
        answer. None (the full path answers) when the search index is behind, or when the
        session may inject less than the whole view: the level is the full path's to apply
        (a session's own, or a project's ever set)."""
        pid, session = self.project.project_id, self.p.session_id
        limit = recall_limit()
        if limit and self.p.prompt:
            if self.reads.search_behind(pid) is not None:
                return None
            mark = self.marks.get(pid, session)
            text, ids = recall_text(self.reads, pid, self.p.prompt, limit, mark.recalled)
            if ids:
                if os.environ.get(INJECT_VARIABLE) or self.reads.has_event(
                    pid, PROJECT_STREAM, INJECTION_SET
                ):
                    return None
                self.marks.put(pid, session, mark._replace(recalled=(*mark.recalled, *ids)))
                return HookResult(context_answer("UserPromptSubmit", text))
        InjectionLog().add(pid, session, "turn", "")  # a turn that adds nothing
        return NOTHING

    def session_start(self) -> HookResult | None:
        """The view file the agent just loaded is at the head and was rendered today, and no
        file an entry cites moved: nothing to send, nothing to rewrite."""
        if not view_imported(Path(self.project.root)):
            return None  # the agent did not load it: the whole view is sent
        try:
            with (Path(self.project.root) / VIEW_FILE).open(encoding="utf-8") as view:
                header = view.readline()
                loaded = header + view.read()
        except (OSError, ValueError):
            return None
        pid = self.project.project_id
        head = self.reads.head(pid)
        zone = view_zone(header)
        tz = zoneinfo.ZoneInfo(zone) if zone else self.project.tz()
        today = self.now.astimezone(tz).date().isoformat()
        if view_position(header) != head or view_day(header) != today:
            return None
        entry_head = head_mark(*self.reads.category_heads(pid).get("entry", (0, "")))
        if not quiet(self.project, entry_head, self.reads.cache_key):
            return None  # a cited file may have moved: the session's check looks
        mark = self.marks.get(pid, self.p.session_id)
        if mark.pending or self._handoff_waits():
            return None
        self.marks.put(
            pid, self.p.session_id, mark._replace(seen=head, transcript=self.p.transcript_path)
        )
        InjectionLog().add(pid, self.p.session_id, "start", loaded)  # what the agent loaded
        return NOTHING

    def _handoff_waits(self) -> bool:
        """Whether a hand-off waits for a session to take it: the session's use case then
        decides whether this one does (read with the standard library: the stream's state
        is :class:`~orbital.domain.handoff.Handoffs` as JSON)."""
        import json

        raw = self.reads.stream_state(self.project.project_id, HANDOFF_STREAM)
        return raw is not None and not json.loads(raw).get("taken_by")

    def _target(self) -> str | None:
        path = self.p.tool_input.get("file_path")
        name = path if isinstance(path, str) else ""
        return memory_target(str(Path(self.project.root)), self.p.cwd, name, WRITABLE)

    def pre_tool(self) -> HookResult | None:
        """The tool call is recorded as running (a memory file it changes is the agent's:
        :class:`ToolCalls`); a file tool on a file that is not one of Orbital's, or a
        ``Bash`` command: nothing else to do."""
        ToolCalls().begin(self.project.project_id, self.p.session_id)
        if self.p.tool_name not in FILE_TOOLS or self._target() is None:
            return NOTHING
        return None

    def post_tool(self) -> HookResult | None:
        """A file tool on a file that is not Orbital's, or a ``Bash`` command after which every
        memory file still has the size and mtime Orbital recorded when it wrote it: the tool
        call has ended, nothing to take in."""
        answer = self._post_tool()
        if answer is not None:
            ToolCalls().end(self.project.project_id, self.p.session_id)
        return answer

    def _post_tool(self) -> HookResult | None:
        if self.p.tool_name in FILE_TOOLS:
            return NOTHING if self._target() is None else None
        if self.p.tool_name != "Bash":
            return NOTHING
        if self.marks.get(self.project.project_id, self.p.session_id).pending:
            return None
        folder = Path(self.project.root) / MEMORY_DIR
        for name in MEMORY_FILES.values():
            try:
                info = os.lstat(folder / name)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(info.st_mode):
                return None  # a symlink or a folder: the full path says what it is
            written = self.reads.written_stat(self.project.checkout, name)
            if written is None or written != (info.st_size, info.st_mtime_ns):
                return None
        return NOTHING
