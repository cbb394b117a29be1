"""Durable memory files end to end: events in the store, files on disk, views, backstop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.domain.budgets import est_tokens
from orbital.errors import (
    InvalidEncoding,
    Refused,
    TooLarge,
    UnknownEntry,
    UnknownFile,
    UnsafePath,
)
from orbital.events import Actor
from orbital.grammar.memory_files import FORMAT_HEADERS
from orbital.service import Orbital, WriteOutcome
from projections.view_order import NO_DESCRIPTION
from tests.seeded import seeded_project
from tests.service.conftest import TODAY, Env

DECISIONS = (
    "# Decisions\n\n"
    "## Use Postgres for storage\nChose: PostgreSQL.\nReason: teams.\n\n"
    "## Adopt Vite over Webpack\nChose: Vite.\nReason: speed.\n"
)


def write(env: Env, name: str, text: str | bytes, actor: Actor = Actor.AGENT) -> WriteOutcome:
    data = text.encode() if isinstance(text, str) else text
    return env.orbital.write_file(env.project, name, data, actor=actor)


def test_init_writes_each_file_with_its_format_contract(env: Env) -> None:
    for key, name in [
        ("decisions", "DECISIONS.md"),
        ("lessons", "LESSONS.md"),
        ("state", "PROJECT_STATE.md"),
        ("index", "INDEX.md"),
    ]:
        assert env.file(name).decode() == FORMAT_HEADERS[key] + "\n"


def test_a_write_stamps_ids_and_the_file_on_disk_is_the_projection(env: Env) -> None:
    outcome = write(env, "DECISIONS.md", DECISIONS)
    text = env.file("DECISIONS.md").decode()
    assert outcome.content == text
    assert text.startswith(FORMAT_HEADERS["decisions"] + "\n# Decisions\n\n")
    assert (
        "## Use Postgres for storage <!--mem id:use-postgres-for-storage created:2026-09-19 "
        "touched:2026-09-19-->\nChose: PostgreSQL.\n"
    ) in text
    assert [e.type for e in outcome.events] == ["entry.created", "entry.created", "file.layout_set"]
    assert env.orbital.read_file(env.project, "decisions.md") == text


def test_a_comment_stripped_rewrite_is_byte_identical_and_appends_nothing(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    write(env, "PROJECT_STATE.md", "## Now\n- Shipping the installer.\n- Beta on Friday.\n")
    head = env.orbital.head()
    for name, stripped in [
        ("DECISIONS.md", DECISIONS),
        ("PROJECT_STATE.md", "## Now\n- Shipping the installer.\n- Beta on Friday.\n"),
    ]:
        before = env.file(name)
        outcome = write(env, name, stripped)
        assert outcome.events == []
        assert outcome.content.encode() == before == env.file(name)
    assert env.orbital.head() == head


def test_a_new_title_never_reuses_an_id_the_project_ever_had(env: Env) -> None:
    write(env, "DECISIONS.md", "## New decision\nChose: a.\n")
    env.orbital.write_file(  # new-decision retired
        env.project,
        "DECISIONS.md",
        b"## Something else\nChose: b.\n",
        actor=Actor.AGENT,
        remove=("new-decision",),
    )
    outcome = write(
        env, "DECISIONS.md", "## Something else\nChose: b.\n\n## New decision\nChose: c.\n"
    )
    assert "<!--mem id:new-decision-2 " in outcome.content
    assert "id:new-decision " not in outcome.content
    history = [e for e in env.orbital.history(env.project) if e.stream == "entry:new-decision"]
    assert [e.type for e in history] == ["entry.created", "entry.retired"]


def test_bad_input_is_refused_and_nothing_is_written(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    before, head = env.file("DECISIONS.md"), env.orbital.head()
    with pytest.raises(TooLarge) as big:
        write(env, "DECISIONS.md", b"## x\n" + b"y" * (10 * 1024 * 1024))
    assert "over the 4,194,304-byte limit" in str(big.value)
    with pytest.raises(InvalidEncoding) as bad:
        write(env, "DECISIONS.md", b"## caf\xc3\n")
    assert bad.value.offset == 6
    with pytest.raises(UnsafePath):
        write(env, "../DECISIONS.md", DECISIONS)
    with pytest.raises(UnknownFile):
        write(env, "DECISIONS_ARCHIVE.md", DECISIONS)
    assert (env.file("DECISIONS.md"), env.orbital.head()) == (before, head)
    variant = write(env, "Decisions.MD", DECISIONS)  # same rules, same file
    assert variant.events == []
    assert sorted(p.name for p in env.memory.iterdir() if p.name.lower() == "decisions.md") == [
        "DECISIONS.md"
    ]


def test_a_file_without_entries_is_kept_as_is_with_a_warning(env: Env) -> None:
    outcome = write(env, "DECISIONS.md", "just some prose\nno markers\n")
    assert outcome.warnings == [
        "decisions: could not parse into entries (expected '^##\\s+' markers) — wrote as-is, "
        "metadata/caps not applied."
    ]
    assert env.file("DECISIONS.md").decode().endswith("just some prose\nno markers\n")


def test_a_user_line_in_project_state_becomes_an_ask(env: Env) -> None:
    outcome = write(
        env, "PROJECT_STATE.md", "- Plain fact.\n- [user due:2026-10-01] Approve the budget\n"
    )
    assert "Approve the budget" not in outcome.content
    (ask,) = env.orbital.asks(env.project)
    assert (ask.text, ask.due) == ("Approve the budget", "2026-10-01")
    assert any("ASKS.md" in w for w in outcome.warnings)
    again = write(
        env, "PROJECT_STATE.md", "- Plain fact.\n- [user due:2026-10-01] Approve the budget\n"
    )
    assert len(env.orbital.asks(env.project)) == 1
    assert any("already ask" in w for w in again.warnings)


def test_the_view_is_served_from_the_store_not_the_files(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    env.orbital.ask_open(env.project, "Choose the venue", actor=Actor.AGENT)
    view = env.orbital.context_view(env.project)
    for path in env.memory.iterdir():
        path.unlink()
    assert env.orbital.context_view(env.project) == view
    top = f"{NO_DESCRIPTION}\n\nToday is 2026-09-19 (Saturday); dates and times are in "
    assert view.startswith(top)
    asks = "Open asks (1):\n[" + env.orbital.asks(env.project)[0].id + "] Choose the venue"
    assert (
        view.index(asks)
        < view.index("\n\n[PROJECT_STATE.md]\n")
        < view.index("[DECISIONS.md]\n" + FORMAT_HEADERS["decisions"])
    )
    subagent = env.orbital.context_view(env.project, audience="subagent")
    assert subagent.startswith(top) and subagent.count("\n") == 2


def test_a_hand_edit_becomes_events_attributed_to_file(env: Env) -> None:
    write(env, "DECISIONS.md", DECISIONS)
    path = env.memory / "DECISIONS.md"
    path.write_text(path.read_text().replace("Reason: speed.", "Reason: speed and HMR."))
    write(env, "LESSONS.md", "1. Curl beats the browser for GitHub.\n")
    revised = [e for e in env.orbital.history(env.project) if e.type == "entry.revised"]
    assert [(e.stream, e.actor) for e in revised] == [("entry:adopt-vite-over-webpack", Actor.FILE)]
    assert "Reason: speed and HMR." in env.file("DECISIONS.md").decode()


@pytest.fixture
def small(store_url: str, tmp_path: Path) -> Iterator[Env]:
    """Character-estimate token counts (the reference's len/4) for exact budget arithmetic."""
    root = tmp_path / "p"
    clock = FixedClock(TODAY)
    with seeded_project(store_url, root, clock, seed=3, counter=est_tokens) as (service, project):
        yield Env(service, project, root)


def over_budget_decisions() -> str:
    return "".join(
        f"## Decision number {i}\nChose: option {i}.\nReason: {'because ' * 300}\n\n"
        for i in range(12)
    )


def test_session_end_demotes_to_the_archive_and_restore_is_byte_identical(small: Env) -> None:
    write(small, "DECISIONS.md", over_budget_decisions())
    before = small.file("DECISIONS.md")
    report = small.orbital.session_end(small.project)
    archived = [e.stream.split(":")[1] for e in report.events if e.type == "entry.archived"]
    assert archived[:2] == ["decision-number-3", "decision-number-4"]  # oldest 3 protected
    live = small.file("DECISIONS.md").decode()
    assert (
        "[archived 2026-09-19 id:decision-number-3] Decision number 3 → DECISIONS_ARCHIVE.md"
        in live
    )
    archive = small.file("DECISIONS_ARCHIVE.md").decode()
    assert archive.startswith("# DECISIONS_ARCHIVE.md (archived entries, read-on-demand)\n\n")
    assert "## Decision number 3 <!--mem id:decision-number-3" in archive
    assert "DECISIONS_ARCHIVE.md" in small.file("INDEX.md").decode()
    assert len(live) < len(before)
    for entry_id in archived:
        small.orbital.entry_action(small.project, entry_id, "restore", actor=Actor.USER)
    assert small.file("DECISIONS.md") == before


def test_pin_protects_and_bad_actions_are_refused(small: Env) -> None:
    write(small, "DECISIONS.md", over_budget_decisions())
    small.orbital.entry_action(small.project, "decision-number-3", "pin", actor=Actor.USER)
    assert "id:decision-number-3 created:2026-09-19 touched:2026-09-19 tag:pinned-->" in (
        small.file("DECISIONS.md").decode()
    )
    report = small.orbital.session_end(small.project)
    archived = [e.stream for e in report.events if e.type == "entry.archived"]
    assert "entry:decision-number-3" not in archived
    assert "entry:decision-number-4" in archived
    noop = small.orbital.entry_action(
        small.project, "decision-number-3", "restore", actor=Actor.USER
    )
    assert noop.events == []
    with pytest.raises(Refused) as archived_pin:
        small.orbital.entry_action(small.project, "decision-number-4", "pin", actor=Actor.USER)
    assert str(archived_pin.value) == (
        "entry 'decision-number-4' is archived: restore it before pinning or unpinning"
    )
    with pytest.raises(UnknownEntry):
        small.orbital.entry_action(small.project, "nope", "restore", actor=Actor.USER)
    live = small.orbital.memory_entries(small.project)
    removing = [r.id for r in live if r.status == "live"]
    small.orbital.write_file(
        small.project,
        "DECISIONS.md",
        b"## Only one left\nChose: x.\n",
        actor=Actor.AGENT,
        remove=removing,  # the others are retired, on purpose
    )
    restored = small.orbital.entry_action(
        small.project, "decision-number-0", "restore", actor=Actor.USER
    )
    assert [e.type for e in restored.events] == ["entry.restored"]
    assert "<!--mem id:decision-number-0 " in restored.content


def test_an_id_another_process_used_since_is_never_reused(env: Env, store_url: str) -> None:
    """The entry ids a process keeps between writes are checked against the entry head: an
    id another process took since (in another file) is not minted again."""
    write(env, "DECISIONS.md", "## Start\nChose: a.\n")  # keeps the ids it read
    other = Orbital.open(store_url)
    try:
        lesson = b"1. Ship weekly.\n"
        taken = other.write_file(env.project, "LESSONS.md", lesson, actor=Actor.AGENT)
    finally:
        other.close()
    assert [e.stream for e in taken.events if e.type == "entry.created"] == ["entry:ship-weekly"]
    outcome = write(env, "DECISIONS.md", "## Start\nChose: a.\n\n## Ship weekly\nChose: b.\n")
    assert "<!--mem id:ship-weekly-2 " in outcome.content
