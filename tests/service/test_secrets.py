"""Secrets kept out at the door (issue 27): every write path runs the one check on the text it
brings (``orbital/domain/secrets.py``, called by ``Unit.append``). A refused write changes
nothing (the file byte-identical); a hand edit's refused line becomes a conflict copy with
the line left out, so the secret is stored nowhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.clock import FixedClock
from orbital.domain.secrets import secrets_in
from orbital.errors import SecretRefused
from orbital.events import Actor
from orbital.service import Orbital

KEY = "AKIAZ7QWERTY12345678"
TOKEN = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"
LESSON = f"- Deploy with the key {KEY} from ops\n"


def refusal(line: int, where: str, kind: str) -> str:
    return (
        f"line {line} of {where} looks like a secret ({kind}); nothing was changed. Keep "
        "secrets out of memory; if it is not one, end the line with "
        "`# pragma: allowlist secret`"
    )


@pytest.fixture
def project(orbital_db: str, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return root


def _everything(root: Path, store_url: str, pid: str) -> str:
    """Every file under the project and every stored event and stream state, as one text."""
    texts = [p.read_text("utf-8", "replace") for p in root.rglob("*") if p.is_file()]
    with Orbital.open(store_url) as service:
        texts += [repr(e.event) for e in service.history(pid)]
    return "\n".join(texts)


def test_the_detector_names_the_line_and_the_kind() -> None:
    allowed = f"- ok {KEY} # pragma: allowlist secret"
    text = f"- plain\n- uses {KEY}\npassword = 'hunter2isbad'\n{allowed}"
    assert [(f.line, f.kind) for f in secrets_in(text)] == [
        (2, "AWS Access Key"),
        (3, "Secret Keyword"),
    ]
    assert secrets_in("- Use click for the CLI; see use-click-2 and 127.0.0.1:8765\n") == ()


def test_the_detector_runs_in_the_process_without_the_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket
    import subprocess

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the detector must not reach out")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(subprocess, "Popen", refused)
    assert [f.kind for f in secrets_in(f"aws {KEY}\n{TOKEN}")] == ["AWS Access Key", "GitHub Token"]


def test_the_detector_loads_without_requests_and_leaves_it_importable() -> None:
    """detect-secrets imports ``requests`` only to verify a secret over the network (off
    here): a new process that checks texts, one with secrets in it, never imports it, and
    one that imports it afterwards gets the real package."""
    import subprocess
    import sys

    text = f"- plain\naws {KEY}\n{TOKEN}"
    script = (
        "import sys\n"
        "from orbital.domain.secrets import secrets_in\n"
        f"found = secrets_in({text!r})\n"
        "print([f.kind for f in found], 'requests' in sys.modules)\n"
        "import requests\n"
        "print(requests.Session.__module__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout == "['AWS Access Key', 'GitHub Token'] False\nrequests.sessions\n", done


def test_a_cli_write_with_a_secret_is_refused_and_the_file_kept(project: Path) -> None:
    lessons = project / "orbital" / "DECISIONS.md"
    before = lessons.read_bytes()
    text = before.decode() + "## use-vault\nChose: the key " + KEY + " for now\n"
    done = CliRunner().invoke(cli, ["write", "DECISIONS.md", "--project", str(project)], input=text)
    assert done.exit_code == 4
    assert done.stderr == f"error: {refusal(3, 'orbital/DECISIONS.md', 'AWS Access Key')}\n"
    assert lessons.read_bytes() == before
    allowed = text.replace(" for now\n", " for now # pragma: allowlist secret\n")
    done = CliRunner().invoke(
        cli, ["write", "DECISIONS.md", "--project", str(project)], input=allowed
    )
    assert done.exit_code == 0, done.output
    assert "# pragma: allowlist secret" in lessons.read_text()


def test_an_ask_with_a_secret_is_refused(project: Path) -> None:
    asks = project / "orbital" / "ASKS.md"
    before = asks.read_bytes()
    done = CliRunner().invoke(
        cli, ["ask", "open", f"Rotate {TOKEN} today", "--project", str(project)]
    )
    assert done.exit_code == 4
    assert done.stderr == "error: " + refusal(1, "the ask's text", "GitHub Token") + "\n"
    assert asks.read_bytes() == before


def test_the_service_refuses_for_every_face(orbital_db: str, project: Path) -> None:
    """The rule is in the unit of work, not in a face: the person is refused too."""
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
        with pytest.raises(SecretRefused) as refused:
            service.ask_open(pid, "Ship it with password = 'hunter2isbad'", actor=Actor.USER)
        assert str(refused.value) == refusal(1, "the ask's text", "Secret Keyword")
        assert service.asks(pid) == []


def test_a_hand_edit_with_a_secret_becomes_a_conflict_copy_without_it(
    orbital_db: str, project: Path
) -> None:
    lessons = project / "orbital" / "LESSONS.md"
    before = lessons.read_bytes()
    lessons.write_bytes(before + b"1. Keep the build green\n" + LESSON.encode())
    done = CliRunner().invoke(cli, ["sync", "--project", str(project)])
    assert lessons.read_bytes() == before  # nothing taken in: written again from events
    (copy,) = (project / "orbital").glob("LESSONS.md.conflict-*.md")
    assert copy.read_text() == (
        before.decode()
        + "1. Keep the build green\n"
        + "[left out: line 3 looked like a secret (AWS Access Key)]\n"
    )
    assert (
        "LESSONS.md: line 3 of the file on disk looks like a secret (AWS Access Key); nothing "
        "was taken from it and LESSONS.md was written again from events. The file is saved as "
        f"orbital/{copy.name} with that line left out: keep the secret out of memory (or, if "
        "it is not one, end the line with `# pragma: allowlist secret`), write your change "
        "again and delete the copy."
    ) in done.output
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
    assert KEY not in _everything(project, orbital_db, pid)


def test_a_file_from_before_the_store_is_not_imported_with_its_secret(
    orbital_db: str, tmp_path: Path
) -> None:
    root = tmp_path / "old"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "LESSONS.md").write_text("1. Keep CI green\n" + LESSON.replace("-", "2."))
    done = CliRunner().invoke(cli, ["init", "--project", str(root)])
    assert done.exit_code == 0, done.output
    (copy,) = (root / "orbital").glob("LESSONS.md.conflict-*.md")
    assert copy.read_text() == (
        "1. Keep CI green\n[left out: line 2 looked like a secret (AWS Access Key)]\n"
    )
    with Orbital.open(orbital_db) as service:
        pid = service.project(root).project_id
    assert KEY not in _everything(root, orbital_db, pid)


def test_a_hand_edit_of_asks_keeps_the_secret_out_of_its_copy(
    orbital_db: str, project: Path
) -> None:
    asks = project / "orbital" / "ASKS.md"
    before = asks.read_bytes()
    asks.write_bytes(before + f"- open Rotate {TOKEN} today\n".encode())
    CliRunner().invoke(cli, ["sync", "--project", str(project)])
    assert asks.read_bytes() == before
    (copy,) = (project / "orbital").glob("ASKS.md.conflict-*.md")
    assert copy.read_text().endswith("\n[left out: line 2 looked like a secret (GitHub Token)]\n")
    with Orbital.open(orbital_db) as service:
        pid = service.project(project).project_id
    assert TOKEN not in _everything(project, orbital_db, pid)


def test_an_agent_file_tool_is_denied_through_its_hook(
    orbital_db: str, project: Path, clock: FixedClock
) -> None:
    lessons = project / "orbital" / "LESSONS.md"
    before = lessons.read_text()
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": {"file_path": str(lessons), "content": before + "1. x\n" + LESSON},
    }
    done = CliRunner().invoke(cli, ["hook", "claude-code", "pre-tool"], input=json.dumps(payload))
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert (
        refusal(3, "orbital/LESSONS.md", "AWS Access Key") in (answer["permissionDecisionReason"])
    )
    assert lessons.read_text() == before


def test_a_secret_the_memory_holds_already_is_not_new_text(project: Path) -> None:
    """Allowed once, the same secret moved or reworded (a pointer, a merge, a rewording
    without the marker) is not refused again: it is no new text; purge takes it out."""
    decisions = project / "orbital" / "DECISIONS.md"
    p = ["write", "DECISIONS.md", "--project", str(project)]
    allowed = (
        f"{decisions.read_text()}## use-vault\nChose: the key {KEY} # pragma: allowlist secret\n"
    )
    assert CliRunner().invoke(cli, p, input=allowed).exit_code == 0
    reworded = decisions.read_text().replace(" # pragma: allowlist secret", " for now")
    done = CliRunner().invoke(cli, p, input=reworded)
    assert done.exit_code == 0, done.output
    assert f"Chose: the key {KEY} for now" in decisions.read_text()


def test_descriptions_and_workspace_texts_are_checked_too(
    orbital_db: str, project: Path, tmp_path: Path
) -> None:
    """A workspace write is no unit of work (its stream belongs to no project), yet it runs
    the same check before it appends."""
    run = CliRunner()
    assert run.invoke(cli, ["workspace", "create", "acme"]).exit_code == 0
    other = tmp_path / "other"
    other.mkdir()
    assert run.invoke(cli, ["init", "--project", str(other), "--workspace", "acme"]).exit_code == 0
    secret = f"Shared notes\nThe CI token is {TOKEN}\n"
    for args, where in (
        ([], "the project description"),
        (["--workspace"], "the workspace context"),
    ):
        done = run.invoke(cli, ["describe", "--project", str(other), *args], input=secret)
        assert (done.exit_code, done.stderr) == (
            4,
            "error: " + refusal(2, where, "GitHub Token") + "\n",
        )
    with Orbital.open(orbital_db) as service:
        pid = service.project(other).project_id
        assert all(TOKEN not in repr(e.event) for e in service.history(pid))
        texts = service.workspaces.texts(pid)
        assert texts.project.description == ""
        assert texts.workspace is not None and texts.workspace.context == ""


def test_a_file_an_agent_wrote_itself_is_refused_and_written_again(
    orbital_db: str, project: Path
) -> None:
    """A memory file an agent's shell wrote (taken in after its tool ran) is refused the
    same way, and written again from events: the secret does not stay on disk."""
    lessons, asks = project / "orbital" / "LESSONS.md", project / "orbital" / "ASKS.md"
    before = {p: p.read_bytes() for p in (lessons, asks)}
    lessons.write_bytes(before[lessons] + b"1. Keep CI green\n" + LESSON.encode())
    asks.write_bytes(before[asks] + f"- open Rotate {TOKEN} today\n".encode())
    with Orbital.open(orbital_db) as service:
        warnings = service.agents.take_in(service.project(project), "s1")
        pid = service.project(project).project_id
    assert warnings == [
        refusal(3, "orbital/LESSONS.md", "AWS Access Key")
        + " (the file was written again from events)",
        refusal(2, "orbital/ASKS.md", "GitHub Token") + " (the file was written again from events)",
    ]
    assert {p: p.read_bytes() for p in (lessons, asks)} == before
    assert KEY not in _everything(project, orbital_db, pid)
    assert TOKEN not in _everything(project, orbital_db, pid)
