"""``orbital export``, ``orbital import`` and ``orbital revert`` as a person types them, on
each backend (the import's target: a SQLite store beside)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli

DECISIONS = "## Use click\nChose: click.\n\n## Use msgspec\nChose: msgspec.\n"


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    return CliRunner()


def test_export_import_and_revert_from_the_command_line(
    run: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    p = ["--project", str(project)]
    assert run.invoke(cli, ["init", *p, "--timezone", "Europe/Berlin"], obj={}).exit_code == 0
    wrote = run.invoke(cli, ["write", "DECISIONS.md", *p], input=DECISIONS, obj={})
    assert wrote.exit_code == 0, wrote.output
    made = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    token = made.stdout.splitlines()[-1]
    token_id = token.split("_")[1]
    out = tmp_path / "p.orbital-log.gz"
    exported = run.invoke(cli, ["export", *p, "--output", str(out)], obj={})
    assert exported.exit_code == 0, exported.output
    assert exported.stderr == f"exported to {out}\n"
    piped = run.invoke(cli, ["export", *p], obj={})
    assert piped.stdout_bytes == out.read_bytes()
    kinds = [
        json.loads(line)["kind"] for line in gzip.decompress(out.read_bytes()).splitlines()[1:]
    ]
    assert kinds[:2] == ["project", "credential"] and set(kinds[2:]) == {"event"}

    clone = tmp_path / "clone"
    shutil.copytree(project, clone)
    target = ["--db", f"sqlite:///{tmp_path / 'target.db'}"]
    c = ["--project", str(clone)]
    done = run.invoke(cli, [*target, "import", str(out), *c], obj={})
    assert done.exit_code == 0, done.output
    events = len(kinds) - 2
    assert done.stdout == f"project p at {clone}: {events} events imported, 0 already here\n"
    assert done.stderr == (
        "a credential came without its token (tokens never travel): it is listed, and no token "
        f"verifies it; make new ones with `orbital token create` for: {token_id} (workbench)\n"
    )
    again = run.invoke(cli, [*target, "import", str(out), *c], obj={})
    assert again.stdout == f"project p at {clone}: 0 events imported, {events} already here\n"
    assert again.stderr == ""
    listed = run.invoke(cli, [*target, "projects"], obj={})
    pid = (clone / "orbital" / "project-id").read_text().strip()
    assert listed.stdout == f"{pid}\tp\t{clone}\tEurope/Berlin\n"

    path = project / "orbital" / "DECISIONS.md"
    before = path.read_bytes()
    (layout,) = [
        json.loads(line)
        for line in run.invoke(cli, ["history", *p, "--json"], obj={}).stdout.splitlines()
        if json.loads(line)["event"]["type"] == "file.layout_set"
    ]
    more = DECISIONS + "\n## Use rich\nChose: rich.\n"
    assert run.invoke(cli, ["write", "DECISIONS.md", *p], input=more, obj={}).exit_code == 0
    refused = run.invoke(cli, ["revert", f"@{layout['position']}", *p], obj={})
    assert refused.exit_code == 4
    assert refused.stderr.startswith("error: only the person can revert the memory files")
    monkeypatch.setenv("ORBITAL_TOKEN", token)
    reverted = run.invoke(cli, ["revert", layout["event_id"], "--as-user", *p], obj={})
    assert reverted.exit_code == 0, reverted.output
    assert reverted.stdout == (
        f"reverted to @{layout['position']} (just after event {layout['event_id']}): "
        "2 changes: 1 entry.retired, 1 file.layout_set\n"
    )
    assert path.read_bytes() == before
