"""The person's word is final (issue 28), through the MCP SDK's own stdio client on a real
store (both backends): an agent's reopen of an ask the person dropped lands only on words
verified in its own session (tied by the session its client names, whose transcript the hooks
recorded), else it waits on the person; every agent close says what its quote rests on, in
the tool's answer, ``asks --json``, history and the next session's reminder."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from projections.history import summarize
from tests.conftest import NOW
from tests.mcp.mcp_helpers import session_meta

ORBITAL = str(Path(sys.executable).parent / "orbital")
VENUE = "Book the rooftop venue"
TYPED = "please book the rooftop venue again, I changed my mind"


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


def data_of(result: CallToolResult) -> Any:
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))


def run_session(store: str, root: Path, script: Callable[[Client], Awaitable[None]]) -> None:
    """``orbital mcp`` for ``root``, sharing this test's state folder (where the hooks keep
    each session's transcript)."""
    env = {
        "ORBITAL_DB": store,
        "ORBITAL_NOW": NOW.isoformat(),
        "ORBITAL_STATE_DIR": os.environ["ORBITAL_STATE_DIR"],
    }
    params = StdioServerParameters(command=ORBITAL, args=["mcp", "--project", str(root)], env=env)

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            await script(client)

    anyio.run(main)


@pytest.fixture
def project(store_url: str, tmp_path: Path, clock: FixedClock) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        service.init_project(root, timezone="UTC")
    return root


def dropped_by_person(store_url: str, project: Path, clock: FixedClock) -> tuple[str, str]:
    """The project's id and an ask the person dropped."""
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.project(project).project_id
        opened = service.ask_open(pid, VENUE, actor=Actor.AGENT)
        ask_id = opened.events[0].stream.removeprefix("ask:")
        service.ask_close(pid, ask_id, "dropped", "too far", actor=Actor.USER)
    return pid, ask_id


def held_message(ask_id: str) -> str:
    return (
        f"ASKS.md: [{ask_id}] was dropped by the user on {NOW.date()} — not reopened: nothing "
        "ties your quote to your own session's transcript, so the reopen is held as a proposal "
        "and now waits on the user, who confirms or declines it in the Workbench. Treat the ask "
        "as dropped until then."
    )


def test_an_invented_quote_does_not_reopen_the_persons_drop_it_waits_on_the_person(
    store_url: str, project: Path, clock: FixedClock
) -> None:
    pid, ask_id = dropped_by_person(store_url, project, clock)
    asks_md = project / "orbital" / "ASKS.md"
    before = asks_md.read_bytes()
    answers: list[Any] = []

    async def script(client: Client) -> None:
        reopen = {"id": ask_id, "quote": "please reopen it"}
        answers.append(data_of(await client.call_tool("ask_reopen", reopen)))
        again = await client.call_tool("ask_reopen", reopen)
        assert again.is_error
        assert text_of(again) == (
            f"warning: ASKS.md: [{ask_id}] already has a reopen waiting on the user."
        )

    run_session(store_url, project, script)
    (answer,) = answers
    assert answer["warnings"] == [held_message(ask_id)]
    assert [e["type"] for e in answer["events"]] == ["ask.reopen_proposed"]
    assert asks_md.read_bytes() == before  # the agent's view of the log: still dropped
    with Orbital.open(store_url, clock=clock) as service:
        (ask,) = service.asks(pid, "all")
        assert (ask.state, ask.closed_by, ask.proposal) == ("dropped", "user", '"please reopen it"')
        # Only the person answers it; confirmed, it is the person's reopen with those words.
        with pytest.raises(Exception, match="only the person can confirm or decline"):
            service.ask_proposal(pid, ask_id, True, actor=Actor.AGENT)
        service.ask_proposal(pid, ask_id, True, actor=Actor.USER)
        (ask,) = service.asks(pid, "all")
        assert (ask.state, ask.reopened_by, ask.note, ask.proposal) == (
            "open",
            "user",
            '"please reopen it"',
            None,
        )
    assert asks_md.read_text().endswith(
        f'- reopen {ask_id} 2026-09-19 by:user "please reopen it"\n'
    )


