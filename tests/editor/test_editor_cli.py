"""``orbital editor apply`` and ``orbital editor run`` end to end, the model played by the fake
OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from orbital.cli import cli
from tests.editor.fake_llm import reply, serving
from tests.editor.helpers import ASK_TEXT, ASSISTANT_SAID, SESSION_A, VERBATIM, reference_sessions

DECISIONS = (
    "## Use Postgres\nChose: PostgreSQL.\nReason: teams.\n\n"
    "## Adopt Vite over Webpack\nChose: Vite.\nReason: speed.\n"
)


@pytest.fixture
def project(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:30:00Z")
    root = tmp_path / "project"
    root.mkdir()
    assert orbital("init", "--project", str(root), "--timezone", "UTC").exit_code == 0
    return root


def orbital(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin, obj={})


def test_apply_prints_applied_and_rejected_with_reasons(project: Path, tmp_path: Path) -> None:
    orbital("write", "DECISIONS.md", "--project", str(project), stdin=DECISIONS)
    choices = tmp_path / "CHOICES.json"
    choices.write_text(
        "Here are my choices:\n```json\n"
        + json.dumps(
            {
                "archive": [
                    {"file": "DECISIONS.md", "id": "adopt-vite-over-webpack", "pointer": "Vite"},
                    {"file": "DECISIONS.md", "id": "nope"},
                ],
                "close_asks": [{"id": "ffffff", "session": "s", "quote": "yes"}],
            }
        )
        + "\n```\n"
    )
    result = orbital("editor", "apply", str(choices), "--project", str(project), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["outcome"] == "edited"
    assert report["applied"] == [
        {"kind": "archive", "file": "DECISIONS.md", "id": "adopt-vite-over-webpack"}
    ]
    assert report["rejected"] == [
        "archive nope: unknown id nope in DECISIONS.md",
        "close_asks ffffff: not an open ask",
    ]
    assert report["skipped_files"] == []
    live = (project / "orbital" / "DECISIONS.md").read_text()
    assert "[archived 2026-09-19 id:adopt-vite-over-webpack] Vite → DECISIONS_ARCHIVE.md" in live
    backup = f"@{report['backup_position']}"
    before = orbital("show", "DECISIONS.md", "--project", str(project), "--as-of", backup)
    assert before.exit_code == 0, before.output
    assert "Chose: Vite." in before.output  # the backup: the file as the run found it
    text = orbital("editor", "apply", str(choices), "--project", str(project))
    assert text.exit_code == 0
    assert text.output.splitlines()[1:] == [
        "rejected archive adopt-vite-over-webpack: unknown id adopt-vite-over-webpack in "
        "DECISIONS.md",
        "rejected archive nope: unknown id nope in DECISIONS.md",
        "rejected close_asks ffffff: not an open ask",
    ]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    refused = orbital("editor", "apply", str(bad), "--project", str(project))
    assert refused.exit_code == 1
    assert refused.stderr == "error: the choices document is not a JSON object\n"


def open_webinar_ask(project: Path) -> str:
    assert orbital("ask", "open", ASK_TEXT, "--project", str(project)).exit_code == 0
    asks = json.loads(orbital("asks", "--project", str(project), "--json").output)
    ask_id = asks[0]["id"]
    assert isinstance(ask_id, str)
    return ask_id


def run_editor_against(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quote: str
) -> tuple[str, Result, list[str]]:
    ask_id = open_webinar_ask(project)
    sessions = reference_sessions(tmp_path / "sessions")
    choices = {"close_asks": [{"id": ask_id, "session": SESSION_A, "quote": quote}]}
    with serving([reply(json.dumps(choices))]) as fake:
        monkeypatch.setenv("ORBITAL_EDITOR_URL", fake.url)
        monkeypatch.setenv("ORBITAL_EDITOR_MODEL", "fake")
        result = orbital(
            "editor", "run", "--force", "--project", str(project), "--sessions", str(sessions),
            "--json",
        )  # fmt: skip
        prompts = [str(r.messages[1]["content"]) for r in fake.requests]
    return ask_id, result, prompts


def test_run_closes_an_ask_quoted_verbatim_from_the_user(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask_id, result, prompts = run_editor_against(project, tmp_path, monkeypatch, VERBATIM)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["outcome"] == "edited"
    assert report["calls"] == 1
    assert report["applied"] == [{"kind": "close_ask", "id": ask_id, "session": SESSION_A}]
    assert f"[{ask_id}] {ASK_TEXT}" in prompts[0]
    asks_md = (project / "orbital" / "ASKS.md").read_text()
    assert f'done {ask_id} 2026-09-19 by:editor "{VERBATIM}"' in asks_md
    state = json.loads(
        orbital("asks", "--project", str(project), "--state", "all", "--json").output
    )
    assert [(a["state"], a["closed_by"]) for a in state] == [("done", "editor")]


def test_run_refuses_the_assistants_own_sentence_and_the_ask_stays_open(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "English it is" in ASSISTANT_SAID
    ask_id, result, _ = run_editor_against(project, tmp_path, monkeypatch, "English it is")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["outcome"] == "no_change"
    assert report["applied"] == []
    assert report["rejected"] == [
        f"close_asks {ask_id}: quote not in the user's messages of {SESSION_A}"
    ]
    asks = json.loads(orbital("asks", "--project", str(project), "--json").output)
    assert [a["id"] for a in asks] == [ask_id]  # still open
    assert "by:editor" not in (project / "orbital" / "ASKS.md").read_text()


def test_run_without_configuration_fails_and_still_runs_the_backstop(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ORBITAL_EDITOR_URL", raising=False)
    result = orbital("editor", "run", "--force", "--project", str(project))
    assert result.exit_code == 6  # Unavailable, as README's exit table says (issue 27 item 8)
    assert result.output.startswith("failed (run ")
    assert result.output.splitlines()[0].endswith(
        "): the pass did not finish; nothing it chose was written"
    )
    assert "ORBITAL_EDITOR_URL" in result.stderr
    debounced = orbital("editor", "run", "--project", str(project))
    assert debounced.output == (  # the store says a pass started: any process waits 5 minutes
        "debounced: no pass ran: one started less than 5 minutes ago "
        "(`orbital editor run --force` runs one anyway)\n"
    )
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:36:00Z")
    not_due = orbital("editor", "run", "--project", str(project))
    assert (not_due.exit_code, not_due.output) == (
        0,
        "not_needed: no pass ran: every memory file is within its soft budget "
        "(`orbital editor run --force` runs one anyway)\n",
    )
