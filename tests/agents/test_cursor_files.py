"""Cursor's files as the installer changes them and takes them back, and its hook payloads
(pure). Cursor does not run here: the formats are Cursor's documented ones."""

from __future__ import annotations

import json

import pytest

from orbital.agents import cursor
from orbital.agents.changes import Change

ORBITAL = "/opt/venv/bin/orbital"


def test_the_mcp_server_is_added_beside_the_projects_own_and_taken_out_again() -> None:
    before = '{\n  "mcpServers": {\n    "docs": {"command": "docs"}\n  }\n}\n'
    change = cursor.install_mcp(before)
    servers = json.loads(change.written)["mcpServers"]
    assert servers == {
        "docs": {"command": "docs"},
        "orbital": {"command": "orbital", "args": ["mcp", "--project", "${workspaceFolder}"]},
    }
    assert "/" not in json.dumps(servers["orbital"]).replace("${workspaceFolder}", "")
    assert cursor.install_mcp(change.written) == Change(change.written, change.written)
    assert cursor.uninstall_mcp(change.written, change) == before
    assert json.loads(cursor.uninstall_mcp(change.written, None) or "") == json.loads(before)
    created = cursor.install_mcp(None)
    assert cursor.uninstall_mcp(created.written, created) is None


def test_an_orbital_server_of_the_projects_own_is_refused() -> None:
    with pytest.raises(ValueError, match="already has an MCP server named 'orbital'"):
        cursor.install_mcp('{"mcpServers": {"orbital": {"url": "http://x"}}}')


def test_the_rule_file_is_orbitals_alone() -> None:
    change = cursor.install_rule(None)
    assert change.written.startswith("---\ndescription: ")
    assert "alwaysApply: true\n---\n" + cursor.RULE_MARK in change.written
    assert "Never propose again an ask the user dropped" in change.written
    assert cursor.uninstall_rule(change.written, change) is None
    with pytest.raises(ValueError, match="exists and is not Orbital's"):
        cursor.install_rule("my own rule")
    assert cursor.uninstall_rule("my own rule", None) == "my own rule"


def test_user_hooks_get_orbitals_entries_and_keep_the_users() -> None:
    mine = {"version": 1, "hooks": {"stop": [{"command": "say done"}]}}
    before = json.dumps(mine, indent=2) + "\n"
    change = cursor.install_hooks(before, ORBITAL)
    hooks = json.loads(change.written)["hooks"]
    assert hooks["stop"] == [{"command": "say done"}]
    assert hooks["preToolUse"] == [
        {"command": f"{ORBITAL} hook cursor pre-tool", "timeout": 30, "matcher": "Write"}
    ]
    assert set(hooks) == {"stop", "sessionStart", "preToolUse", "afterFileEdit", "sessionEnd"}
    assert cursor.install_hooks(change.written, ORBITAL) == Change(change.written, change.written)
    assert cursor.uninstall_hooks(change.written, change) == before
    assert cursor.uninstall_hooks(change.written, None) == before
    created = cursor.install_hooks(None, ORBITAL)
    assert json.loads(created.written)["version"] == 1
    assert cursor.uninstall_hooks(created.written, created) is None


def test_a_payload_names_its_session_and_folder() -> None:
    raw = {
        "hook_event_name": "preToolUse",
        "conversation_id": "c1",
        "workspace_roots": ["/p"],
        "tool_name": "Write",
        "tool_input": {"file_path": "orbital/ASKS.md", "content": "x"},
    }
    payload = cursor.parse_payload(json.dumps(raw))
    assert (payload.session_id, payload.cwd, payload.tool_name) == ("c1", "/p", "Write")
    assert cursor.written_content(payload.tool_input) == "x"
    assert cursor.written_content({"contents": "y"}) == "y"
    for bad in ("[]", "{}", "not json"):
        with pytest.raises(ValueError):
            cursor.parse_payload(bad)
    assert cursor.deny_answer("no") == {
        "permission": "deny",
        "agent_message": "no",
        "user_message": "no",
    }
    assert cursor.context_answer("view") == {"additional_context": "view"}
