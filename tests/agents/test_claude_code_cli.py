"""The real Claude Code CLI against the scripted model: the facts Orbital's hooks build on.

Each test runs ``claude -p`` once (about a second) in a temporary project with a HOME of its
own, and asserts on what reached the model (the stand-in's request log), on the hooks'
payloads and on the files afterwards. They pin the behaviour of the version in
``.ci/claude-code-version``: a failure after a version bump means a fact in
``docs/claude-code-notes.md`` moved.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.agents.claude_cli import Run, run_claude
from tests.agents.fake_anthropic import FakeAnthropic, Turn, call, say, serving

HOOK = Path(__file__).with_name("scripted_hook.py")


@dataclass
class Project:
    """A temporary project whose hooks all run ``scripted_hook.py`` with canned replies."""

    root: Path
    home: Path
    log: Path

    def hook(self, name: str, *replies: dict[str, object]) -> dict[str, object]:
        """A command hook entry that logs its payload and answers ``replies`` in turn."""
        path = self.root.parent / f"{name}.replies.json"
        path.write_text(json.dumps(list(replies)), encoding="utf-8")
        command = [sys.executable, str(HOOK), str(self.log), str(path)]
        return {"type": "command", "command": " ".join(command)}

    def settings(self, hooks: dict[str, list[dict[str, object]]]) -> None:
        folder = self.root / ".claude"
        folder.mkdir(exist_ok=True)
        (folder / "settings.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")

    def payloads(self) -> list[dict[str, object]]:
        """What Claude Code sent the hooks, in the order they ran."""
        rows = [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]
        return [row["payload"] for row in rows]

    def run(self, claude: Path, script: list[Turn], prompt: str) -> tuple[Run, FakeAnthropic]:
        with serving(script) as fake:
            done = run_claude(claude, self.root, self.home, fake.url, prompt)
        assert done.returncode == 0, done.stdout + done.stderr
        return done, fake


def _project(tmp_path: Path) -> Project:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return Project(root, home, tmp_path / "hooks.jsonl")


def _context(event: str, text: str) -> dict[str, object]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _pre_tool(decision: str, **fields: object) -> dict[str, object]:
    output = {"hookEventName": "PreToolUse", "permissionDecision": decision, **fields}
    return {"hookSpecificOutput": output}


def test_hook_context_claude_md_import_and_rewritten_write_reach_the_model(
    claude: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    notes = project.root / "notes.md"
    project.settings(
        {
            "SessionStart": [{"hooks": [project.hook("start", _context("SessionStart", "S1"))]}],
            "UserPromptSubmit": [
                {"hooks": [project.hook("prompt", _context("UserPromptSubmit", "P1"))]}
            ],
            "PreToolUse": [
                {
                    "matcher": "Write",
                    "hooks": [
                        project.hook(
                            "pre",
                            _pre_tool(
                                "allow",
                                updatedInput={"file_path": str(notes), "content": "by hook\n"},
                            ),
                        )
                    ],
                }
            ],
        }
    )
    view = "".join(f"view line {n}\n" for n in range(3000))  # ~42k chars: past any hook limit
    (project.root / "orbital").mkdir()
    (project.root / "orbital" / "VIEW.md").write_text(view, encoding="utf-8")
    (project.root / "CLAUDE.md").write_text("# Project\n@orbital/VIEW.md\n", encoding="utf-8")

    script = [call("Write", {"file_path": str(notes), "content": "by model\n"}), say("Done.")]
    done, fake = project.run(claude, script, "write the notes")

    assert done.result()["result"] == "Done."
    first, last = fake.main_requests[0], fake.main_requests[-1]
    texts = first.texts()
    assert (
        "<system-reminder>\nSessionStart hook additional context: S1\n</system-reminder>" in texts
    )
    assert (
        "<system-reminder>\nUserPromptSubmit hook additional context: P1\n</system-reminder>"
    ) in texts
    assert "write the notes" in texts
    assert any(view in text for text in texts), "the imported file arrives whole"
    assert any(t.startswith("File created successfully at: " + str(notes)) for t in last.texts())
    assert notes.read_text(encoding="utf-8") == "by hook\n"

    events = [p["hook_event_name"] for p in project.payloads()]
    assert events == ["SessionStart", "UserPromptSubmit", "PreToolUse"]
    start, prompt, pre = project.payloads()
    session = done.result()["session_id"]
    assert {start["session_id"], prompt["session_id"], pre["session_id"]} == {session}
    assert start["source"] == "startup"
    assert prompt["prompt"] == "write the notes"
    assert pre["tool_input"] == {"file_path": str(notes), "content": "by model\n"}
    transcript = Path(str(start["transcript_path"]))
    assert transcript.is_relative_to(project.home / ".claude" / "projects")
    assert transcript.is_file()


def test_an_edit_rewritten_to_a_whole_file_replacement_keeps_the_next_edit_working(
    claude: Path, tmp_path: Path
) -> None:
    """How a write path can make Claude Code itself write Orbital's outcome: the hook turns
    the model's Edit into "replace the whole current file with the outcome". (A hook that
    writes the file itself makes the tool refuse: "File has been modified since read".)"""
    project = _project(tmp_path)
    memory = project.root / "orbital" / "MEMORY.md"
    memory.parent.mkdir()
    memory.write_text("# Memory\nold line\ntail\n", encoding="utf-8")
    outcome = "# Memory\nnew line <!-- id:1 -->\ntail\n"
    rewrite = {"old_string": memory.read_text(encoding="utf-8"), "new_string": outcome}
    reply = _pre_tool(
        "allow",
        updatedInput={"file_path": str(memory), **rewrite, "replace_all": False},
        additionalContext="stamped id:1",
    )
    project.settings({"PreToolUse": [{"matcher": "Edit", "hooks": [project.hook("pre", reply)]}]})
    script = [
        call("Read", {"file_path": str(memory)}),
        call("Edit", {"file_path": str(memory), "old_string": "old line", "new_string": "new"}),
        call("Edit", {"file_path": str(memory), "old_string": "tail", "new_string": "end"}),
        say("Edited."),
    ]
    _, fake = project.run(claude, script, "edit the memory")

    texts = fake.main_requests[-1].texts()
    updated = [t for t in texts if t.startswith(f"The file {memory} has been updated successfully")]
    assert len(updated) == 2, texts
    assert "<system-reminder>\nPreToolUse:Edit hook additional context: stamped id:1\n" in "".join(
        texts
    )
    assert memory.read_text(encoding="utf-8") == outcome.replace("tail", "end")


def test_a_denied_write_leaves_the_file_and_tells_the_model_why(
    claude: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    asks = project.root / "orbital" / "ASKS.md"
    asks.parent.mkdir()
    asks.write_text("# Asks\n", encoding="utf-8")
    before = asks.read_bytes()
    reason = "refused: that ask was dropped by the user"
    reply = _pre_tool("deny", permissionDecisionReason=reason)
    project.settings(
        {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [project.hook("pre", reply)]}]}
    )
    script = [
        call("Read", {"file_path": str(asks)}),
        call("Write", {"file_path": str(asks), "content": "# Asks\n- [ ] again\n"}),
        say("Understood."),
    ]
    _, fake = project.run(claude, script, "add the ask")

    results = [t for t in fake.main_requests[-1].texts() if "hook error" in t]
    assert results and results[0].startswith(f"PreToolUse:Write hook error: {reason}")
    assert asks.read_bytes() == before
