"""The person adds a decision or lesson, or changes one, from the Workbench (issue 29): the
API route and the page's forms write through the write path as the person, every rule of a
whole-file write applies, and a refusal reaches the person word for word. The page also says
what memory costs the project's sessions."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor
from orbital.service import HistoryQuery
from orbital.service._sessions import InjectionLog
from orbital.tokens import CachedCounter
from tests.http.http_helpers import Client, World, bearer
from tests.http.test_workbench_page import act, signed_in  # noqa: F401 (a fixture)

KEY = "AKIAZ7QWERTY12345678"


def _decisions(world: World) -> str:
    return (world.alpha_root / "orbital" / "DECISIONS.md").read_text()


def _post(client: Client, world: World, token: str, **body: Any) -> Any:
    return client.post(f"/api/v1/workbench/{world.alpha}/entries", json=body, headers=bearer(token))


def test_the_person_adds_and_changes_a_decision_through_the_api(
    client: Client, world: World
) -> None:
    added = _post(
        client, world, world.person, file="decisions", title="Use  SQLite", body="Chose: SQLite."
    )
    assert added.status_code == 200, added.text
    assert added.json()["refused"] is False
    assert "## Use SQLite <!--mem id:use-sqlite " in _decisions(world)
    lesson = _post(
        client, world, world.person, file="LESSONS.md", title="Read first", body="then act"
    )
    assert lesson.status_code == 200
    assert (
        "1. Read first <!--mem id:read-first"
        in (world.alpha_root / "orbital" / "LESSONS.md").read_text()
    )
    changed = _post(
        client,
        world,
        world.person,
        file="decisions",
        title="Use SQLite",
        body="Chose: SQLite, WAL.",
        entry="use-sqlite",
    )
    assert changed.status_code == 200
    assert "Chose: SQLite, WAL.\n" in _decisions(world) and "Chose: SQLite.\n" not in _decisions(
        world
    )
    events = list(world.service.history(world.alpha, HistoryQuery(entry="use-sqlite")))
    assert [(e.type, e.actor) for e in events] == [
        ("entry.created", Actor.USER),
        ("entry.revised", Actor.USER),
    ]


def test_an_agent_token_may_not_add_as_the_person(client: Client, world: World) -> None:
    refused = _post(client, world, world.agent, file="decisions", title="Mine", body="")
    assert refused.status_code == 403
    assert "Mine" not in _decisions(world)


def test_the_api_answers_each_refusal_with_its_message(client: Client, world: World) -> None:
    before = _decisions(world)
    unknown = _post(client, world, world.person, file="decisions", title="X", entry="nope")
    assert (unknown.status_code, unknown.json()["detail"]) == (
        404,
        "no memory entry with id 'nope'; ids are in the files' <!--mem id:…--> comments",
    )
    two = _post(client, world, world.person, file="decisions", title="X", body="ok\n## Y")
    assert (two.status_code, two.json()["detail"]) == (
        400,
        "a line of the body would start another entry: '## Y'; add it on its own",
    )
    secret = _post(client, world, world.person, file="decisions", title="Keys", body=f"key {KEY}")
    assert secret.status_code == 409
    # The same refusal as the CLI write of that text: one decider.
    proposed = before.rstrip("\n") + f"\n\n## Keys\nkey {KEY}\n"
    done = CliRunner().invoke(
        cli, ["write", "DECISIONS.md", "--project", str(world.alpha_root)], input=proposed
    )
    assert secret.json()["detail"] in done.output
    assert _decisions(world) == before  # byte-identical: nothing written


def test_the_page_adds_changes_and_shows_a_refusal_word_for_word(
    client: Client,
    world: World,
    signed_in: str,  # noqa: F811
) -> None:
    path = f"{world.alpha}/files/DECISIONS.md/add"
    done = act(client, path, csrf=signed_in, title="Ship on Fridays", body="Chose: Friday.")
    assert done.status_code == 303
    page = client.get("/workbench").text
    assert "Added to DECISIONS.md: agents see it from their next turn." in page
    assert "## Ship on Fridays <!--mem id:ship-on-fridays" in _decisions(world)
    form = dict(csrf=signed_in, file="decisions", title="Ship on Thursdays", body="Chose: Thu.")
    assert act(client, f"{world.alpha}/entries/ship-on-fridays/change", **form).status_code == 303
    assert "## Ship on Thursdays <!--mem id:ship-on-fridays" in _decisions(world)
    assert "ship-on-fridays changed" in client.get("/workbench").text
    before = _decisions(world)
    act(client, path, csrf=signed_in, title="Keys", body=f"key {KEY}")
    page = client.get("/workbench").text
    secret = _post(client, world, world.person, file="decisions", title="Keys", body=f"key {KEY}")
    message = html.escape(secret.json()["detail"], quote=False)
    assert f'<p class="notice error" role="status">{message}</p>' in page
    assert _decisions(world) == before


def test_the_page_says_what_memory_costs_a_session(
    client: Client,
    world: World,
    signed_in: str,  # noqa: F811
) -> None:
    world.service.workspaces.describe(world.alpha, "The billing service.", actor=Actor.USER)
    view = world.service.context_view(world.alpha)
    tokens = round(CachedCounter()(view))
    page = client.get("/workbench").text
    assert (
        f'<p class="muted cost" id="cost-{world.alpha}">Memory cost: a session starts with '
        f"{tokens:,} tokens · injection full" in page
    )
    world.service.workspaces.set_injection(world.alpha, "off", actor=Actor.USER)
    page = client.get("/workbench").text
    assert "Memory cost: a session starts with 0 tokens · injection off" in page


def test_the_page_gives_the_medians_of_the_sessions_recorded(
    client: Client,
    world: World,
    signed_in: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    log = InjectionLog()
    log.add(world.alpha, "s1", "turn", "")  # a session from before starts were kept
    page = client.get("/workbench").text
    assert "; 0 added per turn (median of 1 prompt) · injection full" in page
    log.add(world.alpha, "s2", "start", "Orbital memory: one two three")
    log.add(world.alpha, "s2", "turn", "- @4 by agent: a change")
    log.add(world.alpha, "s2", "turn", "- @5 by agent: a change")
    count = CachedCounter()
    start, turn = (
        round(count("Orbital memory: one two three")),
        round(count("- @4 by agent: a change")),
    )
    page = client.get("/workbench").text
    assert (
        f"; {start} at the start of the last 2 sessions (median); {turn} added per turn "
        "(median of 3 prompts) · injection full"
    ) in page
