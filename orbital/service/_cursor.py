"""Cursor's hooks as use cases (documented payloads only: Cursor does not run here).

Cursor's ``preToolUse`` can let a tool run or deny it, but not change what it writes, so a
``Write`` of a memory file goes through the write path as ``agent`` and Orbital writes the
file itself; the tool is then denied with a message saying what Orbital did (saved, with any
warnings, or refused and why), so Cursor's own write never overwrites Orbital's projection.
Any other edit of a memory file (Cursor's edit tools, the shell) is taken in after the fact
(``afterFileEdit``) as the agent's, in the conversation's session.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from orbital.agents.claude_code_hooks import MCP_MORE, Payload, fit, memory_target
from orbital.agents.cursor import Json, context_answer, deny_answer, written_content
from orbital.errors import warning_lines
from orbital.files import FileGateway
from orbital.project import Project
from orbital.service._first_look import WRITABLE

if TYPE_CHECKING:
    from orbital.service._agents import AgentSessions


class CursorHooks:
    def __init__(self, agents: AgentSessions) -> None:
        self.agents = agents

    def handle(self, slug: str, payload: Payload) -> Json | None:
        """The answer to one hook call; a folder outside every registered project gets none."""
        project = self.agents.project_at(payload.cwd)
        if project is None:
            return None
        agents = self.agents
        if slug == "session-start":
            report = agents.start(
                project, payload.session_id, None, payload.transcript_path, agent="cursor"
            )
            text = f"Orbital project memory (as of @{report.position}):\n{report.context}"
            return context_answer(fit(text, f"… (cut to fit) {MCP_MORE}"))
        if slug == "pre-tool":
            return self._pre_tool(project, payload)
        if slug == "after-edit":
            name = self._target(project, payload, payload.file_path)
            if name is not None:
                agents.take_in(project, payload.session_id, [name])
            return None
        if slug == "session-end":
            agents.end(project, payload.session_id, None, payload.transcript_path, agent="cursor")
        return None

    def _target(self, project: Project, p: Payload, path: object) -> str | None:
        root = str(Path(project.root))
        return memory_target(root, p.cwd, path if isinstance(path, str) else "", WRITABLE)

    def _pre_tool(self, project: Project, p: Payload) -> Json | None:
        if p.tool_name != "Write":
            return None
        name = self._target(project, p, p.tool_input.get("file_path"))
        content = written_content(p.tool_input)
        if name is None or content is None:
            return None
        raw = FileGateway(project.root).read_bytes(name)
        current = raw.decode("utf-8") if raw is not None else ""
        if content == current:
            return None
        outcome = self.agents.write(
            project, name, content.encode(), p.session_id, hold=False, read=raw
        )
        warnings = warning_lines(outcome.warnings)
        if outcome.content == current:
            reason = f"Orbital refused this write of orbital/{name}; the file is unchanged."
        else:
            reason = (
                f"Orbital saved orbital/{name} through its write path (ids stamped, rules "
                "applied), so this tool call did not run: the file already holds Orbital's "
                "version. Read it again before editing it."
            )
        return deny_answer(f"{reason}\n{warnings}".rstrip())
