"""Claude Code's hooks as use cases: a hook's payload in, its answer out.

``orbital hook claude-code <event>`` reads the payload and prints what
:meth:`ClaudeCodeHooks.handle` returns; every decision about Claude Code's JSON is in
:mod:`orbital.agents.claude_code_hooks` (pure), every memory rule in the use cases this
calls (:mod:`._agents`, the write path).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.agents.claude_code import VIEW_FILE
from orbital.agents.claude_code_hooks import (
    Payload,
    allow_answer,
    context_answer,
    deny_answer,
    fit,
    memory_target,
    proposed_content,
    rewritten_input,
    unreachable_notice,
)
from orbital.errors import warning_lines
from orbital.files import FileGateway
from orbital.project import Project
from orbital.service._first_look import (
    FIRST_LOOKS,
    WRITABLE,
    HookResult,
    first_answer,
    view_imported,
)
from orbital.service._sessions import ToolCalls

if TYPE_CHECKING:
    from orbital.service._agents import AgentSessions

_READ_VIEW = f"Read {VIEW_FILE} for the whole current memory view."


def _post_tool_answer(parts: list[str]) -> HookResult:
    """PostToolUse context (after the tool's result), or nothing."""
    text = "\n".join(part for part in parts if part)
    if not text:
        return HookResult()
    output = {"hookEventName": "PostToolUse", "additionalContext": text}
    return HookResult({"hookSpecificOutput": output})


class ClaudeCodeHooks:
    def __init__(self, agents: AgentSessions, editor_configured: Callable[[], bool]) -> None:
        """``editor_configured``: whether a memory editor's model is set up (asked at session
        end only, so the editor is made then)."""
        self.agents, self.editor_configured = agents, editor_configured

    def handle(self, slug: str, payload: Payload) -> HookResult:
        """The answer to one hook call; a folder outside every registered project gets none."""
        project = self.agents.project_at(payload.cwd)
        if project is None:
            return self._elsewhere(slug, payload)
        if slug in FIRST_LOOKS:
            with self.agents.store.reader() as reads:
                now = self.agents.units.ctx.clock.now()
                first = first_answer(slug, reads, project, payload, self.agents.marks, now)
            if first is not None:
                return first
        handler = getattr(self, "_" + slug.replace("-", "_"))
        result: HookResult = handler(project, payload)
        return result

    def _elsewhere(self, slug: str, payload: Payload) -> HookResult:
        """A folder of no project in this store: nothing, unless its committed id names a
        project (kept in another store): then a session start says so (once, one line)."""
        problem = self.agents.elsewhere(payload.cwd) if slug == "session-start" else ""
        if not problem:
            return HookResult()
        answer = context_answer("SessionStart", unreachable_notice(problem))
        return HookResult(answer, problem=problem)

    def _view_path(self, project: Project) -> Path:
        return Path(project.root) / VIEW_FILE

    def _session_start(self, project: Project, p: Payload) -> HookResult:
        agents = self.agents
        view_path, loaded = self._view_path(project), view_imported(Path(project.root))
        report = agents.start(
            project, p.session_id, view_path, p.transcript_path, loaded, source=p.source
        )
        answer = None
        if report.context:
            text = fit(report.context, f"… (cut to fit) {_READ_VIEW}")
            answer = context_answer("SessionStart", text)
        if report.behind:  # rendered by a detached process (the view counts tokens)
            return HookResult(answer, project=project, view_file=True)
        return HookResult(answer)

    def _prompt(self, project: Project, p: Payload) -> HookResult:
        text = self.agents.prompt_context(project, p.session_id, p.prompt)
        if not text:
            return HookResult()
        return HookResult(context_answer("UserPromptSubmit", fit(text, f"… {_READ_VIEW}")))

    def _subagent_start(self, project: Project, p: Payload) -> HookResult:
        view = self.agents.subagent_view(project, p.session_id)
        if not view:
            return HookResult()
        text = fit(view, f"… (cut to fit) {_READ_VIEW}")
        return HookResult(context_answer("SubagentStart", text))

    def _target(self, project: Project, p: Payload) -> str | None:
        path = p.tool_input.get("file_path")
        root = str(Path(project.root))
        return memory_target(root, p.cwd, path if isinstance(path, str) else "", WRITABLE)

    def _pre_tool(self, project: Project, p: Payload) -> HookResult:
        name = self._target(project, p)  # a file tool on a memory file: the first look's
        assert name is not None
        unlanded, notes = self.agents.held_writes.sync_unlanded(project, p.session_id)
        if name in unlanded:
            # The file was just written again with the write the tool never made: the
            # agent's copy of it is stale, and its own tool would refuse to edit it.
            ToolCalls().end(project.project_id, p.session_id)  # the tool will not run
            return HookResult(deny_answer("\n".join(notes)))
        raw = FileGateway(project.root).read_bytes(name)
        current = raw.decode("utf-8") if raw is not None else ""
        proposed = proposed_content(p.tool_name, p.tool_input, current)
        if proposed is None:
            return HookResult()  # the tool fails on its own (old_string not found…)
        transcript = p.transcript()
        outcome = self.agents.write(
            project, name, proposed.encode(), p.session_id, transcript, read=raw
        )
        warnings = warning_lines(outcome.warnings)
        wanted = outcome.content
        if wanted == current:
            if proposed == current:
                return HookResult()  # nothing proposed: the tool says so itself
            # Nothing of the proposal kept (a dropped ask proposed again…): the tool must not
            # run, and the model reads why as the tool's error.
            reason = f"Orbital refused this write of orbital/{name}; the file is unchanged."
            ToolCalls().end(project.project_id, p.session_id)  # the tool will not run
            return HookResult(deny_answer(f"{reason}\n{warnings}".rstrip()))
        note = ""
        if wanted != proposed:
            note = (
                f"Orbital wrote orbital/{name} through its write path; the file now holds "
                "Orbital's projection (ids stamped, rules applied), not exactly your text."
            )
        context = "\n".join(part for part in (*notes, note, warnings) if part)
        updated = rewritten_input(p.tool_name, p.tool_input, current, wanted)
        self.agents.held_writes.held(project, p.session_id, name)
        return HookResult(allow_answer(updated, context))

    def _post_tool(self, project: Project, p: Payload) -> HookResult:
        try:
            return self._take_in_after_tool(project, p)
        finally:  # taken in: the watcher may sync the project again
            ToolCalls().end(project.project_id, p.session_id)

    def _take_in_after_tool(self, project: Project, p: Payload) -> HookResult:
        # A file tool on a memory file, or a Bash command after which one changed: the
        # first look answered every other call.
        name = self._target(project, p)
        if name is not None:
            self.agents.held_writes.landed(project, p.session_id, name)
            notes = self.agents.held_writes.sync_unlanded(project, p.session_id)[1]
            warnings = self.agents.take_in(project, p.session_id, [name], p.transcript())
        else:
            notes = self.agents.held_writes.sync_unlanded(project, p.session_id)[1]
            if not self.agents.unmerged(project):
                return _post_tool_answer(notes)
            warnings = self.agents.take_in(project, p.session_id, (), p.transcript())
        return _post_tool_answer([*notes, warning_lines(warnings)])

    def _session_end(self, project: Project, p: Payload) -> HookResult:
        ToolCalls().end(project.project_id, p.session_id)
        view = self._view_path(project)
        self.agents.end(project, p.session_id, view, p.transcript_path)
        transcript = Path(p.transcript_path) if p.transcript_path else None
        if self.editor_configured():
            return HookResult(
                editor_sessions=transcript.parent if transcript else None,
                project=project,
                editor=True,
                editor_session=transcript.stem if transcript else "",
            )
        return HookResult()
