"""``orbital install|uninstall codex|cursor`` and ``orbital hook codex|cursor <event>`` through
the CLI, on both backends: files back byte for byte, shared per-user files kept while another
project uses them, and each hook's answer to the agents' documented payloads."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.agents.apply_patch import apply_update, parse_patch
from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor, AskClosed
from orbital.service import HistoryQuery, Orbital


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("CODEX_HOME", str(folder / ".codex"))
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    return folder


def _project(tmp_path: Path, name: str = "project") -> Path:
    root = tmp_path / name
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return root


def _run(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, list(args))
    return done.exit_code, done.output


def _hook(agent: str, event: str, payload: Mapping[str, object]) -> dict[str, object] | None:
    done = CliRunner().invoke(cli, ["hook", agent, event], input=json.dumps(payload))
    assert done.exit_code == 0 and not done.stderr, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def _bytes(*paths: Path) -> dict[Path, bytes | None]:
    return {p: p.read_bytes() if p.exists() else None for p in paths}


# -- Codex: install ---------------------------------------------------------------------------


def test_codex_install_twice_then_uninstall_gives_every_file_its_bytes_back(
    orbital_db: str, tmp_path: Path, home: Path
) -> None:
    root = _project(tmp_path)
    config, hooks, agents = (
        home / ".codex/config.toml",
        home / ".codex/hooks.json",
        root / "AGENTS.md",
    )
    config.write_text('model = "o3"\n', encoding="utf-8")
    agents.write_text("# Agents\nRun the tests.\n", encoding="utf-8")
    before = _bytes(config, hooks, agents)

    code, out = _run("install", "codex", "--project", str(root))
    assert code == 0, out
    assert out.splitlines()[:3] == [
        "wrote ~/.codex/config.toml",
        "wrote ~/.codex/hooks.json",
        "wrote AGENTS.md",
    ]
    assert "## Project memory (Orbital)" in agents.read_text(encoding="utf-8")
    code, out = _run("install", "codex", "--project", str(root))
    assert out.splitlines()[:3] == [
        "unchanged ~/.codex/config.toml",
        "unchanged ~/.codex/hooks.json",
        "unchanged AGENTS.md",
    ]
    code, out = _run("uninstall", "codex", "--project", str(root))
    assert code == 0, out
    assert out.splitlines() == [
        "restored ~/.codex/config.toml",
        "removed ~/.codex/hooks.json",
        "restored AGENTS.md",
    ]
    assert _bytes(config, hooks, agents) == before


def test_codex_files_shared_by_two_projects_stay_until_the_last_uninstall(
    orbital_db: str, tmp_path: Path, home: Path
) -> None:
    first, second = _project(tmp_path, "one"), _project(tmp_path, "two")
    config = home / ".codex/config.toml"
    _run("install", "codex", "--project", str(first))
    _run("install", "codex", "--project", str(second))
    code, out = _run("uninstall", "codex", "--project", str(first))
    assert code == 0
    assert out.splitlines() == [
        "kept ~/.codex/config.toml (still used by 1 other project(s))",
        "kept ~/.codex/hooks.json (still used by 1 other project(s))",
        "removed AGENTS.md",
    ]
    assert "[mcp_servers.orbital]" in config.read_text(encoding="utf-8")
    assert (second / "AGENTS.md").exists()
    code, _ = _run("uninstall", "codex", "--project", str(second))
    assert code == 0
    assert not config.exists() and not (home / ".codex/hooks.json").exists()


def test_codex_install_over_a_users_own_orbital_server_is_refused_and_writes_nothing(
    orbital_db: str, tmp_path: Path, home: Path
) -> None:
    root = _project(tmp_path)
    config = home / ".codex/config.toml"
    config.write_text('[mcp_servers.orbital]\ncommand = "mine"\n', encoding="utf-8")
    before = _bytes(config, home / ".codex/hooks.json", root / "AGENTS.md")
    code, out = _run("install", "codex", "--project", str(root))
    assert code == 4
    assert out == (
        "error: ~/.codex/config.toml: config.toml already has an MCP server named 'orbital' "
        "that Orbital did not write; remove or rename it first\n"
    )
    assert _bytes(config, home / ".codex/hooks.json", root / "AGENTS.md") == before


# -- Codex: hooks -----------------------------------------------------------------------------


def _patch(path: str, context: str, added: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n {context}\n+{added}\n*** End Patch\n"


def test_codex_apply_patch_of_a_memory_file_goes_through_the_write_path(
    orbital_db: str, tmp_path: Path, home: Path, clock: FixedClock
) -> None:
    root = _project(tmp_path)
    decisions = root / "orbital" / "DECISIONS.md"
    current = decisions.read_text(encoding="utf-8")
    last = current.splitlines()[-1]
    patch = _patch("orbital/DECISIONS.md", last, "\n+## Use SQLite\n+Chose SQLite.")
    patch = patch.replace("*** End Patch\n", "*** Add File: notes.txt\n+hi\n*** End Patch\n")
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "cx1",
        "cwd": str(root),
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
    }
    answer = _hook("codex", "pre-tool", payload)
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict) and output["permissionDecision"] == "allow"
    rewritten = parse_patch(output["updatedInput"]["command"])
    assert rewritten is not None
    assert [(s.kind, s.path) for s in rewritten] == [
        ("update", "orbital/DECISIONS.md"),
        ("add", "notes.txt"),
    ]
    wanted = apply_update(current, rewritten[0])
    assert wanted is not None and "## Use SQLite <!--mem id:use-sqlite" in wanted
    assert "not exactly your text" in output["additionalContext"]
    assert decisions.read_text(encoding="utf-8") == current  # held: the tool writes it
    decisions.write_text(wanted, encoding="utf-8")  # as apply_patch does
    assert _hook("codex", "post-tool", {**payload, "hook_event_name": "PostToolUse"}) is None
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        assert service.unmerged(pid) == []
        events = list(service.history(pid, HistoryQuery(stream="entry:use-sqlite")))
        assert [(e.type, e.actor, e.session) for e in events] == [("entry.created", "agent", "cx1")]


ROLLOUT = Path(__file__).parents[1] / "editor" / "data" / "codex_0.169.0_rollout.jsonl"


@pytest.mark.parametrize(
    ("quote", "verified"),
    [("I changed my mind about the venue", True), ("the user never said this", False)],
)
def test_codex_closes_an_ask_quoting_the_user_checked_against_the_rollout(
    orbital_db: str, tmp_path: Path, home: Path, clock: FixedClock, quote: str, verified: bool
) -> None:
    root = _project(tmp_path)
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
    asks = root / "orbital" / "ASKS.md"
    last = asks.read_text(encoding="utf-8").splitlines()[-1]
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "cx1",
        "transcript_path": str(ROLLOUT),
        "cwd": str(root),
        "tool_name": "apply_patch",
        "tool_input": {"command": _patch("orbital/ASKS.md", last, f'- dropped {ask_id} "{quote}"')},
    }
    answer = _hook("codex", "pre-tool", payload)
    assert answer is not None
    context = answer["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    unverified = (
        f'ASKS.md: dropped [{ask_id}] with a quote that is not verified — "{quote}" is not in '
        "the user's messages of this session; quote the user's own words."
    )
    assert (unverified in context) is not verified
    with Orbital.open(orbital_db, clock=clock) as service:
        closed = list(service.history(pid, HistoryQuery(stream=f"ask:{ask_id}")))[-1]
    assert isinstance(closed.event, AskClosed)
    assert (closed.event.kind, closed.event.verified) == ("dropped", verified)


def test_codex_apply_patch_re_adding_a_dropped_ask_is_denied_and_nothing_changes(
    orbital_db: str, tmp_path: Path, home: Path, clock: FixedClock
) -> None:
    root = _project(tmp_path)
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
    asks = root / "orbital" / "ASKS.md"
    before = asks.read_bytes()
    last = before.decode().splitlines()[-1]
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "cx1",
        "cwd": str(root / "orbital"),
        "tool_name": "apply_patch",
        "tool_input": {"command": _patch("ASKS.md", last, "- open Book the rooftop venue")},
    }
    answer = _hook("codex", "pre-tool", payload)
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert isinstance(output, dict) and output["permissionDecision"] == "deny"
    assert str(output["permissionDecisionReason"]).startswith(
        "Orbital refused this change of orbital/ASKS.md; the file is unchanged.\n"
        f"warning: ASKS.md: not added — the user dropped this as [{ask_id}]"
    )
    assert asks.read_bytes() == before


def test_codex_session_start_sends_the_view_and_other_folders_get_nothing(
    orbital_db: str, tmp_path: Path, home: Path
) -> None:
    root = _project(tmp_path)
    start = {"hook_event_name": "SessionStart", "session_id": "cx1", "cwd": str(root)}
    answer = _hook("codex", "session-start", {**start, "source": "startup"})
    assert answer is not None
    context = answer["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert context.startswith("Orbital project memory (as of @")
    assert "[ASKS]" in context or "ASKS" in context
    prompt = {**start, "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    assert _hook("codex", "prompt", prompt) is None  # nothing changed since
    assert _hook("codex", "session-end", {**start, "hook_event_name": "SessionEnd"}) is None
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert _hook("codex", "session-start", {**start, "cwd": str(other)}) is None


# -- Cursor -----------------------------------------------------------------------------------


def test_cursor_install_twice_then_uninstall_gives_every_file_its_bytes_back(
    orbital_db: str, tmp_path: Path, home: Path
) -> None:
    root = _project(tmp_path)
    mcp, rule = root / ".cursor/mcp.json", root / ".cursor/rules/orbital.mdc"
    user_hooks = home / ".cursor/hooks.json"
    user_hooks.parent.mkdir()
    user_hooks.write_text('{"version": 1, "hooks": {"stop": [{"command": "x"}]}}', encoding="utf-8")
    before = _bytes(mcp, rule, user_hooks)
    code, out = _run("install", "cursor", "--project", str(root))
    assert code == 0, out
    assert out.splitlines()[:3] == [
        "wrote .cursor/mcp.json",
        "wrote .cursor/rules/orbital.mdc",
        "wrote ~/.cursor/hooks.json",
    ]
    assert str(tmp_path) not in mcp.read_text(encoding="utf-8")  # nothing machine-specific
    code, out = _run("install", "cursor", "--project", str(root))
    assert all(line.startswith("unchanged") for line in out.splitlines()[:3]), out
    code, out = _run("uninstall", "cursor", "--project", str(root))
    assert out.splitlines() == [
        "removed .cursor/mcp.json",
        "removed .cursor/rules/orbital.mdc",
        "restored ~/.cursor/hooks.json",
        "removed .cursor/rules/ (install created it)",
        "removed .cursor/ (install created it)",
    ]
    assert _bytes(mcp, rule, user_hooks) == before
    assert not (root / ".cursor").exists()


def _cursor(event: str, root: Path, **fields: object) -> dict[str, object]:
    return {
        "hook_event_name": event,
        "conversation_id": "cu1",
        "workspace_roots": [str(root)],
        **fields,
    }


def test_cursor_write_of_a_memory_file_is_saved_by_orbital_and_the_tool_denied(
    orbital_db: str, tmp_path: Path, home: Path, clock: FixedClock
) -> None:
    root = _project(tmp_path)
    decisions = root / "orbital" / "DECISIONS.md"
    proposal = decisions.read_text(encoding="utf-8") + "\n## Use SQLite\nChose SQLite.\n"
    tool_input = {"file_path": str(decisions), "content": proposal}
    answer = _hook(
        "cursor", "pre-tool", _cursor("preToolUse", root, tool_name="Write", tool_input=tool_input)
    )
    assert answer is not None and answer["permission"] == "deny"
    assert str(answer["agent_message"]).startswith(
        "Orbital saved orbital/DECISIONS.md through its write path"
    )
    assert "## Use SQLite <!--mem id:use-sqlite" in decisions.read_text(encoding="utf-8")
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        events = list(service.history(pid, HistoryQuery(stream="entry:use-sqlite")))
        assert [(e.actor, e.session) for e in events] == [("agent", "cu1")]

        opened = service.ask_open(pid, "Book the rooftop venue", actor=Actor.USER)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too expensive", actor=Actor.USER)
    asks = root / "orbital" / "ASKS.md"
    before = asks.read_bytes()
    again = {
        "file_path": "orbital/ASKS.md",
        "content": before.decode() + "- open Book the rooftop venue\n",
    }
    answer = _hook(
        "cursor", "pre-tool", _cursor("preToolUse", root, tool_name="Write", tool_input=again)
    )
    assert answer is not None and answer["permission"] == "deny"
    assert str(answer["agent_message"]).startswith(
        "Orbital refused this write of orbital/ASKS.md; the file is unchanged.\n"
        f"warning: ASKS.md: not added — the user dropped this as [{ask_id}]"
    )
    assert asks.read_bytes() == before


def test_cursor_other_edits_are_taken_in_as_the_agents_and_the_session_gets_the_view(
    orbital_db: str, tmp_path: Path, home: Path, clock: FixedClock
) -> None:
    root = _project(tmp_path)
    answer = _hook("cursor", "session-start", _cursor("sessionStart", root))
    assert answer is not None
    assert str(answer["additional_context"]).startswith("Orbital project memory (as of @")
    decisions = root / "orbital" / "DECISIONS.md"
    text = decisions.read_text(encoding="utf-8") + "\n## Pin versions\nAlways.\n"
    decisions.write_text(text, encoding="utf-8")
    edit = _cursor("afterFileEdit", root, file_path=str(decisions), edits=[])
    assert _hook("cursor", "after-edit", edit) is None
    with Orbital.open(orbital_db, clock=clock) as service:
        pid = service.project(root).project_id
        assert service.unmerged(pid) == []
        created = [e for e in service.history(pid, HistoryQuery()) if e.type == "entry.created"]
        assert [(e.actor, e.session) for e in created] == [("agent", "cu1")]
    assert _hook("cursor", "session-end", _cursor("sessionEnd", root)) is None