def test_a_declined_reopen_leaves_the_ask_dropped(
    store_url: str, project: Path, clock: FixedClock
) -> None:
    pid, ask_id = dropped_by_person(store_url, project, clock)

    async def script(client: Client) -> None:
        data_of(await client.call_tool("ask_reopen", {"id": ask_id, "quote": "bring it back"}))

    run_session(store_url, project, script)
    with Orbital.open(store_url, clock=clock) as service:
        service.ask_proposal(pid, ask_id, False, "I did not say that", actor=Actor.USER)
        (ask,) = service.asks(pid, "all")
        assert (ask.state, ask.proposal) == ("dropped", None)
        types = [e.type for e in service.history(pid)][-2:]
        assert types == ["ask.reopen_proposed", "ask.reopen_declined"]


def test_the_session_its_client_names_ties_a_reopen_to_the_persons_words(
    store_url: str, project: Path, clock: FixedClock, tmp_path: Path
) -> None:
    pid, ask_id = dropped_by_person(store_url, project, clock)
    transcript = tmp_path / "sess-7.jsonl"
    row = {"type": "user", "message": {"role": "user", "content": TYPED}}
    transcript.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with Orbital.open(store_url, clock=clock) as service:
        # What Claude Code's SessionStart hook records: the session and its transcript.
        service.agents.start(service.project(project), "sess-7", None, str(transcript))
    answers: list[CallToolResult] = []

    async def script(client: Client) -> None:
        invented = {"id": ask_id, "quote": "please reopen it"}
        answers.append(await client.call_tool("ask_reopen", invented, meta=session_meta("sess-7")))
        real = {"id": ask_id, "quote": "book the rooftop venue again"}
        answers.append(await client.call_tool("ask_reopen", real, meta=session_meta("sess-7")))

    run_session(store_url, project, script)
    invented, real = answers
    assert invented.is_error
    assert text_of(invented) == (
        f"warning: ASKS.md: [{ask_id}] was dropped by the user on {NOW.date()} — not reopened: "
        "\"please reopen it\" is not in the user's messages of this session. Quote the user's "
        f'own words: `- reopen {ask_id} "<their words>"`.'
    )
    assert data_of(real)["warnings"] == []
    with Orbital.open(store_url, clock=clock) as service:
        (ask,) = service.asks(pid, "all")
        assert (ask.state, ask.reopened_by, ask.verified) == ("open", "agent", True)


def test_every_agent_close_says_what_its_quote_rests_on(
    store_url: str, project: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.project(project).project_id
        ids = [
            service.ask_open(pid, text, actor=Actor.AGENT).events[0].stream.removeprefix("ask:")
            for text in ("Send the logo", "Pick the printer")
        ]
        # A later session has looked before the closes: its next prompt hears of them.
        service.agents.prompt(service.project(project), "later")
        service.agents.prompt(service.project(project), "later")
    logo, printer = ids
    answers: list[Any] = []

    async def script(client: Client) -> None:
        close = {"id": logo, "state": "done", "quote": "logo sent"}
        answers.append(data_of(await client.call_tool("ask_close", close)))
        bare = {"id": printer, "state": "dropped"}
        answers.append(data_of(await client.call_tool("ask_close", bare)))

    run_session(store_url, project, script)
    assert answers[0]["warnings"] == [
        f"ASKS.md: done [{logo}]; its quote is not verified (no session transcript of yours to "
        "check it against): the user sees it marked unverified, with Undo."
    ]
    monkeypatch.setenv("ORBITAL_DB", store_url)
    listed = CliRunner().invoke(
        cli, ["asks", "--project", str(project), "--state", "all", "--json"], obj={}
    )
    marks = {row["id"]: row["quote"] for row in json.loads(listed.stdout)}
    assert marks == {logo: "unverified", printer: "no quote"}
    with Orbital.open(store_url, clock=clock) as service:
        summaries = [summarize(e.event) for e in service.history(pid) if e.type == "ask.closed"]
        assert summaries == [
            f'ask.closed {logo} done agent [quote unverified]: "logo sent"',
            f"ask.closed {printer} dropped agent [no quote]",
        ]
        reminder = service.agents.prompt(service.project(project), "later")
    assert (
        f'ask {logo} done (Send the logo) — quoting the person: "logo sent" [quote unverified]'
        in (reminder)
    )
    assert f"ask {printer} dropped (Pick the printer) [no quote]" in reminder
