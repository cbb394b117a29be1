"""Conflict copies never collide, and each keeps its text in the store (issue 27, finding 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-06T13:00:00Z")
    return CliRunner()


def test_two_conflicts_at_one_pinned_instant_keep_both_texts_on_disk_and_in_the_store(
    run: CliRunner, tmp_path: Path
) -> None:
    at = ["--project", str(tmp_path)]
    assert run.invoke(cli, ["init", *at], obj={}).exit_code == 0
    state = tmp_path / "orbital" / "PROJECT_STATE.md"
    projected = state.read_bytes()
    edits = [projected + b"- first hand line\n", projected + b"- second hand line\n"]
    for edit in edits:
        state.write_bytes(edit)
        forced = run.invoke(cli, ["regenerate", "--force", *at], obj={})
        assert forced.exit_code == 0, forced.output
    copies = sorted((tmp_path / "orbital").glob("PROJECT_STATE.md.conflict-*.md"))
    assert sorted(c.read_bytes() for c in copies) == sorted(edits)
    assert [c.name for c in copies] == [
        "PROJECT_STATE.md.conflict-20261106T130000000000Z-2.md",
        "PROJECT_STATE.md.conflict-20261106T130000000000Z.md",
    ]
    listed = run.invoke(cli, ["history", "--json", *at], obj={})
    kept = [
        row["event"]
        for row in map(json.loads, listed.output.splitlines())
        if row["event"]["type"] == "file.hand_edit_conflict"
    ]
    assert [(e["conflict_copy"], e["text"]) for e in kept] == [
        ("PROJECT_STATE.md.conflict-20261106T130000000000Z.md", edits[0].decode()),
        ("PROJECT_STATE.md.conflict-20261106T130000000000Z-2.md", edits[1].decode()),
    ]
    for copy in copies:  # the disk copies may go: the store still has every text
        copy.unlink()
    listed = run.invoke(cli, ["history", "--json", *at], obj={})
    assert edits[0].decode() in [
        json.loads(line)["event"].get("text") for line in listed.output.splitlines()
    ]
