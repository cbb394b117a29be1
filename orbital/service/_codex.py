"""Codex's hooks as use cases: a hook's payload in, its answer out (Codex 0.169.0).

Codex's hook payloads and answers have Claude Code's shape (:mod:`orbital.agents.claude_code_hooks`
reads and writes them); its file edits arrive as one ``apply_patch`` patch per call. A patch
section that changes a memory file is applied to the file as it is, the result goes through
the write path as ``agent`` (held: the tool writes the bytes), and the section is swapped for
one that writes Orbital's projection; a section whose write keeps nothing (a dropped ask
proposed again) is taken out, and the call denied when nothing else is left. Codex cannot
import a file into its instructions, so the session start sends the view itself, cut to fit,
and the agent reads the rest through the MCP server. An ask closed or reopened in a patch is
checked, as for Claude Code, against the user's words in the session's rollout.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from orbital.agents import codex
from orbital.agents.apply_patch import Section, parse_patch, rewrite
from orbital.agents.claude_code_hooks import (
    MCP_MORE,
    Json,
    Payload,
    allow_answer,
    context_answer,
    deny_answer,
    fit,
    memory_target,
    unreachable_notice,
)
from orbital.errors import warning_lines
from orbital.files import FileGateway
from orbital.project import Project
from orbital.service._first_look import WRITABLE

if TYPE_CHECKING:
    from orbital.service._agents import AgentSessions


class CodexHooks:
    def __init__(self, agents: AgentSessions) -> None:
        self.agents = agents

    def handle(self, slug: str, payload: Payload) -> Json | None:
        """The answer to one hook call; a folder outside every registered project gets none."""
        project = self.agents.project_at(payload.cwd)
        if project is None:
            problem = self.agents.elsewhere(payload.cwd) if slug == "session-start" else ""
            return context_answer("SessionStart", unreachable_notice(problem)) if problem else None
        if slug == "session-start":
            return self._session_start(project, payload)
        if slug == "prompt":
            text = self.agents.prompt_context(project, payload.session_id, payload.prompt)
            return context_answer("UserPromptSubmit", fit(text, f"… {MCP_MORE}")) if text else None
        if slug == "pre-tool":
            return self._pre_tool(project, payload)
        if slug == "post-tool":
            return self._post_tool(project, payload)
        if slug == "session-end":
            self.agents.end(
                project, payload.session_id, None, payload.transcript_path, agent=codex.AGENT
            )
        return None

    def _session_start(self, project: Project, p: Payload) -> Json | None:
        report = self.agents.start(
            project, p.session_id, None, p.transcript_path, source=p.source, agent=codex.AGENT
        )
        if not report.context:
            return None
        text = f"Orbital project memory (as of @{report.position}):\n{report.context}"
        return context_answer("SessionStart", fit(text, f"… (cut to fit) {MCP_MORE}"))

    def _targets(self, project: Project, p: Payload) -> list[tuple[int, Section, str]]:
        """The patch's sections that name a memory file, with their index and the file."""
        command = p.tool_input.get("command")
        sections = parse_patch(command) if isinstance(command, str) else None
        root = str(Path(project.root))
        found: list[tuple[int, Section, str]] = []
        for index, section in enumerate(sections or []):
            name = memory_target(root, p.cwd, section.path, WRITABLE)
            if name is not None:
                found.append((index, section, name))
        return found

    def _pre_tool(self, project: Project, p: Payload) -> Json | None:
        if p.tool_name != "apply_patch":
            return None
        command = p.tool_input.get("command")
        sections = parse_patch(command) if isinstance(command, str) else None
        if sections is None:
            return None
        targets = self._targets(project, p)
        if not targets:
            return None
        agents = self.agents
        unlanded, notes = agents.held_writes.sync_unlanded(project, p.session_id)
        if any(name in unlanded for _, _, name in targets):
            # Written again with a held write its patch never made: the model's copy is stale.
            return deny_answer("\n".join(notes))
        replaced: dict[int, Section | None] = {}
        refusals: list[str] = []
        held: list[str] = []
        for index, section, name in targets:
            raw = FileGateway(project.root).read_bytes(name)
            current = raw.decode("utf-8") if raw is not None else None
            proposal = codex.proposed(section, current)
            if proposal is None or proposal == (current or ""):
                continue  # left to the tool (it fails on its own), or nothing proposed
            outcome = self.agents.write(
                project, name, proposal.encode(), p.session_id, p.transcript(), read=raw
            )
            warnings = warning_lines(outcome.warnings)
            if outcome.content == (current or ""):
                replaced[index] = None
                reason = f"Orbital refused this change of orbital/{name}; the file is unchanged."
                refusals.append(f"{reason}\n{warnings}".rstrip())
                continue
            replaced[index] = rewrite(section.path, current, outcome.content)
            held.append(name)
            if outcome.content != proposal:
                notes.append(
                    f"Orbital wrote orbital/{name} through its write path; the file now holds "
                    "Orbital's projection (ids stamped, rules applied), not exactly your text."
                )
            if warnings:
                notes.append(warnings)
        if not replaced:
            return None
        patch = codex.rewritten(sections, replaced)
        if patch is None:
            return deny_answer("\n".join(refusals))
        for name in held:
            agents.held_writes.held(project, p.session_id, name)
        return allow_answer({**p.tool_input, "command": patch}, "\n".join(notes + refusals))

    def _post_tool(self, project: Project, p: Payload) -> Json | None:
        agents = self.agents
        if p.tool_name == "apply_patch":
            names = [name for _, _, name in self._targets(project, p)]
            if not names:
                return None
            for name in names:
                agents.held_writes.landed(project, p.session_id, name)
            notes = agents.held_writes.sync_unlanded(project, p.session_id)[1]
            warnings = agents.take_in(project, p.session_id, names, p.transcript())
        elif p.tool_name == "Bash":
            notes = agents.held_writes.sync_unlanded(project, p.session_id)[1]
            warnings = (
                agents.take_in(project, p.session_id, (), p.transcript())
                if self.agents.unmerged(project)
                else []
            )
        else:
            return None
        text = "\n".join(part for part in (*notes, warning_lines(warnings)) if part)
        if not text:
            return None
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}
