"""`orbital import-from`: other tools' memory files become entries in one batch that names
each fact's file and line, never changes the sources, adds nothing when run again, and is
taken back by one command."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.domain.import_sources import AUTO_MEMORY, RULES, Source, facts_of
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.service import Orbital

CLAUDE_MD = """# Shop

@orbital/INDEX.md

## Stack
- The API is Litestar with msgspec structs for every body.
- Always run `pytest -x` before committing.
  - Use the PostgreSQL URL from `.env.test`.

We chose SQLite first because the team is two people,
and PostgreSQL when it grows.

| tool | why |
|------|-----|
| ruff | lint |

```sh
make test now please
```
<!-- a note to the person, not a fact at all -->
- See [the docs](docs/index.md)
"""
AGENTS_MD = """# Agents
- Never commit generated migrations without reading them.

<!-- orbital: begin (written by `orbital install codex`) -->
- Orbital keeps this project's memory in orbital/: read it first.
<!-- orbital: end -->
"""
CURSOR_RULE = """---
description: frontend
globs: web/**
---
- Prefer server components for pages that only read data.
"""
MEMORY_INDEX = """- [Testing](feedback_testing.md) — how the person wants tests
- [Release](project_release.md) — the release train
"""
TOPIC_FEEDBACK = """---
name: testing
description: how tests are written
type: feedback
---
Integration tests hit a real database, not mocks.
"""
TOPIC_PROJECT = """---
name: release
type: project
---
The 2.0 release is blocked on the invoice export.
"""
CLINE_ACTIVE = "# Active context\nWorking on the invoice export; the CSV writer is half done.\n"
CLINE_PATTERNS = "# System patterns\n- Every write goes through one unit of work.\n"


def _memory_folder(root: Path, claude_config: Path) -> Path:
    """Where Claude Code keeps a checkout's auto memory: its path, every character but
    letters and digits a dash, under ``projects/`` of its config folder."""
    return claude_config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root)) / "memory"


def _checkout(root: Path, claude_config: Path) -> dict[Path, bytes]:
    """A checkout with a file of every kind (and Orbital's own, which stay out)."""
    memory = _memory_folder(root, claude_config)
    files = {
        root / "CLAUDE.md": CLAUDE_MD,
        root / "CLAUDE.local.md": "- My sandbox runs on port 8080 for the shop API.\n",
        root / ".claude/rules/style.md": "- Keep functions under forty lines each.\n",
        root / "AGENTS.md": AGENTS_MD,
        root / ".cursor/rules/web.mdc": CURSOR_RULE,
        root / ".cursor/rules/orbital.mdc": "- Orbital's own rule, never imported back.\n",
        root / ".cursorrules": "- Use pnpm for every package script.\n",
        root / "memory-bank/activeContext.md": CLINE_ACTIVE,
        root / "memory-bank/systemPatterns.md": CLINE_PATTERNS,
        memory / "MEMORY.md": MEMORY_INDEX,
        memory / "feedback_testing.md": TOPIC_FEEDBACK,
        memory / "project_release.md": TOPIC_PROJECT,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {path: path.read_bytes() for path in files}


Project = tuple[Orbital, str, Path, dict[Path, bytes]]


@pytest.fixture
def project(
    store_url: str, tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Project]:
    root = tmp_path / "shop"
    root.mkdir()
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    service = Orbital.open(store_url, clock=clock)
    pid = service.init_project(root, timezone="UTC").project_id
    sources = _checkout(root, config)
    yield service, pid, root, sources
    service.close()


def _imported(service: Orbital, pid: str) -> list[tuple[str, str, str]]:
    """(from, file, import batch) of every live entry an import added, sorted."""
    memory = service._memory.load(service.store.project(pid))
    return sorted(
        (state.entries[i].meta["from"], key, state.entries[i].meta["import"])
        for key, state in memory.files.items()
        for i in state.live_ids()
        if "from" in state.entries[i].meta
    )


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "orbital").glob("*.md"))}


def test_every_kind_of_source_lands_in_its_file_naming_its_line(
    project: Project, tmp_path: Path
) -> None:
    service, pid, root, sources = project
    report = service.import_from(pid, actor=Actor.AGENT)
    memory = str(_memory_folder(root, tmp_path / "claude-config"))
    assert [(origin, key) for origin, key, _ in _imported(service, pid)] == sorted(
        [
            (".claude/rules/style.md:1", "lessons"),
            (".cursor/rules/web.mdc:5", "lessons"),
            (".cursorrules:1", "lessons"),
            ("AGENTS.md:2", "lessons"),
            ("CLAUDE.local.md:1", "decisions"),
            ("CLAUDE.md:10", "decisions"),
            ("CLAUDE.md:6", "decisions"),
            ("CLAUDE.md:7", "lessons"),
            (f"{memory}/feedback_testing.md:6", "lessons"),
            (f"{memory}/project_release.md:5", "state"),
            ("memory-bank/activeContext.md:2", "state"),
            ("memory-bank/systemPatterns.md:2", "decisions"),
        ]
    )
    assert {batch for _, _, batch in _imported(service, pid)} == {report.batch}
    assert [f.skipped for f in report.facts] == [""] * 12
    # The sources are only read.
    assert {path: path.read_bytes() for path in sources} == sources
    lessons = (root / "orbital" / "LESSONS.md").read_text()
    assert "Always run `pytest -x` before committing. <!--mem id:" in lessons
    assert "\n   - Use the PostgreSQL URL from `.env.test`.\n" in lessons
    decisions = (root / "orbital" / "DECISIONS.md").read_text()
    assert "the team is two people, and PostgreSQL when it grows.\n" in decisions
    for never in ("make test", "ruff", "Orbital keeps", "Orbital's own", "INDEX.md", "the docs"):
        assert never not in decisions + lessons


def test_a_dry_run_changes_nothing_and_a_second_import_adds_nothing(project: Project) -> None:
    service, pid, root, _ = project
    before, head = _files(root), service.head(pid)
    plan = service.import_from(pid, actor=Actor.AGENT, dry_run=True)
    assert (_files(root), service.head(pid)) == (before, head)
    assert plan.dry_run and len(plan.facts) == 12 and not plan.events
    done = service.import_from(pid, actor=Actor.AGENT)
    after, head = _files(root), service.head(pid)
    again = service.import_from(pid, actor=Actor.AGENT)
    assert (_files(root), service.head(pid)) == (after, head)
    assert [f.skipped.startswith("already in memory (") for f in again.facts] == [True] * 12
    assert [f.entry for f in done.facts] == [f.skipped[19:-1] for f in again.facts]


def test_one_command_takes_an_import_back_and_its_history_stays(project: Project) -> None:
    service, pid, root, _ = project
    lessons = service.read_file(pid, "LESSONS.md") + "\n1. Existing lesson about caching.\n"
    service.write_file(pid, "LESSONS.md", lessons.encode(), actor=Actor.AGENT)
    before = _files(root)
    report = service.import_from(pid, actor=Actor.AGENT)
    events = service.undo_import(pid, report.batch, actor=Actor.AGENT)
    assert sum(e.type == "entry.retired" for e in events) == 12
    assert _files(root) == before  # byte for byte, the lesson written before included
    assert _imported(service, pid) == []
    with pytest.raises(InvalidInput) as refused:
        service.undo_import(pid, report.batch, actor=Actor.AGENT)
    assert str(refused.value) == (
        f"no live entry came in import '{report.batch}': it was undone already, or its "
        "entries were removed since"
    )
    # Importing after an undo brings the facts back (the person asked again).
    assert len(_imported(service, pid) + _imported_after(service, pid)) == 12


def _imported_after(service: Orbital, pid: str) -> list[tuple[str, str, str]]:
    service.import_from(pid, actor=Actor.AGENT)
    return _imported(service, pid)


def test_the_cli_plans_imports_and_undoes_with_the_batch_it_printed(
    project: Project, store_url: str
) -> None:
    _, _, root, _ = project
    runner, env = CliRunner(), {"ORBITAL_DB": store_url}
    args = ["import-from", "--project", str(root)]
    dry = runner.invoke(cli, [*args, "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert dry.output.splitlines()[-1] == "dry run: 12 entries would be added from 11 files"
    done = runner.invoke(cli, args, env=env)
    assert done.exit_code == 0, done.output
    last = done.output.splitlines()[-1]
    batch = last.split()[1].rstrip(":")
    assert last == (
        f"import {batch}: 12 entries added from 11 files; "
        f"`orbital import-from --undo {batch}` takes them back"
    )
    undone = runner.invoke(cli, [*args, "--undo", batch], env=env)
    assert undone.output == f"import {batch} taken back: 12 entries removed\n"


def test_facts_are_list_items_and_paragraphs_with_their_first_line() -> None:
    facts = facts_of(Source("CLAUDE.md", RULES, CLAUDE_MD))
    assert [(f.line, f.file, f.section, f.text) for f in facts] == [
        (6, "decisions", "Stack", "The API is Litestar with msgspec structs for every body."),
        (
            7,
            "lessons",
            "Stack",
            "Always run `pytest -x` before committing.\n- Use the PostgreSQL URL from `.env.test`.",
        ),
        (
            10,
            "decisions",
            "Stack",
            "We chose SQLite first because the team is two people, and PostgreSQL when it grows.",
        ),
    ]


def test_an_auto_memory_index_is_pointers_and_a_topic_type_picks_the_file() -> None:
    assert facts_of(Source("MEMORY.md", AUTO_MEMORY, MEMORY_INDEX)) == []
    (fact,) = facts_of(Source("feedback_testing.md", AUTO_MEMORY, TOPIC_FEEDBACK))
    assert (fact.file, fact.line, fact.text) == (
        "lessons",
        6,
        "Integration tests hit a real database, not mocks.",
    )


def test_a_fact_holding_a_secret_is_left_out_and_the_rest_is_imported(
    project: Project, store_url: str
) -> None:
    service, pid, root, _ = project
    notes = root / "docs" / "notes.md"
    notes.parent.mkdir()
    notes.write_text(
        "- Deploys use the key AKIAZ3QX7N4PL2HRW5KT in the CI vault.\n"
        "- We deploy on Tuesdays only, after the review.\n"
    )
    plan = service.import_from(pid, [notes], actor=Actor.AGENT, dry_run=True)
    done = service.import_from(pid, [notes], actor=Actor.AGENT)
    for report in (plan, done):
        assert [f.skipped for f in report.facts] == [
            "looks like a secret (AWS Access Key): left out",
            "",
        ]
    assert done.facts[1].entry
    assert "AKIA" not in (root / "orbital" / "DECISIONS.md").read_text()


def test_an_undo_is_never_a_dry_run_and_names_a_batch_that_never_was(
    project: Project, store_url: str
) -> None:
    service, pid, root, _ = project
    report = service.import_from(pid, actor=Actor.AGENT)
    after = _files(root)
    runner, env = CliRunner(), {"ORBITAL_DB": store_url}
    args = ["import-from", "--project", str(root), "--undo", report.batch, "--dry-run"]
    refused = runner.invoke(cli, args, env=env)
    assert refused.exit_code == 2
    assert "--undo takes a batch back: it goes with no file and no --dry-run" in refused.output
    assert _files(root) == after
    with pytest.raises(InvalidInput) as unknown:
        service.undo_import(pid, "ffffff", actor=Actor.AGENT)
    assert str(unknown.value).startswith("no import 'ffffff' in this project: ")
