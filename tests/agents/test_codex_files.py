"""Codex's files as the installer changes them and takes them back, and ``apply_patch``
parsed, applied and rewritten (pure; the real CLI runs in ``test_codex_e2e.py``)."""

from __future__ import annotations

import json
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbital.agents import codex
from orbital.agents.apply_patch import (
    Section,
    apply_update,
    parse_patch,
    render_patch,
    rewrite,
)
from orbital.agents.changes import Change, install_section, uninstall_section

ORBITAL = "/opt/venv/bin/orbital"
MINE = 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n'


def test_the_server_table_is_added_between_markers_and_is_toml() -> None:
    change = codex.install_config(MINE, ORBITAL)
    parsed = tomllib.loads(change.written)
    assert parsed["model"] == "o3"
    assert parsed["mcp_servers"]["docs"] == {"command": "docs-server"}
    assert parsed["mcp_servers"]["orbital"] == {
        "command": ORBITAL,
        "args": ["mcp"],
        "env_vars": list(codex.FORWARDED),
    }
    assert change.written.startswith(MINE + "\n" + codex.CONFIG_BEGIN + "\n")
    assert codex.install_config(change.written, ORBITAL) == Change(change.written, change.written)


def test_a_path_needing_escapes_stays_valid_toml() -> None:
    odd = 'C:\\tools\\"orbital"\tbin'
    parsed = tomllib.loads(codex.install_config(None, odd).written)
    assert parsed["mcp_servers"]["orbital"]["command"] == odd


def test_a_server_named_orbital_of_the_users_own_or_bad_toml_is_refused() -> None:
    with pytest.raises(ValueError, match="already has an MCP server named 'orbital'"):
        codex.install_config('[mcp_servers.orbital]\ncommand = "x"\n', ORBITAL)
    with pytest.raises(ValueError, match="not valid TOML"):
        codex.install_config("model = \n", ORBITAL)


def test_reinstall_from_another_venv_replaces_the_table() -> None:
    first = codex.install_config(MINE, ORBITAL).written
    second = codex.install_config(first, "/elsewhere/orbital").written
    assert ORBITAL not in second
    assert second.count(codex.CONFIG_BEGIN) == 1


def test_uninstall_of_the_config_restores_bytes_or_removes_only_the_table() -> None:
    change = codex.install_config(MINE, ORBITAL)
    assert codex.uninstall_config(change.written, change) == MINE
    edited = change.written.replace('model = "o3"', 'model = "o4"')
    assert codex.uninstall_config(edited, change) == MINE.replace("o3", "o4")
    created = codex.install_config(None, ORBITAL)
    assert codex.uninstall_config(created.written, created) is None
    assert codex.uninstall_config(MINE, None) == MINE


def test_hooks_json_gets_codex_hooks_and_keeps_the_users() -> None:
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    before = json.dumps(mine, indent=2) + "\n"
    change = codex.install_hooks(before, ORBITAL)
    hooks = json.loads(change.written)["hooks"]
    assert hooks["Stop"] == [  # the person's own first, then Orbital's (the hand-off)
        *mine["hooks"]["Stop"],
        {"hooks": [{"type": "command", "command": f"{ORBITAL} hook codex stop", "timeout": 10}]},
    ]
    assert hooks["PreToolUse"] == [
        {
            "matcher": "apply_patch",
            "hooks": [
                {"type": "command", "command": f"{ORBITAL} hook codex pre-tool", "timeout": 30}
            ],
        }
    ]
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 3
    assert codex.install_hooks(change.written, ORBITAL) == Change(change.written, change.written)
    assert codex.uninstall_hooks(change.written, change) == before
    assert codex.uninstall_hooks(change.written, None) == before
    created = codex.install_hooks(None, ORBITAL)
    assert codex.uninstall_hooks(created.written, created) is None


def test_agents_md_gets_a_marked_section_that_uninstall_takes_out() -> None:
    mine = "# Agents\n\nRun the tests.\n"
    change = codex.install_agents_md(mine)
    assert change.written.startswith(mine + "\n" + codex.AGENTS_BEGIN + "\n## Project memory")
    assert change.written.endswith(codex.AGENTS_END + "\n")
    assert codex.install_agents_md(change.written) == Change(change.written, change.written)
    assert codex.uninstall_agents_md(change.written, change) == mine
    later = change.written + "\nMore of mine.\n"
    assert codex.uninstall_agents_md(later, change) == mine + "\nMore of mine.\n"
    created = codex.install_agents_md(None)
    assert codex.uninstall_agents_md(created.written, created) is None


