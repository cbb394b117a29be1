"""The CLI skeleton end to end on a temporary store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli


@pytest.fixture
def run(orbital_db: str, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    return CliRunner()


def test_init_registers_creates_the_memory_dir_and_is_idempotent(
    run: CliRunner, tmp_path: Path
) -> None:
    project = tmp_path / "My Site"
    project.mkdir()
    first = run.invoke(cli, ["init", "--project", str(project)], obj={})
    assert first.exit_code == 0, first.output
    pid = (project / "orbital" / "project-id").read_text().strip()
    assert first.output == f"project My Site at {project} (id {pid})\n"
    assert (project / "orbital").is_dir()
    again = run.invoke(cli, ["init", "--project", str(project)], obj={})
    assert again.output == first.output
    listed = run.invoke(cli, ["history", "--project", str(project / "orbital"), "--json"], obj={})
    assert listed.exit_code == 0, listed.output
    rows = [json.loads(line) for line in listed.output.splitlines()]
    assert [(r["position"], r["stream"], r["actor"]) for r in rows] == [(1, "project", "system")]
    assert rows[0]["event"] == {
        "type": "project.registered",
        "root": str(project),
        "name": "My Site",
    }
    assert rows[0]["recorded_at"] == "2026-11-01T09:30:00Z"


def test_history_table_and_time_filters(run: CliRunner, tmp_path: Path) -> None:
    run.invoke(cli, ["init", "--project", str(tmp_path)], obj={})
    table = run.invoke(cli, ["history", "--project", str(tmp_path)], obj={})
    assert table.exit_code == 0
    assert "project.registered" in table.output
    assert "2026-11-01 09:30:00" in table.output
    later = run.invoke(
        cli, ["history", "--project", str(tmp_path), "--since", "2026-11-02", "--json"], obj={}
    )
    assert later.exit_code == 0
    assert later.output == ""


def test_errors_are_one_line_and_exit_1(run: CliRunner, tmp_path: Path) -> None:
    run.invoke(cli, ["db", "upgrade"], obj={})  # a store without this project (only init and
    # db upgrade create a store: tests/reliability/test_store_identity.py)
    unknown = run.invoke(cli, ["history", "--project", str(tmp_path)], obj={})
    assert unknown.exit_code == 1
    assert unknown.stderr == (
        f"error: unknown project '{tmp_path}': register it first with "
        "`orbital init --project PATH`\n"
    )
    run.invoke(cli, ["init", "--project", str(tmp_path)], obj={})
    bad_time = run.invoke(cli, ["history", "--project", str(tmp_path), "--since", "soon"], obj={})
    assert bad_time.exit_code == 1
    assert "'soon' is not an ISO 8601 date or time" in bad_time.stderr
    missing = run.invoke(cli, ["init", "--project", str(tmp_path / "absent")], obj={})
    assert missing.exit_code == 1
    assert "is not a directory" in missing.stderr
    bad_tz = run.invoke(cli, ["init", "--project", str(tmp_path), "--timezone", "Nowhere"], obj={})
    assert bad_tz.exit_code == 1


def test_db_upgrade_reports_the_backend(run: CliRunner, backend: str) -> None:
    result = run.invoke(cli, ["db", "upgrade"], obj={})
    assert result.exit_code == 0
    assert (
        result.output == f"schema up to date ({backend})\nasks filed by their keys for 0 projects\n"
    )


def test_db_status_says_where_the_store_is(
    run: CliRunner, backend: str, orbital_db: str, tmp_path: Path
) -> None:
    """README: `orbital db status` prints the store's file (issue 27, finding 8)."""
    run.invoke(cli, ["db", "upgrade"], obj={})
    status = run.invoke(cli, ["db", "status"], obj={})
    assert status.exit_code == 0, status.output
    lines = status.output.splitlines()
    assert lines[:3] == [
        "store: ok",
        f"location: {tmp_path / 'orbital.db' if backend == 'sqlite' else orbital_db}",
        f"backend: {backend}",
    ]


