"""``orbital mcp`` end to end through the MCP SDK's own stdio client: the server runs as a
subprocess on a real store (both backends), every tool is called, and the store and the files
are checked afterwards."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent, TextResourceContents

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.mcp._schema import argument_error
from orbital.service import HistoryQuery, Orbital
from tests.conftest import NOW
from tests.mcp.mcp_helpers import session_meta

ORBITAL = str(Path(sys.executable).parent / "orbital")
NOW_ENV = NOW.isoformat()
TOOLS = {
    "memory_context",
    "memory_read",
    "memory_write",
    "memory_history",
    "memory_get",
    "memory_search",
    "asks_list",
    "ask_open",
    "ask_close",
    "ask_reopen",
    "workspace_lessons",
    "workspace_lessons_write",
    "memory_checkpoint",
}
DECISIONS = """## use-postgres
Chose: PostgreSQL for the shared store.
Reason: several people write at once.
Rejected: SQLite on a network share.
"""


def block_text(block: object) -> str:
    assert isinstance(block, TextContent)
    return block.text


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    return block_text(block)


def data_of(result: CallToolResult) -> Any:
    assert not result.is_error, text_of(result)
    value = json.loads(text_of(result))
    assert value == result.structured_content
    return value


def run_session(store: str, root: Path, script: Callable[[Client], Awaitable[None]]) -> None:
    """Start ``orbital mcp`` for ``root`` and run ``script`` against it."""
    params = StdioServerParameters(
        command=ORBITAL,
        args=["mcp", "--project", str(root)],
        env={"ORBITAL_DB": store, "ORBITAL_NOW": NOW_ENV},
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            await script(client)

    anyio.run(main)


def cli_stderr(store: str, args: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """What the CLI prints on stderr for ``args`` (run in this process on the same store)."""
    monkeypatch.setenv("ORBITAL_DB", store)
    monkeypatch.setenv("ORBITAL_NOW", NOW_ENV)
    return CliRunner().invoke(cli, args, obj={}).stderr


@pytest.fixture
def project(store_url: str, tmp_path: Path, clock: FixedClock) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        service.init_project(root, timezone="UTC")
    return root


def test_every_tool_through_the_stdio_client(
    store_url: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asks_md = project / "orbital" / "ASKS.md"
    at = ["--project", str(project)]
    seen: dict[str, Any] = {}

    async def script(client: Client) -> None:
        tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == TOOLS
        assert all(t.description for t in tools)

        view = await client.call_tool("memory_context", {})
        assert not view.is_error
        assert "Open asks: none" in text_of(view)
        sub = await client.call_tool("memory_context", {"audience": "subagent"})
        assert not sub.is_error

        written = data_of(
            await client.call_tool("memory_write", {"file": "DECISIONS.md", "content": DECISIONS})
        )
        assert written["warnings"] == []
        assert "entry.created" in {e["type"] for e in written["events"]}
        assert "<!--mem id:use-postgres" in written["content"]
        read = await client.call_tool("memory_read", {"file": "decisions.md"})
        assert [block_text(b) for b in read.content] == [
            (project / "orbital" / "DECISIONS.md").read_text(),
            f"version: {written['version']} (pass base={written['version']} to memory_write: "
            "a change made since by someone else is kept, an overlapping one refuses the write)",
        ]
        before = await client.call_tool("memory_read", {"file": "DECISIONS.md", "as_of": "@1"})
        assert "use-postgres" not in text_of(before)

        opened = data_of(
            await client.call_tool(
                "ask_open",
                {"text": "Book the rooftop venue", "due": "2026-10-01"},
                meta=session_meta("sess-42"),
            )
        )
        (event,) = opened["events"]
        ask_id = event["stream"].removeprefix("ask:")
        seen["ask"] = ask_id
        listed = data_of(await client.call_tool("asks_list", {}))
        assert [(a["id"], a["state"], a["due"]) for a in listed["asks"]] == [
            (ask_id, "open", "2026-10-01")
        ]

        got = data_of(await client.call_tool("memory_get", {"ref": "@decision.use-postgres"}))
        assert (got["kind"], got["file"], got["status"]) == ("entry", "DECISIONS.md", "live")
        assert (got["trust"], got["trust_reason"], got["superseded_by"]) == ("held", "", [])
        assert "PostgreSQL" in got["text"]
        assert got["history"][0]["type"] == "entry.created"
        got_ask = data_of(await client.call_tool("memory_get", {"ref": f"@ask.{ask_id}"}))
        assert (got_ask["kind"], got_ask["state"], got_ask["text"]) == (
            "ask",
            "open",
            "Book the rooftop venue",
        )
        assert got_ask["history"][0]["session"] == "sess-42"
        wrong_file = await client.call_tool("memory_get", {"ref": "@lesson.use-postgres"})
        assert wrong_file.is_error
        assert text_of(wrong_file).startswith("error: no memory entry with id 'use-postgres'")

        dropped = data_of(
            await client.call_tool(
                "ask_close", {"id": ask_id, "state": "dropped", "quote": "forget the rooftop"}
            )
        )
        assert dropped["warnings"] == [
            f"ASKS.md: dropped [{ask_id}]; its quote is not verified (no session transcript of "
            "yours to check it against): the user sees it marked unverified, with Undo."
        ]
        history = data_of(await client.call_tool("memory_history", {"ask": ask_id}))
        assert [e["type"] for e in history["events"]] == ["ask.opened", "ask.closed"]
        assert history["events"][1]["actor"] == "agent"

        # The agent proposes the dropped ask again, reworded: refused, nothing appended.
        file_before = asks_md.read_bytes()
        again = await client.call_tool("ask_open", {"text": "Book the roof-top venue"})
        assert again.is_error
        assert "the user dropped this as" in text_of(again)
        assert asks_md.read_bytes() == file_before
        by_cli = cli_stderr(store_url, ["ask", "open", *at, "Book the roof-top venue"], monkeypatch)
        assert text_of(again) == by_cli.rstrip("\n")
        proposal = asks_md.read_text() + "- open Book the roof-top venue\n"
        as_file = await client.call_tool("memory_write", {"file": "ASKS.md", "content": proposal})
        assert as_file.is_error
        assert text_of(as_file) == text_of(again)
        assert asks_md.read_bytes() == file_before
        whole = data_of(await client.call_tool("memory_history", {"file": "ASKS.md"}))
        assert [e["type"] for e in whole["events"]][-1] == "ask.open_refused"

        # Closing it again changes nothing: refused too, with the CLI's warning line.
        twice = await client.call_tool("ask_close", {"id": ask_id, "state": "done"})
        assert twice.is_error
        assert (
            text_of(twice) == f"warning: ASKS.md: [{ask_id}] is already dropped — not closed again."
        )

        # Reopening on the user's word is allowed; reopening an open ask is refused.
        reopened = data_of(
            await client.call_tool("ask_reopen", {"id": ask_id, "quote": "book it after all"})
        )
        assert reopened["events"][0]["type"] == "ask.reopened"
        still_open = await client.call_tool("ask_reopen", {"id": ask_id})
        assert still_open.is_error
        assert text_of(still_open) == f"warning: ASKS.md: [{ask_id}] is already open."

        # Orbital's errors are the CLI's error line; bad arguments the schema check's error
        # (the same the SDK server answers, tests/mcp/test_manifest.py).
        unknown = await client.call_tool("ask_close", {"id": "ffffff", "state": "done"})
        assert unknown.is_error
        seen["unknown"] = text_of(unknown)
        bad = await client.call_tool("ask_close", {"id": ask_id, "state": "maybe"})
        assert bad.is_error
        assert "validation error" in text_of(bad)
        assert "Traceback" not in text_of(bad)
        assert text_of(bad) == argument_error("ask_close", {"id": ask_id, "state": "maybe"})
        missing = await client.call_tool("memory_write", {"file": "DECISIONS.md"})
        assert missing.is_error
        assert "content" in text_of(missing)
        not_a_file = await client.call_tool("memory_read", {"file": "NOTES.md"})
        assert text_of(not_a_file).startswith("error: 'NOTES.md' is not a memory file")

        resources = (await client.list_resources()).resources
        assert [str(r.uri) for r in resources] == [
            f"orbital://memory/{name}"
            for name in (
                "PROJECT_STATE.md",
                "DECISIONS.md",
                "LESSONS.md",
                "INDEX.md",
                "ASKS.md",
                "PROJECT_STATE_ARCHIVE.md",
                "DECISIONS_ARCHIVE.md",
                "LESSONS_ARCHIVE.md",
            )
        ]
        (contents,) = (await client.read_resource("orbital://memory/ASKS.md")).contents
        assert isinstance(contents, TextResourceContents)
        assert contents.text == asks_md.read_text()

    run_session(store_url, project, script)

    ask_id = seen["ask"]
    unknown_by_cli = cli_stderr(store_url, ["ask", "done", *at, "ffffff"], monkeypatch)
    assert seen["unknown"] == unknown_by_cli.rstrip("\n")

    with Orbital.open(store_url) as service:
        events = list(service.history(service.project(project).project_id, HistoryQuery()))
    by_agent = [e for e in events if e.actor is Actor.AGENT]
    sessions = [e.session for e in by_agent if e.stream == f"ask:{ask_id}"]
    assert sessions == ["sess-42", None, None]
    assert not [e for e in events if e.actor is Actor.USER]
    assert asks_md.read_text().splitlines()[1:] == [
        f"- open {ask_id} 2026-09-19 due:2026-10-01 Book the rooftop venue",
        f'- dropped {ask_id} 2026-09-19 by:agent "forget the rooftop"',
        f'- reopen {ask_id} 2026-09-19 by:agent "book it after all"',
    ]


def test_an_unregistered_project_is_the_cli_error(tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--db", f"sqlite:///{tmp_path / 's.db'}"]
    assert runner.invoke(cli, [*db, "db", "upgrade"], obj={}).exit_code == 0
    result = runner.invoke(cli, [*db, "mcp", "--project", str(tmp_path)], obj={})
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: unknown project '{tmp_path}'")


def test_a_write_based_on_a_stale_read_is_refused_as_the_cli_refuses_it(
    store_url: str, project: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    at = ["--project", str(project)]
    seen: dict[str, Any] = {}

    async def script(client: Client) -> None:
        first = "## Use Vite\nChose: Vite.\nReason: speed.\n"
        data_of(await client.call_tool("memory_write", {"file": "DECISIONS.md", "content": first}))
        read, version_block = (
            await client.call_tool("memory_read", {"file": "DECISIONS.md"})
        ).content
        version = int(block_text(version_block).split()[1])
        # Someone else changes the entry after the agent read it.
        with Orbital.open(store_url, clock=clock) as service:
            pid = service.project(project).project_id
            other = block_text(read).replace("speed.", "build speed.")
            service.write_file(pid, "DECISIONS.md", other.encode(), actor=Actor.USER)
        before = decisions.read_bytes()
        mine = block_text(read).replace("speed.", "dev speed.")
        stale = await client.call_tool(
            "memory_write", {"file": "DECISIONS.md", "content": mine, "base": version}
        )
        assert stale.is_error
        assert decisions.read_bytes() == before
        seen.update(stale=text_of(stale), mine=mine, version=version)
        # A change beside what changed since is kept, with what changed.
        added = block_text(read) + "\n## Keep a changelog\nChose: one file.\n"
        kept = data_of(
            await client.call_tool(
                "memory_write", {"file": "DECISIONS.md", "content": added, "base": version}
            )
        )
        assert "build speed." in kept["content"] and "## Keep a changelog" in kept["content"]
        assert kept["version"] > version

    run_session(store_url, project, script)
    monkeypatch.setenv("ORBITAL_DB", store_url)
    monkeypatch.setenv("ORBITAL_NOW", NOW_ENV)
    by_cli = CliRunner().invoke(
        cli,
        ["write", *at, "DECISIONS.md", "--base", str(seen["version"])],
        input=seen["mine"],
        obj={},
    )
    assert by_cli.exit_code == 5
    assert seen["stale"] == by_cli.stderr.rstrip("\n")
    assert seen["stale"].startswith(
        f"error: DECISIONS.md changed since the version this write is based on (position "
        f"{seen['version']}) in what the write changes too: use-vite; nothing was written."
    )


def test_a_nul_only_change_reports_what_the_cli_reports(
    store_url: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decisions = project / "orbital" / "DECISIONS.md"
    at = ["--project", str(project)]
    seen: dict[str, Any] = {}

    async def script(client: Client) -> None:
        data_of(
            await client.call_tool("memory_write", {"file": "DECISIONS.md", "content": DECISIONS})
        )
        text = decisions.read_text()
        seen["before"] = decisions.read_bytes()
        seen["answer"] = data_of(
            await client.call_tool(
                "memory_write", {"file": "DECISIONS.md", "content": text + "\u0000"}
            )
        )
        seen["text"] = text

    run_session(store_url, project, script)
    answer = seen["answer"]
    assert answer["warnings"] == [
        "DECISIONS.md: removed 1 NUL character (U+0000): stored text cannot hold it."
    ]
    assert (answer["events"], answer["content"]) == ([], seen["text"])
    assert decisions.read_bytes() == seen["before"]
    monkeypatch.setenv("ORBITAL_DB", store_url)
    monkeypatch.setenv("ORBITAL_NOW", NOW_ENV)
    by_cli = CliRunner().invoke(
        cli, ["write", *at, "DECISIONS.md", "--json"], input=seen["text"] + "\u0000", obj={}
    )
    assert by_cli.exit_code == 0
    assert json.loads(by_cli.stdout) == {**answer, "refused": False}


def test_an_unknown_project_is_each_calls_error(
    store_url: str, project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    params = StdioServerParameters(
        command=ORBITAL, args=["mcp", "--project", str(elsewhere)], env={"ORBITAL_DB": store_url}
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            refused = await client.call_tool("memory_context", {})
            assert refused.is_error
            assert text_of(refused).startswith(f"error: unknown project '{elsewhere}'")

    anyio.run(main)


def test_memory_get_shows_an_entry_s_trust_state(
    store_url: str, project: Path, clock: FixedClock
) -> None:
    with Orbital.open(store_url, clock=clock) as service:
        (pid,) = [p.project_id for p in service.projects()]
        first = b"## Use SQLite\nChose: SQLite.\n\n## Ship on Fridays\nChose: yes.\n"
        service.write_file(pid, "DECISIONS.md", first, actor=Actor.AGENT)
        newer = first + b"\n## Use Postgres\nChose: PG.\nSupersedes: use-sqlite since 2026-09-01\n"
        service.write_file(pid, "DECISIONS.md", newer, actor=Actor.AGENT)
        service.trust.act(pid, "ship-on-fridays", "dispute", "two outages", actor=Actor.USER)

    async def script(client: Client) -> None:
        old = data_of(await client.call_tool("memory_get", {"ref": "@decision.use-sqlite"}))
        assert (old["status"], old["trust"], old["superseded_by"], old["superseded_since"]) == (
            "archived",
            "superseded",
            ["use-postgres"],
            "2026-09-01",
        )
        assert [e["type"] for e in old["history"]][-2:] == ["entry.superseded", "entry.archived"]
        doubted = data_of(await client.call_tool("memory_get", {"ref": "ship-on-fridays"}))
        assert (doubted["trust"], doubted["trust_reason"]) == ("disputed", "two outages")

    run_session(store_url, project, script)