@pytest.mark.parametrize("before", ["x", "x\n", "x\n\n", None])
def test_a_section_round_trips_whatever_the_file_ends_with(before: str | None) -> None:
    change = install_section(before, "<<", ">>", "body")
    assert change.written.endswith("<<\nbody\n>>\n")
    assert uninstall_section(change.written, change, "<<", ">>") == before
    # Without the record (a file edited since): the section and its blank line go.
    stripped = uninstall_section(change.written, None, "<<", ">>")
    assert (stripped or "").rstrip("\n") == (before or "").rstrip("\n")


# -- apply_patch ----------------------------------------------------------------------------

PATCH = (
    "*** Begin Patch\n"
    "*** Add File: notes.txt\n+hello\n"
    "*** Update File: orbital/DECISIONS.md\n@@ ## b\n b1\n-b2\n+B2\n"
    "*** Delete File: old.txt\n"
    "*** End Patch\n"
)


def test_a_patch_is_parsed_into_sections_and_rendered_back() -> None:
    sections = parse_patch(PATCH)
    assert sections is not None
    assert [(s.kind, s.path) for s in sections] == [
        ("add", "notes.txt"),
        ("update", "orbital/DECISIONS.md"),
        ("delete", "old.txt"),
    ]
    assert render_patch(sections) == PATCH
    assert parse_patch("not a patch") is None
    assert parse_patch("*** Begin Patch\nstray\n*** End Patch\n") is None


def test_an_update_applies_after_its_anchor_and_loosely_on_whitespace() -> None:
    current = "## a\nb1\nb2\n## b\nb1\nb2 \n"
    update = parse_patch(PATCH)
    assert update is not None
    assert apply_update(current, update[1]) == "## a\nb1\nb2\n## b\nb1\nB2\n"
    missing = Section("update", "f", ("@@", "-nowhere"))
    assert apply_update(current, missing) is None
    at_end = Section("update", "f", ("@@", " b1", "+x", "*** End of File"))
    assert apply_update(current.replace("b2 \n", ""), at_end) == "## a\nb1\nb2\n## b\nb1\nx\n"
    append = Section("update", "f", ("@@", "+tail"))
    assert apply_update("a\n", append) == "a\ntail\n"


def test_a_rewrite_turns_the_current_file_into_the_wanted_one_by_the_lines_that_differ() -> None:
    current, wanted = "one\ntwo\nthree\n", "one\n2 <!--id-->\nthree\nfour\n"
    section = rewrite("orbital/X.md", current, wanted)
    assert section.body == ("@@", "-two", "-three", "+2 <!--id-->", "+three", "+four")
    assert apply_update(current, section) == wanted
    assert rewrite("orbital/X.md", None, wanted) == Section(
        "add", "orbital/X.md", ("+one", "+2 <!--id-->", "+three", "+four")
    )
    repeated = "- same\n- same\nend\n"  # the first "- same" would be the wrong one
    assert apply_update(repeated, rewrite("X", repeated, "- same\n- Same\nend\n")) == (
        "- same\n- Same\nend\n"
    )


def test_codex_proposes_what_the_section_leaves_and_drops_refused_sections() -> None:
    sections = parse_patch(PATCH)
    assert sections is not None
    assert codex.proposed(sections[0], None) == "hello\n"
    assert codex.proposed(sections[2], "x") is None  # a delete is left to the tool
    moved = Section("update", "a", ("*** Move to: b", "@@", "-x", "+y"))
    assert codex.proposed(moved, "x\n") is None
    swap = rewrite("orbital/DECISIONS.md", "a\n", "b\n")
    assert codex.rewritten(sections, {1: swap}) == render_patch([sections[0], swap, sections[2]])
    assert codex.rewritten(sections[1:2], {0: None}) is None


_LINES = st.lists(st.sampled_from(["- a\n", "- b\n", "- c [x]\n", "\n", " - a\n"]), max_size=12)


@given(before=_LINES, after=_LINES)
def test_a_rewrite_leaves_any_file_as_wanted(before: list[str], after: list[str]) -> None:
    current, wanted = "".join(before), "".join(after)
    assert apply_update(current, rewrite("orbital/ASKS.md", current, wanted)) == wanted
