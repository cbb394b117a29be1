"""Whole-file writes decided against the version they were based on (issue 12 item 1), writes
that would empty a file refused (issue 13 item 1), merges by line inside an entry (issue 13
item 3) and Keep mine on a stale conflict copy (issue 13 item 2)."""

from __future__ import annotations

from typing import Any

import pytest

from orbital.errors import MassRemoval, StaleWrite
from orbital.events import Actor
from orbital.service import WriteOutcome
from tests.service.conftest import Env

DECISIONS = (
    "## Use Postgres for storage\nChose: PostgreSQL.\nReason: teams.\n\n"
    "## Adopt Vite over Webpack\nChose: Vite.\nReason: speed.\nRejected: Webpack.\n"
)


def write(
    env: Env, text: str, *, base: int | None = None, remove: tuple[str, ...] = ()
) -> WriteOutcome:
    given: dict[str, Any] = {"base": base} if base is not None else {}
    given |= {"remove": remove} if remove else {}
    return env.orbital.write_file(
        env.project, "DECISIONS.md", text.encode(), actor=Actor.AGENT, **given
    )


def live(env: Env) -> list[str]:
    return [r.id for r in env.orbital.memory_entries(env.project) if r.status == "live"]


def statuses(env: Env) -> dict[str, str]:
    return {r.id: r.status for r in env.orbital.memory_entries(env.project)}


# -- issue 12 item 1: no lost update between writers ---------------------------------------


def test_a_write_from_a_stale_read_keeps_what_was_written_since(env: Env) -> None:
    write(env, DECISIONS)
    read, version = env.orbital.read_versioned(env.project, "DECISIONS.md")
    write(env, read + "\n## Ship on Fridays\nChose: yes.\n")  # another writer, meanwhile
    mine = write(env, read + "\n## Keep a changelog\nChose: yes.\n", base=version)
    assert live(env) == [
        "use-postgres-for-storage",
        "adopt-vite-over-webpack",
        "ship-on-fridays",
        "keep-a-changelog",
    ]
    assert [e.type for e in mine.events] == ["entry.created", "file.layout_set"]
    assert mine.version == env.orbital.read_versioned(env.project, "DECISIONS.md")[1]


def test_a_stale_write_without_a_base_is_decided_against_the_version_it_resembles(
    env: Env,
) -> None:
    write(env, DECISIONS)
    read = (env.memory / "DECISIONS.md").read_text()
    write(env, read + "\n## Ship on Fridays\nChose: yes, before noon.\n")
    write(env, read + "\n## Keep a changelog\nChose: one file at the root.\n")  # no base
    assert "ship-on-fridays" in live(env)
    assert "keep-a-changelog" in live(env)


def test_a_stale_write_changing_what_changed_since_is_refused_and_changes_nothing(
    env: Env,
) -> None:
    write(env, DECISIONS)
    read, version = env.orbital.read_versioned(env.project, "DECISIONS.md")
    write(env, read.replace("Reason: speed.", "Reason: build speed."))
    before, head = env.file("DECISIONS.md"), env.orbital.head()
    with pytest.raises(StaleWrite) as refused:
        write(env, read.replace("Reason: speed.", "Reason: dev speed."), base=version)
    assert str(refused.value) == (
        f"DECISIONS.md changed since the version this write is based on (position {version}) "
        "in what the write changes too: adopt-vite-over-webpack; nothing was written. Read "
        "the file again and redo the change on it"
    )
    assert env.file("DECISIONS.md") == before
    assert env.orbital.head() == head


def test_a_stale_write_removing_an_entry_nobody_changed_since_removes_it(env: Env) -> None:
    write(env, DECISIONS + "\n## Ship on Fridays\nChose: yes.\n")
    read, version = env.orbital.read_versioned(env.project, "DECISIONS.md")
    write(env, read + "\n## Keep a changelog\nChose: yes.\n")
    fridays = read.index("## Ship on Fridays")
    write(env, read[:fridays].rstrip() + "\n", base=version)
    assert statuses(env)["ship-on-fridays"] == "retired"
    assert live(env) == ["use-postgres-for-storage", "adopt-vite-over-webpack", "keep-a-changelog"]


# -- issue 13 item 1: an empty write (or most of a file) is refused -------------------------


def version(env: Env) -> int:
    return env.orbital.read_versioned(env.project, "DECISIONS.md")[1]


def test_an_empty_write_is_refused_file_byte_identical_and_no_event(env: Env) -> None:
    write(env, DECISIONS)
    before, head = env.file("DECISIONS.md"), env.orbital.head()
    with pytest.raises(MassRemoval) as refused:
        write(env, "", base=version(env))
    assert str(refused.value) == (
        "DECISIONS.md: this write would remove 2 of its 2 entries (use-postgres-for-storage, "
        "adopt-vite-over-webpack); nothing was changed. Send the whole file back with your "
        "change: entries missing from a write are removed. To remove entries on purpose, "
        "name each one in the write's `remove` list, or remove a few at a time"
    )
    assert env.file("DECISIONS.md") == before
    assert env.orbital.head() == head


