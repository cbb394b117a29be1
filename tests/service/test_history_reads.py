"""``orbital history``: at most N events, newest first, streamed, and quiet when its reader
stops early (issue 27, finding 6 and the history part of finding 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor
from tests.service.conftest import Env

#: A project whose log, as ``history --json``, is far more than a pipe holds (64 KiB).
ENTRIES = "".join(
    f"## Decision number {i} about the deployment\nChose: option {i}.\nReason: it is "
    f"the one that keeps release {i} reproducible for every machine we ship to.\n\n"
    for i in range(300)
)


def _orbital(env: Env, args: list[str]) -> subprocess.Popen[bytes]:
    """``orbital ARGS --project <env's project>`` in a new process, stdout and stderr piped."""
    entry = "from orbital.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", entry, *args, "--project", str(env.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "ORBITAL_DB": env.orbital.store.url},
    )


@pytest.mark.parametrize("as_json", [["--json"], []], ids=["json", "table"])
def test_history_piped_into_a_reader_that_stops_early_exits_0_without_a_traceback(
    env: Env, as_json: list[str]
) -> None:
    half = ENTRIES.index("## Decision number 150 ")
    for upto in (half, len(ENTRIES)):  # two writes: one may add at most 10,000 tokens
        env.orbital.write_file(
            env.project, "DECISIONS.md", ENTRIES[:upto].encode(), actor=Actor.AGENT
        )
    with _orbital(env, ["history", *as_json]) as run:
        assert run.stdout is not None and run.stderr is not None
        first = [run.stdout.readline() for _ in range(3)]  # what `| head -3` takes…
        run.stdout.close()  # …before it exits, closing the pipe under the writer
        status, stderr = run.wait(timeout=120), run.stderr.read()
    assert (status, stderr) == (0, b"")
    assert all(line.endswith(b"\n") for line in first)


def test_history_limit_and_newest_first(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    for text in ("Choose the venue", "Book the caterer", "Send the invitations"):
        env.orbital.ask_open(env.project, text, actor=Actor.AGENT)
    monkeypatch.setenv("ORBITAL_DB", env.orbital.store.url)
    runner = CliRunner()
    base = ["history", "--project", str(env.root), "--json"]

    def listed(*args: str) -> list[int]:
        done = runner.invoke(cli, [*base, *args], obj={})
        assert done.exit_code == 0, done.output
        return [json.loads(line)["position"] for line in done.output.splitlines()]

    everything = listed()
    assert len(everything) == 4 and everything == sorted(everything)
    assert listed("--limit", "2") == everything[:2]
    assert listed("--newest-first") == everything[::-1]
    assert listed("--newest-first", "--limit", "2") == everything[:1:-1]
    assert listed("--stream", "ask:", "--newest-first", "--limit", "1") == everything[-1:]
    assert listed("--file", "ASKS.md", "--limit", "2") == everything[1:3]
    last_ask = list(env.orbital.history(env.project))[-1].stream.removeprefix("ask:")
    assert listed("--ask", last_ask, "--newest-first") == everything[-1:]
    table = runner.invoke(cli, [*base[:-1], "--newest-first", "--limit", "1"], obj={})
    assert table.exit_code == 0, table.output
    (header, row) = table.output.splitlines()
    assert header.split() == ["pos", "recorded", "(UTC)", "actor", "stream", "event", "(session)"]
    assert row.split()[0] == str(everything[-1])
    assert "ask.opened" in row and "Send the invitations" in row
    zero = runner.invoke(cli, [*base, "--limit", "0"], obj={})
    assert zero.exit_code == 2
    assert "0 is not in the range x>=1" in zero.output
