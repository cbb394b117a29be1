"""Installing Orbital into Claude Code's files: merged in, kept apart, taken out exactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbital.agents.claude_code import (
    HOOKS,
    IMPORT_LINE,
    Change,
    install_import,
    install_settings,
    is_orbital_hook,
    uninstall_import,
    uninstall_settings,
    with_orbital,
    without_orbital,
)

ORBITAL = "/home/me/proj/.venv/bin/orbital"
THEIRS = {"type": "command", "command": "./scripts/lint.sh"}
EXISTING = (
    "{\n"
    '    "permissions": {"allow": ["Bash(npm test)"]},\n'
    '    "hooks": {\n'
    '        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
    '"command": "./scripts/guard.sh"}]}],\n'
    '        "Notification": []\n'
    "    },\n"
    '    "env": {"FOO": "bär"}\n'
    "}"
)


def _events(text: str) -> dict[str, list[str]]:
    """Each event's commands, in order."""
    hooks = json.loads(text)["hooks"]
    return {e: [h["command"] for g in groups for h in g["hooks"]] for e, groups in hooks.items()}


def test_install_into_no_file_writes_every_hook_and_uninstall_removes_the_file() -> None:
    change = install_settings(None, ORBITAL)
    assert change.changed and change.before is None
    settings = json.loads(change.written)
    assert list(settings) == ["hooks"]
    assert list(settings["hooks"]) == [hook.event for hook in HOOKS]
    pre_tool = settings["hooks"]["PreToolUse"][0]
    assert pre_tool["matcher"] == "Write|Edit|MultiEdit|Bash"
    assert pre_tool["hooks"] == [
        {"type": "command", "command": f"{ORBITAL} hook claude-code pre-tool", "timeout": 30}
    ]
    assert change.written.endswith("}\n")
    assert uninstall_settings(change.written, change) is None
    assert uninstall_settings(change.written, None) is None


def test_install_keeps_every_other_setting_and_uninstall_gives_the_same_bytes_back() -> None:
    change = install_settings(EXISTING, ORBITAL)
    settings = json.loads(change.written)
    assert settings["permissions"] == {"allow": ["Bash(npm test)"]}
    assert settings["env"] == {"FOO": "bär"}
    assert _events(change.written)["PreToolUse"] == [
        "./scripts/guard.sh",
        f"{ORBITAL} hook claude-code pre-tool",
    ]
    assert _events(change.written)["Stop"] == [f"{ORBITAL} hook claude-code stop"]
    assert _events(change.written)["Notification"] == []
    assert '\n    "permissions"' in change.written, "the file's indentation is kept"
    assert not change.written.endswith("\n"), "and its missing final newline"
    assert uninstall_settings(change.written, change) == EXISTING
    # Without the record the file is rebuilt, still without a trace of Orbital.
    assert json.loads(uninstall_settings(change.written, None) or "") == json.loads(EXISTING)


def test_install_is_idempotent_and_a_new_executable_replaces_the_old_one() -> None:
    first = install_settings(EXISTING, ORBITAL)
    again = install_settings(first.written, ORBITAL)
    assert not again.changed
    moved = install_settings(first.written, "/opt/orbital env/bin/orbital")
    commands = _events(moved.written)["SessionStart"]
    assert commands == ["'/opt/orbital env/bin/orbital' hook claude-code session-start"]


def test_uninstall_after_the_person_changed_the_file_keeps_their_change() -> None:
    change = install_settings(EXISTING, ORBITAL)
    edited = json.loads(change.written)
    edited["model"] = "opus"
    edited["hooks"]["SessionStart"].insert(0, {"hooks": [THEIRS]})
    edited["hooks"]["PreToolUse"][-1]["hooks"].append(THEIRS)  # theirs, in Orbital's group
    text = json.dumps(edited, indent=2)

    left = json.loads(uninstall_settings(text, change) or "")
    assert left["model"] == "opus"
    assert _events(json.dumps(left)) == {
        "PreToolUse": ["./scripts/guard.sh", THEIRS["command"]],
        "Notification": [],
        "SessionStart": [THEIRS["command"]],
    }


def test_uninstall_leaves_a_file_without_orbital_alone() -> None:
    assert uninstall_settings(EXISTING, None) == EXISTING


@pytest.mark.parametrize(
    ("entry", "ours"),
    [
        ({"type": "command", "command": "orbital hook claude-code prompt"}, True),
        ({"type": "command", "command": "'/a b/orbital' hook claude-code session-end"}, True),
        ({"type": "command", "command": "echo hook claude-code"}, False),
        ({"type": "command", "command": "orbital hook claude-code 'unclosed"}, False),
        ({"type": "http", "url": "http://127.0.0.1:8765/hook"}, False),
        ("not an entry", False),
    ],
)
def test_orbital_entries_are_recognised_by_their_command(entry: object, ours: bool) -> None:
    assert is_orbital_hook(entry) is ours


@pytest.mark.parametrize(
    "text", ["[1, 2]", "{not json", '{"hooks": []}', '{"hooks": {"SessionStart": {}}}']
)
def test_settings_orbital_cannot_merge_into_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        install_settings(text, ORBITAL)


_groups = st.lists(
    st.fixed_dictionaries(
        {"hooks": st.lists(st.builds(lambda c: {"type": "command", "command": c}, st.text()))},
        optional={"matcher": st.sampled_from(["Bash", "Write|Edit", ""])},
    ),
    min_size=1,
)
_settings = st.fixed_dictionaries(
    {},
    optional={
        "hooks": st.dictionaries(st.sampled_from([h.event for h in HOOKS] + ["Stop"]), _groups),
        "model": st.text(),
    },
).filter(lambda s: s.get("hooks") != {})


@given(_settings)
def test_removing_what_was_merged_gives_the_settings_back(settings: dict[str, object]) -> None:
    merged = with_orbital(settings, ORBITAL)
    assert with_orbital(merged, ORBITAL) == merged
    assert without_orbital(merged) == settings


@pytest.mark.parametrize("before", [None, "", "# Notes\n", "# Notes\nno final newline"])
def test_the_import_line_is_added_once_and_taken_out_exactly(before: str | None) -> None:
    change = install_import(before)
    assert change.written.endswith(f"{IMPORT_LINE}\n")
    assert change.written.count(IMPORT_LINE) == 1
    assert install_import(change.written).written == change.written
    assert uninstall_import(change.written, change) == before
    edited = change.written + "More notes\n"
    assert uninstall_import(edited, change) == edited.replace(f"{IMPORT_LINE}\n", "")


def test_an_import_file_left_empty_without_a_record_is_removed() -> None:
    assert uninstall_import(f"{IMPORT_LINE}\n", None) is None
    assert uninstall_import("# Mine\n", Change("# Mine\n", "# Mine\n")) == "# Mine\n"