def many(n: int) -> str:
    return "".join(f"## Decision {i}\nChose: {i}.\n\n" for i in range(n))


def test_a_write_with_only_the_part_it_changed_is_refused(env: Env) -> None:
    write(env, many(10))
    before = env.file("DECISIONS.md")
    with pytest.raises(MassRemoval, match="would remove 8 of its 10 entries"):
        write(env, "## Decision 3\nChose: three.\n\n## Decision 4\nChose: 4.\n", base=version(env))
    assert env.file("DECISIONS.md") == before


def test_a_smaller_removal_goes_through_and_is_listed(env: Env) -> None:
    write(env, many(10))
    kept = (
        many(10)
        .replace("## Decision 3\nChose: 3.\n\n", "")
        .replace("## Decision 7\nChose: 7.\n\n", "")
    )
    outcome = write(env, kept, base=version(env))
    assert outcome.warnings[-1] == (
        "DECISIONS.md: 2 entries the new text no longer has were removed from the file "
        "(decision-3, decision-7); their text stays in the history (orbital history --file "
        "DECISIONS.md) and `orbital restore ID` brings one back."
    )


def test_removals_named_on_purpose_go_through(env: Env) -> None:
    write(env, DECISIONS)
    names = ("use-postgres-for-storage", "adopt-vite-over-webpack")
    write(env, "", remove=names)
    assert live(env) == []


# -- issue 13 item 3: a merge by line inside one entry ------------------------------------


def test_a_hand_edit_and_a_write_changing_different_lines_of_one_entry_merge(env: Env) -> None:
    write(env, DECISIONS)
    opened = (env.memory / "DECISIONS.md").read_text()
    write(env, opened.replace("Rejected: Webpack.", "Rejected: Webpack, Parcel."))
    (env.memory / "DECISIONS.md").write_text(opened.replace("Chose: Vite.", "Chose: Vite 6."))
    report = env.orbital.sync(env.project)
    assert report.conflicts == []
    text = (env.memory / "DECISIONS.md").read_text()
    assert "Chose: Vite 6.\nReason: speed.\nRejected: Webpack, Parcel.\n" in text


def test_adjacent_lines_changed_by_each_side_merge_too(env: Env) -> None:
    write(env, DECISIONS)
    opened = (env.memory / "DECISIONS.md").read_text()
    write(env, opened.replace("Reason: speed.", "Reason: build speed."))
    (env.memory / "DECISIONS.md").write_text(opened.replace("Chose: Vite.", "Chose: Vite 6."))
    assert env.orbital.sync(env.project).conflicts == []
    assert "Chose: Vite 6.\nReason: build speed.\n" in (env.memory / "DECISIONS.md").read_text()


def test_one_clashing_entry_keeps_a_copy_and_takes_in_the_rest(env: Env) -> None:
    write(env, DECISIONS)
    opened = (env.memory / "DECISIONS.md").read_text()
    write(env, opened.replace("Reason: speed.", "Reason: build speed."))
    mine = opened.replace("Reason: speed.", "Reason: dev speed.").replace(
        "Reason: teams.", "Reason: teams know it."
    )
    (env.memory / "DECISIONS.md").write_text(mine)
    report = env.orbital.sync(env.project)
    (copy,) = report.conflicts
    assert (env.memory / copy).read_text() == mine
    text = (env.memory / "DECISIONS.md").read_text()
    assert "Reason: teams know it." in text  # did not clash: taken in
    assert "Reason: build speed." in text  # the clash: the store's text stays


# -- issue 13 item 2: Keep mine applies the person's own changes ------------------------------


def stale_copy(env: Env) -> tuple[str, str]:
    """A conflict copy of DECISIONS.md; three entries are written after it. Returns the
    copy's name and the person's text."""
    write(env, DECISIONS)
    opened = (env.memory / "DECISIONS.md").read_text()
    write(env, opened.replace("Reason: speed.", "Reason: build speed."))
    mine = opened.replace("Reason: speed.", "Reason: dev speed.")
    (env.memory / "DECISIONS.md").write_text(mine)
    (copy,) = env.orbital.sync(env.project).conflicts
    now = (env.memory / "DECISIONS.md").read_text()
    for title in ("One", "Two", "Three"):
        now = write(env, now + f"\n## {title}\nChose: {title}.\n").content
    return copy, mine