def test_ask_commands_act_as_the_agent_unless_a_workbench_token_is_given(
    run: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = str(tmp_path)
    assert run.invoke(cli, ["init", "--project", project], obj={}).exit_code == 0
    opened = run.invoke(cli, ["ask", "open", "--project", project, "Pick a date", "--json"], obj={})
    assert opened.exit_code == 0, opened.output
    ask_id = json.loads(opened.stdout)["events"][0]["stream"].split(":")[1]
    agent_close = run.invoke(
        cli, ["ask", "done", "--project", project, ask_id, "--quote", "the 3rd"], obj={}
    )
    assert agent_close.exit_code == 0
    log = (tmp_path / "orbital" / "ASKS.md").read_text()
    assert log.endswith(f'- done {ask_id} 2026-11-01 by:agent "the 3rd"\n')
    refused = run.invoke(cli, ["ask", "--as-user", "reopen", "--project", project, ask_id], obj={})
    assert refused.exit_code == 1
    assert "needs the person's Workbench token" in refused.stderr
    agent_token = run.invoke(cli, ["token", "create", "--audience", "agent"], obj={})
    monkeypatch.setenv("ORBITAL_TOKEN", agent_token.stdout.splitlines()[-1])
    wrong = run.invoke(cli, ["ask", "--as-user", "reopen", "--project", project, ask_id], obj={})
    assert "needs a live Workbench token" in wrong.stderr
    person = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    monkeypatch.setenv("ORBITAL_TOKEN", person.stdout.splitlines()[-1])
    reopened = run.invoke(cli, ["ask", "--as-user", "reopen", "--project", project, ask_id], obj={})
    assert reopened.exit_code == 0, reopened.stderr
    log = (tmp_path / "orbital" / "ASKS.md").read_text()
    assert log.endswith(f"- reopen {ask_id} 2026-11-01 by:user\n")


def test_bad_stores_and_bad_asks_are_one_line_errors(
    run: CliRunner, orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ORBITAL_DB")
    bogus = run.invoke(cli, ["--db", "bogus://x", "projects"], obj={})
    assert (bogus.exit_code, bogus.stderr) == (
        1,
        "error: unsupported database URL 'bogus://x': use sqlite:///PATH or "
        "postgresql+psycopg://…\n",
    )
    typo = run.invoke(cli, ["--db", f"sqlite:///{tmp_path}/no/such/dir/x.db", "projects"], obj={})
    assert typo.exit_code == 1
    assert "does not exist: check ORBITAL_DB / --db" in typo.stderr
    assert not (tmp_path / "no").exists()
    monkeypatch.setenv("ORBITAL_DB", orbital_db)
    run.invoke(cli, ["init", "--project", str(tmp_path)], obj={})
    listed = run.invoke(cli, ["projects"], obj={})
    project_id, name, root, zone = listed.stdout.rstrip("\n").split("\t")
    assert (name, root, zone) == (tmp_path.name, str(tmp_path), "local")
    assert project_id == (tmp_path / "orbital" / "project-id").read_text().strip()
    for text, due, message in [
        ("", None, "error: an ask needs a text\n"),
        (
            "Ship it",
            "tomorrow",
            "error: due 'tomorrow' is not a date: write YYYY-MM-DD or "
            "YYYY-MM-DDTHH:MM (a real day)\n",
        ),
        (
            "Ship it",
            "2026-02-30",
            "error: due '2026-02-30' is not a date: write YYYY-MM-DD or "
            "YYYY-MM-DDTHH:MM (a real day)\n",
        ),
    ]:
        args = ["ask", "open", "--project", str(tmp_path), text]
        result = run.invoke(cli, [*args, *(["--due", due] if due else [])], obj={})
        assert (result.exit_code, result.stderr) == (1, message)
    ok = run.invoke(
        cli,
        ["ask", "open", "--project", str(tmp_path), "Ship it", "--due", "2026-11-03T15:30"],
        obj={},
    )
    assert ok.exit_code == 0, ok.stderr
    missing = run.invoke(
        cli, ["migrate-retractions", "--project", str(tmp_path), str(tmp_path / "nope.md")], obj={}
    )
    assert missing.exit_code == 1
    assert "nope.md is not a file" in missing.stderr
    nothing = run.invoke(cli, ["migrate-retractions", "--project", str(tmp_path)], obj={})
    assert nothing.stdout == (
        "nothing to migrate: no retraction lines and no [user] lines in PROJECT_STATE.md\n"
    )


def test_an_empty_write_is_refused_and_a_smaller_removal_says_where_it_went(
    run: CliRunner, tmp_path: Path
) -> None:
    project = str(tmp_path)
    run.invoke(cli, ["init", "--project", project], obj={})
    run.invoke(
        cli,
        ["write", "--project", project, "LESSONS.md"],
        input="1. Test first.\n2. Curl beats the browser.\n3. Pin versions.\n",
        obj={},
    )
    lessons = tmp_path / "orbital" / "LESSONS.md"
    before = lessons.read_bytes()

    def based() -> list[str]:
        shown = run.invoke(cli, ["show", "--project", project, "LESSONS.md", "--json"], obj={})
        version = str(json.loads(shown.stdout)["version"])
        return ["write", "--project", project, "LESSONS.md", "--base", version]

    emptied = run.invoke(cli, based(), input="", obj={})
    assert emptied.exit_code == 4
    assert emptied.stderr == (
        "error: LESSONS.md: this write would remove 3 of its 3 entries (test-first, "
        "curl-beats-the-browser, pin-versions); nothing was changed. Send the whole file back "
        "with your change: entries missing from a write are removed. To remove entries on "
        "purpose, name each one in the write's `remove` list, or remove a few at a time: "
        "`orbital write --remove ID` (once per entry) names the entries removed on purpose\n"
    )
    assert lessons.read_bytes() == before
    one = run.invoke(cli, based(), input="1. Test first.\n2. Pin versions.\n", obj={})
    assert one.exit_code == 0
    assert (
        "warning: LESSONS.md: 1 entry the new text no longer has was removed from the file "
        "(curl-beats-the-browser); their text stays in the history (orbital history --file "
        "LESSONS.md) and `orbital restore ID` brings one back.\n"
    ) in one.stderr
    restored = run.invoke(cli, ["restore", "--project", project, "curl-beats-the-browser"], obj={})
    assert restored.exit_code == 0
    assert "entry.restored curl-beats-the-browser" in restored.stdout
    assert "curl-beats-the-browser" in lessons.read_text()
    ids = ["test-first", "pin-versions", "curl-beats-the-browser"]
    named = [arg for i in ids for arg in ("--remove", i)]
    on_purpose = run.invoke(
        cli, ["write", "--project", project, "LESSONS.md", *named], input="", obj={}
    )
    assert on_purpose.exit_code == 0, on_purpose.stderr


def test_a_write_with_a_stale_base_keeps_what_was_written_since_or_exits_5(
    run: CliRunner, tmp_path: Path
) -> None:
    project = str(tmp_path)
    run.invoke(cli, ["init", "--project", project], obj={})
    first = "## Use Vite\nChose: Vite.\nReason: speed.\n"
    run.invoke(cli, ["write", "--project", project, "DECISIONS.md"], input=first, obj={})
    shown = run.invoke(cli, ["show", "--project", project, "DECISIONS.md", "--json"], obj={})
    read, version = json.loads(shown.stdout)["content"], json.loads(shown.stdout)["version"]
    other = read + "\n## Ship on Fridays\nChose: yes.\n"
    run.invoke(cli, ["write", "--project", project, "DECISIONS.md"], input=other, obj={})
    base = ["write", "--project", project, "DECISIONS.md", "--base", str(version)]
    mine = read + "\n## Keep a changelog\nChose: one file.\n"
    written = run.invoke(cli, [*base, "--json"], input=mine, obj={})
    assert written.exit_code == 0, written.stderr
    content = json.loads(written.stdout)["content"]
    assert "## Ship on Fridays" in content and "## Keep a changelog" in content
    changed = run.invoke(cli, base, input=read.replace("speed.", "build speed."), obj={})
    assert changed.exit_code == 0  # nobody changed that entry since: it applies
    stale = run.invoke(cli, base, input=read.replace("speed.", "dev speed."), obj={})
    assert stale.exit_code == 5
    assert stale.stderr.startswith(
        f"error: DECISIONS.md changed since the version this write is based on (position "
        f"{version}) in what the write changes too: use-vite; nothing was written."
    )
    assert "build speed." in (tmp_path / "orbital" / "DECISIONS.md").read_text()


def test_init_over_an_undecodable_memory_file_warns_and_keeps_it(
    run: CliRunner, tmp_path: Path
) -> None:
    # Issue 13 item 13: never skipped without a word, nothing lost.
    (tmp_path / "orbital").mkdir()
    raw = b"## Use Postgres\nChose: \xff\xfe PostgreSQL.\n"
    (tmp_path / "orbital" / "DECISIONS.md").write_bytes(raw)
    result = run.invoke(cli, ["init", "--project", str(tmp_path)], obj={})
    assert result.exit_code == 0, result.output
    copies = sorted((tmp_path / "orbital").glob("DECISIONS.md.conflict-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == raw
    assert result.stderr == (
        "warning: DECISIONS.md was not imported: it is not valid UTF-8 (first bad byte at "
        f"offset 23). The file is kept, byte for byte, as orbital/{copies[0].name}, and "
        "DECISIONS.md was written anew from the store; save your entries as UTF-8 into it (or "
        "`orbital write`) and delete the copy.\n"
    )
    assert (tmp_path / "orbital" / "DECISIONS.md").read_bytes().startswith(b"<!--format")


def test_init_refuses_a_directory_whose_orbital_is_a_python_package(
    run: CliRunner, tmp_path: Path
) -> None:
    # Issue 13 README: `orbital init` in Orbital's own checkout wrote memory into the package.
    package = tmp_path / "orbital"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package."""\n')
    result = run.invoke(cli, ["init", "--project", str(tmp_path)], obj={})
    assert result.exit_code == 4
    assert result.stderr == (
        f"error: {package} is a Python package (Orbital's own source?), not a memory "
        "directory: run `orbital init` in your project's directory, or pass --project PATH\n"
    )
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py"]
    listed = run.invoke(cli, ["projects"], obj={})
    assert str(tmp_path) not in listed.output


def test_every_command_is_found_where_the_lazy_group_looks() -> None:
    """``COMMAND_MODULES`` names each top-level command's module: importing every module
    registers exactly those commands, each from its module."""
    import importlib

    from orbital.cli._app import COMMAND_MODULES

    for module in set(COMMAND_MODULES.values()):
        importlib.import_module(f"orbital.cli.{module}")
    assert set(cli.commands) == set(COMMAND_MODULES)
    for name, command in cli.commands.items():
        assert command.callback is not None
        assert command.callback.__module__.endswith(COMMAND_MODULES[name]), name
