"""CRLF memory files (issue 13 item 6; upstream's
``test_crlf_state_with_nothing_to_convert_is_not_rewritten``): line endings are kept as the
file has them and never count as a change; whitespace between entries is no revision."""

from __future__ import annotations

import random
from pathlib import Path

from orbital.clock import FixedClock
from orbital.domain.asks import random_minter
from orbital.events import Actor
from orbital.service import Orbital
from tests.service.conftest import TODAY, Env

STATE = "## Now\n- Shipping the installer.\n- Waiting on the signing certificate.\n"
DECISIONS = "## Use Postgres\nChose: PostgreSQL.\n\n## Adopt Vite\nChose: Vite.\n"


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def canonical(env: Env, name: str, text: str) -> str:
    """The file as Orbital renders ``text`` (nothing left to convert)."""
    return env.orbital.write_file(env.project, name, text.encode(), actor=Actor.AGENT).content


def test_a_crlf_state_with_nothing_to_convert_is_not_rewritten_by_sync(env: Env) -> None:
    path = env.memory / "PROJECT_STATE.md"
    path.write_bytes(crlf(canonical(env, "PROJECT_STATE.md", STATE)))
    before = path.read_bytes()
    head = env.orbital.head(env.project)
    report = env.orbital.sync(env.project)
    assert report.events == [] and report.conflicts == []
    assert path.read_bytes() == before
    assert env.orbital.head(env.project) == head
    assert env.orbital.unmerged(env.project) == []
    assert "\r" not in env.orbital.context_view(env.project)


def test_init_over_a_crlf_state_keeps_its_bytes_and_line_endings(
    env: Env, store_url: str, tmp_path: Path
) -> None:
    text = canonical(env, "PROJECT_STATE.md", STATE)
    root = tmp_path / "other"
    (root / "orbital").mkdir(parents=True)
    (root / "orbital" / "PROJECT_STATE.md").write_bytes(crlf(text))
    (root / "orbital" / "DECISIONS.md").write_bytes(crlf(DECISIONS))
    clock, mint = FixedClock(TODAY), random_minter(random.Random(3))
    with Orbital.open(store_url, clock=clock, mint=mint) as service:
        project = service.init_project(root, timezone="UTC").project_id
        state = (root / "orbital" / "PROJECT_STATE.md").read_bytes()
        assert state == crlf(text)
        decisions = (root / "orbital" / "DECISIONS.md").read_bytes()
        assert b"\r\n" in decisions and b"\n" not in decisions.replace(b"\r\n", b"")
        head = service.head(project)
        assert service.sync(project).events == []
        assert (root / "orbital" / "PROJECT_STATE.md").read_bytes() == state
        assert service.head(project) == head
        view = service.context_view(project)
        assert "\r" not in view and "Shipping the installer." in view
        assert "\r" not in service.read_file(project, "DECISIONS.md")
        # The same DECISIONS text written back with LF is no revision.
        lf = decisions.decode().replace("\r\n", "\n").encode()
        outcome = service.write_file(project, "DECISIONS.md", lf, actor=Actor.AGENT)
        assert outcome.events == []
        assert (root / "orbital" / "DECISIONS.md").read_bytes() == decisions


def test_an_agent_write_to_a_crlf_file_keeps_crlf(env: Env) -> None:
    path = env.memory / "DECISIONS.md"
    path.write_bytes(crlf(canonical(env, "DECISIONS.md", DECISIONS)))
    env.orbital.sync(env.project)
    outcome = env.orbital.write_file(
        env.project,
        "DECISIONS.md",
        (DECISIONS + "\n## Ship on Fridays\nChose: yes.\n").encode(),
        actor=Actor.AGENT,
    )
    assert [e.type for e in outcome.events] == ["entry.created", "file.layout_set"]
    raw = path.read_bytes()
    assert b"## Ship on Fridays" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    assert raw.decode().replace("\r\n", "\n") == outcome.content


def test_a_crlf_write_of_the_same_text_records_nothing(env: Env) -> None:
    text = canonical(env, "DECISIONS.md", DECISIONS)
    outcome = env.orbital.write_file(env.project, "DECISIONS.md", crlf(text), actor=Actor.AGENT)
    assert outcome.events == []
    assert env.file("DECISIONS.md") == text.encode()  # the file is LF: it stays LF


def test_only_whitespace_between_entries_changed_records_no_revision(env: Env) -> None:
    text = canonical(env, "DECISIONS.md", DECISIONS)
    spaced = text.replace("Chose: PostgreSQL.\n\n", "Chose: PostgreSQL.\n\n\n\n")
    outcome = env.orbital.write_file(
        env.project, "DECISIONS.md", spaced.encode(), actor=Actor.AGENT
    )
    assert [e.type for e in outcome.events if e.type.startswith("entry.")] == []
    closer = text.replace("Chose: PostgreSQL.\n\n", "Chose: PostgreSQL.\n")
    outcome = env.orbital.write_file(
        env.project, "DECISIONS.md", closer.encode(), actor=Actor.AGENT
    )
    assert [e.type for e in outcome.events if e.type.startswith("entry.")] == []
