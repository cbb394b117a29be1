"""A version a writer names (``--base``, ``If-Match``, MCP ``base``) and a position a reader
names (``@N``) must be ones the log has (issue 27, finding 4): a base older than the
project's first event or past the head, and an as-of past the head, are errors that say so,
on every surface, and change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.errors import UnknownBase
from orbital.events import Actor
from orbital.mcp._caller import Caller
from orbital.mcp._calls import Calls
from tests.http.http_helpers import Client, World, bearer

DECISIONS = "## Use Postgres\nChose: yes.\nReason: teams.\n"
MINE = DECISIONS + "\n## Ship on Fridays\nChose: yes.\n"


def _refusal(base: int, first: int, head: int) -> str:
    where = "older than the project's first event" if base < first else "past the head of the log"
    return (
        f"version {base} is {where}: this project's versions are 0 (a file never written) "
        f"and {first} to {head}"
    )


def test_a_base_outside_the_projects_versions_is_refused_on_every_surface(
    client: Client, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, beta = world.service, world.beta  # beta was registered after alpha
    service.write_file(beta, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
    first = next(iter(service.history(beta))).position
    head = service.head()
    assert first > 1
    disk = Path(service.project(beta).root) / "orbital" / "DECISIONS.md"
    before = disk.read_bytes()
    token = world.credentials.create("agent", [beta], label="beta agent").token
    url = f"/api/v1/projects/{beta}/files/DECISIONS.md"
    monkeypatch.setenv("ORBITAL_DB", service.store.url)
    for base in (first - 1, head + 1, 999_999_999):
        expected = _refusal(base, first, head)
        put = client.put(
            url, json={"content": MINE}, headers={**bearer(token), "If-Match": f'"{base}"'}
        )
        assert (put.status_code, put.json()["detail"]) == (409, expected)
        mcp = Calls(service).memory_write(Caller(beta, None), "DECISIONS.md", MINE, base, None)
        advice = UnknownBase.hint
        assert (mcp.is_error, mcp.texts) == (True, (f"error: {expected}: {advice}",))
        cli_write = CliRunner().invoke(
            cli,
            ["write", "DECISIONS.md", "--base", str(base), "--project", service.project(beta).root],
            input=MINE,
            obj={},
        )
        assert (cli_write.exit_code, cli_write.stderr) == (
            5,
            f"error: {expected}: {advice}\n",
        )
    assert disk.read_bytes() == before
    assert service.head() == head
    # The versions a read gives are still taken: 0 (never written) and the file's own.
    version = service.read_versioned(beta, "DECISIONS.md")[1]
    kept = client.put(
        url, json={"content": MINE}, headers={**bearer(token), "If-Match": f'"{version}"'}
    )
    assert kept.status_code == 200, kept.text
    assert kept.json()["content"].count("## Use Postgres") == 1


def test_an_as_of_past_the_head_is_an_error_on_every_surface(
    client: Client, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, alpha = world.service, world.alpha
    service.write_file(alpha, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
    head = service.head()
    expected = (
        f"@{head + 1} is past the head of the log (@{head}): nothing is recorded there yet; "
        f"read as of @{head} or before, or without an as-of for now"
    )
    url = f"/api/v1/projects/{alpha}/files/DECISIONS.md"
    got = client.get(url, params={"as_of": f"@{head + 1}"}, headers=bearer(world.agent))
    assert (got.status_code, got.json()["detail"]) == (404, expected)
    mcp = Calls(service).memory_read(Caller(alpha, None), "DECISIONS.md", f"@{head + 1}")
    assert (mcp.is_error, mcp.texts) == (True, (f"error: {expected}",))
    monkeypatch.setenv("ORBITAL_DB", service.store.url)
    at = ["--project", str(world.alpha_root)]
    shown = CliRunner().invoke(cli, ["show", "DECISIONS.md", "--as-of", f"@{head + 1}", *at])
    assert (shown.exit_code, shown.stderr) == (1, f"error: {expected}\n")
    at_head = CliRunner().invoke(cli, ["show", "DECISIONS.md", "--as-of", f"@{head}", *at])
    assert at_head.exit_code == 0 and "## Use Postgres" in at_head.output