def test_keep_mine_on_a_stale_copy_applies_only_the_persons_change(env: Env) -> None:
    copy, _ = stale_copy(env)
    outcome = env.orbital.resolve_conflict(env.project, copy, "mine", actor=Actor.USER)
    assert live(env) == [
        "use-postgres-for-storage",
        "adopt-vite-over-webpack",
        "one",
        "two",
        "three",
    ]
    assert "Reason: dev speed." in outcome.content
    assert [e.type for e in outcome.events] == ["entry.revised"]


def test_the_workbench_preview_shows_what_each_choice_does(env: Env) -> None:
    copy, _ = stale_copy(env)
    head = env.orbital.head()
    preview = env.orbital.preview_conflict(env.project, copy, actor=Actor.USER)
    mine = [line for line in preview.keep_mine.splitlines() if line[:1] in "+-"]
    assert mine == [
        "--- DECISIONS.md (today)",
        "+++ DECISIONS.md (keep mine)",
        "-Reason: build speed.",
        "+Reason: dev speed.",
    ]
    orbital = [line for line in preview.keep_orbital.splitlines() if line[:1] in "+-"]
    assert "-Reason: dev speed." in orbital and "+Reason: build speed." in orbital
    assert "+## Three <!--mem id:three created:2026-09-19 touched:2026-09-19-->" in orbital
    assert env.orbital.head() == head  # nothing written
    assert env.orbital.conflicts(env.project)[0].copy == copy


def test_a_retired_entry_is_restored_like_an_archived_one(env: Env) -> None:
    write(env, DECISIONS + "\n## Ship on Fridays\nChose: yes.\n")
    write(env, DECISIONS, base=version(env))
    assert statuses(env)["ship-on-fridays"] == "retired"
    restored = env.orbital.entry_action(env.project, "ship-on-fridays", "restore", actor=Actor.USER)
    assert [e.type for e in restored.events] == ["entry.restored"]
    assert live(env)[-1] == "ship-on-fridays"


# -- issue 33 finding 1: a write without a base retires only what it names -----------------


def kept(ids: str, them: str = "these") -> str:
    return (
        f"DECISIONS.md: kept {ids}: left out of this write, but a write that does not say "
        "which version it was made from (--base, If-Match, base) removes only the entries it "
        f"names, and {them} may have been written after your read. To remove them, write "
        "again with the version you read, or name them (--remove, remove)."
    )


def test_without_a_base_an_entry_left_out_stays_and_the_writer_is_told(env: Env) -> None:
    write(env, DECISIONS)
    read = (env.memory / "DECISIONS.md").read_text()
    write(env, read + "\n## Ship on Fridays\nChose: yes, before noon.\n")
    outcome = write(env, read.replace("Reason: teams.", "Reason: the team knows it."))
    assert "ship-on-fridays" in live(env)
    assert "Reason: the team knows it." in env.file("DECISIONS.md").decode()
    assert outcome.warnings == [kept("ship-on-fridays", "this one")]
    newest, version = env.orbital.read_versioned(env.project, "DECISIONS.md")
    write(env, newest.split("\n## Ship")[0] + "\n", base=version)
    assert statuses(env)["ship-on-fridays"] == "retired"


def test_without_a_base_even_an_entry_the_writer_saw_stays_unless_named(env: Env) -> None:
    write(env, many(4))
    four = (env.memory / "DECISIONS.md").read_text()
    without = four.split("## Decision 2")[0].rstrip() + "\n"  # 2 and 3 cut off
    before = env.file("DECISIONS.md")
    outcome = write(env, without)
    assert live(env) == ["decision-0", "decision-1", "decision-2", "decision-3"]
    assert outcome.warnings == [kept("decision-2, decision-3")]
    assert env.file("DECISIONS.md") == before
    write(env, without, remove=("decision-3",))
    assert statuses(env)["decision-3"] == "retired"
    assert statuses(env)["decision-2"] == "live"


def test_without_a_base_an_empty_write_changes_nothing(env: Env) -> None:
    write(env, DECISIONS)
    before, head = env.file("DECISIONS.md"), env.orbital.head()
    outcome = write(env, "")
    assert outcome.warnings == [kept("use-postgres-for-storage, adopt-vite-over-webpack")]
    assert (env.file("DECISIONS.md"), env.orbital.head()) == (before, head)


def test_without_a_base_a_writer_that_read_the_empty_file_keeps_what_came_since(
    env: Env,
) -> None:
    read = (env.memory / "DECISIONS.md").read_text()  # no entry yet
    write(env, read + "\n## Ship on Fridays\nChose: yes.\n")  # another writer, meanwhile
    outcome = write(env, read + "\n## Keep a changelog\nChose: one file.\n")
    assert live(env) == ["ship-on-fridays", "keep-a-changelog"]
    assert outcome.warnings == [kept("ship-on-fridays", "this one")]
