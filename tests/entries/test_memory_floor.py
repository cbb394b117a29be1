"""Backstop floor, demotion and views — the reference's test_memory_floor.py (TODAY 2026-09-18)."""

from __future__ import annotations

from orbital.domain.backstop import demote_durable, floor_state, plan_backstop
from orbital.domain.line_trims import trim_index_lines
from orbital.domain.measure import measure_state
from orbital.events.entries import EntryArchived, EntryPointerDropped, EntryRestored
from orbital.events.files import FileLayoutSet
from orbital.grammar.render import render_archive
from orbital.grammar.state_blocks import parse_blocks
from projections.views import head_trim, state_view
from tests.entries.entry_helpers import TODAY, Memory, est


def _c(day: str, eid: str) -> str:
    return f"  <!--mem id:{eid} created:{day} touched:{day}-->\n"


def _state(text: str) -> Memory:
    mem = Memory("state")
    mem.write(text, TODAY)
    return mem


OLD_TEXT = (
    "oldest line that has been sitting here since July and is long enough to move, because "
    "its pointer line is much shorter than the whole of this bullet text"
)
THREE = (
    "- newest line, written yesterday\n"
    + _c("2026-09-17", "new001")
    + "- middle line from August\n"
    + _c("2026-08-01", "mid001")
    + f"- {OLD_TEXT}\n"
    + _c("2026-07-01", "old001")
)


def test_floor_leaves_a_fitting_file_alone() -> None:
    mem = _state(THREE)
    plan = floor_state(mem.state, TODAY, est, target=10_000)
    assert plan.events == () and plan.over_by == 0


def test_floor_never_cuts_inside_probation_even_far_over_target() -> None:
    mem = _state("".join(f"- young bullet {i}\n" + _c("2026-09-10", f"y0000{i}") for i in range(5)))
    plan = floor_state(mem.state, TODAY, est, target=10)
    assert plan.events == () and plan.over_by > 0


def test_floor_moves_oldest_first_and_leaves_id_pointers() -> None:
    mem = _state(THREE)
    plan = floor_state(mem.state, TODAY, est, target=measure_state(mem.state, est) - 5)
    assert [e.entry_id for e in plan.events if isinstance(e, EntryArchived)] == ["old001"]
    mem.apply(plan.events)
    assert f"[archived 2026-09-18 id:old001] {OLD_TEXT[:59].rstrip()}…" in mem.body
    assert mem.body.rstrip("\n").endswith("→ PROJECT_STATE_ARCHIVE.md")
    assert render_archive(mem.state).endswith(f"- {OLD_TEXT}\n" + _c("2026-07-01", "old001"))
    assert "- middle line from August" in mem.body and "- newest line" in mem.body


def test_floor_keeps_the_pointer_where_the_bullet_was() -> None:
    mem = _state(
        f"- {OLD_TEXT}\n" + _c("2026-07-01", "old001") + "- second\n" + _c("2026-09-17", "sec001")
    )
    mem.apply(floor_state(mem.state, TODAY, est, target=5).events)
    lines = mem.body.splitlines()
    assert lines[0].startswith("[archived 2026-09-18 id:old001] ")
    assert lines[1] == "- second"


def test_floor_removes_aged_pointers_without_re_archiving() -> None:
    pointer = "[archived 2026-08-01 id:gone01] long gone → PROJECT_STATE_ARCHIVE.md\n"
    mem = _state(pointer + "- fresh\n")
    plan = floor_state(mem.state, TODAY, est, target=1)
    assert [type(e) for e in plan.events] == [FileLayoutSet]
    mem.apply(plan.events)
    assert "long gone" not in mem.body and render_archive(mem.state) == ""


def test_floor_drops_the_pointer_of_an_entry_it_archived_long_ago() -> None:
    mem = _state(f"- {OLD_TEXT}\n" + _c("2026-06-01", "old001") + "- keep\n")
    mem.apply(floor_state(mem.state, TODAY, est, target=5).events)
    later = TODAY.replace(month=10, day=20)
    plan = floor_state(mem.state, later, est, target=1)
    assert plan.events == (EntryPointerDropped(entry_id="old001", date=later),)
    mem.apply(plan.events)
    assert "[archived" not in mem.body and OLD_TEXT in render_archive(mem.state)


def test_floor_never_touches_prose_headings_or_young_pointers() -> None:
    mem = _state(
        "## Heading\n" + "long prose " * 60 + "\n"
        "[archived 2026-09-15 id:young1] recent → PROJECT_STATE_ARCHIVE.md\n"
    )
    assert floor_state(mem.state, TODAY, est, target=1).events == ()


def test_floor_never_grows_the_file_with_a_longer_pointer() -> None:
    mem = _state("".join(f"- tiny {i}\n" + _c("2026-06-01", f"t0000{i}") for i in range(9)))
    assert floor_state(mem.state, TODAY, est, target=1).events == ()


def test_floor_ignores_unstamped_bullets() -> None:
    # Every top-level bullet is stamped on write; what stays unstamped are non-block bullets.
    mem = _state("* " + "long unstamped bullet " * 30 + "\n")
    assert mem.state.entries == {}
    assert floor_state(mem.state, TODAY, est, target=1).events == ()


def test_floor_moves_continuation_lines_with_their_bullet() -> None:
    nested = "  - nested sub-bullet " + "with plenty of words " * 5 + "\n"
    mem = _state("- old parent\n" + _c("2026-07-01", "par001") + nested * 2 + "- newer\n")
    mem.apply(floor_state(mem.state, TODAY, est, target=5).events)
    assert nested not in mem.body  # only the pointer's summary mentions it
    assert nested * 2 in render_archive(mem.state)
    assert "- newer" in mem.body


def test_replay_recent_booth_prep_survives_the_floor() -> None:
    mem = _state(
        "## Now\n"
        "- Adjust the demo script for the partner meeting with the new numbers, rehearse it "
        "twice with the sales team and send the final deck to everyone on Thursday morning\n"
        + _c("2026-08-02", "adj013")
        + "- Confirm the delivery of the conference display monitors with the vendor, including "
        "the cables, the stands and the spare remote controls for both of the booth screens\n"
        + _c("2026-08-03", "cdm001")
        + "- GOAI 展位准备, 海报、演示机、传单都要在周五前确认\n"
        + _c("2026-09-14", "booth1")
    )
    plan = floor_state(mem.state, TODAY, est, target=60)
    assert {e.entry_id for e in plan.events if isinstance(e, EntryArchived)} == {"adj013", "cdm001"}
    mem.apply(plan.events)
    archive = render_archive(mem.state)
    assert "GOAI 展位准备" in mem.body
    for eid in ("adj013", "cdm001"):
        assert f"id:{eid}]" in mem.body and f"id:{eid} " in archive


DEC = (
    "# DECISIONS\n\n"
    + "".join(
        f"## Foundation {i} <!--mem id:found{i} created:2026-01-01 touched:2026-01-01-->\nBase.\n\n"
        for i in range(1, 4)
    )
    + "## Cold one <!--mem id:cold created:2026-02-01 touched:2026-02-01-->\n"
    + "Chose: something nobody has looked at since February, long enough to archive.\n\n"
    + "[archived 2026-07-28] Old stance → DECISIONS_ARCHIVE.md\n\n"
    + "## Warm one <!--mem id:warm created:2026-09-01 touched:2026-09-01-->\nChose: recent.\n"
)


def test_demotion_leaves_id_pointers_and_keeps_existing_pointers() -> None:
    mem = Memory("decisions")
    mem.write(DEC)
    plan = demote_durable(mem.state, TODAY, est, target=measure_state(mem.state, est) - 12.5)
    assert [e.entry_id for e in plan.events if isinstance(e, EntryArchived)] == ["cold"]
    mem.apply(plan.events)
    assert "[archived 2026-09-18 id:cold] Cold one → DECISIONS_ARCHIVE.md\n" in mem.body
    assert "[archived 2026-07-28] Old stance → DECISIONS_ARCHIVE.md" in mem.body
    archive = render_archive(mem.state)
    assert "## Cold one <!--mem id:cold" in archive and "Old stance" not in archive
    assert "## Warm one" in mem.body and "## Foundation 1" in mem.body


def test_demotion_never_moves_text_that_is_not_an_entry() -> None:
    # Entries are always stamped here; id-less content can only be text around them.
    mem = Memory("decisions")
    mem.write("x" * 800 + "\n" + "".join(f"## E{i}\nbody {i}\n" for i in range(3)))
    plan = demote_durable(mem.state, TODAY, est, target=10)
    assert plan.events == () and plan.over_by > 0


def test_demotion_then_restore_is_byte_identical() -> None:
    mem = Memory("decisions")
    mem.write(DEC)
    before = mem.text
    plan = demote_durable(mem.state, TODAY, est, target=1)
    archived = [e.entry_id for e in plan.events if isinstance(e, EntryArchived)]
    assert archived == ["cold"]  # warm's body is shorter than its pointer would be
    mem.apply(plan.events)
    assert mem.text != before
    # a comment-stripped rewrite of the demoted file keeps the pointers' slots: no events
    stripped = mem.text.replace(" <!--mem id:found1 created:2026-01-01 touched:2026-01-01-->", "")
    assert mem.write(stripped).events == ()
    mem.apply([EntryRestored(entry_id=i, date=TODAY) for i in archived])
    assert mem.text == before
    assert render_archive(mem.state) == ""


def test_state_demotion_then_restore_is_byte_identical() -> None:
    mem = _state(THREE)
    before = mem.text
    mem.apply(floor_state(mem.state, TODAY, est, target=1).events)
    assert mem.text != before
    mem.apply([EntryRestored(entry_id="old001", date=TODAY)])
    assert mem.text == before


STATE_VIEW = (
    "## Now\n"
    + "".join(
        f"- old one {i} " + "padding " * 6 + "\n" + _c(f"2026-0{i}-01", f"old00{i}")
        for i in range(1, 5)
    )
    + "- NEWEST LINE\n"
    + _c("2026-09-18", "new001")
)


def test_state_view_hides_oldest_lines_first_and_strips_comments() -> None:
    view = state_view(STATE_VIEW, 60, est)
    assert "NEWEST LINE" in view and "old one 1" not in view
    assert "<!--mem" not in view and "omitted from this view" in view
    assert view == state_view(STATE_VIEW, 60, est)
    assert view.endswith(
        " older PROJECT_STATE line(s) omitted from this view — read orbital/PROJECT_STATE.md "
        "for the full text ...]\n"
    )


def test_state_view_everything_fits_shows_everything_without_comments() -> None:
    text = "## Now\n- a\n" + _c("2026-09-01", "aaaaaa") + "- b\n" + _c("2026-09-02", "bbbbbb")
    assert state_view(text, 2000, est) == "## Now\n- a\n- b\n"


INDEX20 = "".join(f"- src/file{i}.py — module number {i}\n" for i in range(20))


def test_the_index_trim_pins_archive_pointer_lines() -> None:
    text = INDEX20 + "- LESSONS_ARCHIVE.md — older lessons\n"
    out = trim_index_lines(text, 60, est)
    assert out is not None
    assert "- LESSONS_ARCHIVE.md — older lessons" in out and "file19.py" not in out


def test_the_head_trim_ends_with_its_note() -> None:
    assert head_trim(INDEX20, 20, est).endswith(
        "\n[... older content trimmed from this view — read the file on disk for the full text ...]"
    )


def test_hard_caps_state_floor_archives_with_ids_and_notes_when_protected() -> None:
    mem = _state(
        "- old "
        + "o" * 3000
        + "\n"
        + _c("2026-01-01", "old777")
        + "- young "
        + "y" * 9000
        + "\n"
        + _c("2026-09-18", "yng777")
    )
    plan = plan_backstop({"state": mem.state}, TODAY, est)
    mem.apply([e for e in plan.events if not (isinstance(e, FileLayoutSet) and e.file == "index")])
    assert "o" * 3000 not in mem.body
    assert "[archived " in mem.body and "id:old777" in mem.body and "y" * 9000 in mem.body
    archive = render_archive(mem.state)
    assert "## [trimmed 2026-09-18]" in archive and "o" * 3000 in archive and "id:old777" in archive
    assert any("younger than" in note for note in plan.notes)


def test_hard_caps_demotes_with_pointers_that_the_archive_resolves() -> None:
    mem = Memory("decisions")
    mem.write("".join(f"## Decision {i}\n" + f"word{i} " * 1500 + "\n" for i in range(5)))
    plan = plan_backstop({"decisions": mem.state}, TODAY, est)
    mem.apply([e for e in plan.events if not (isinstance(e, FileLayoutSet) and e.file == "index")])
    archive = render_archive(mem.state)
    pointers = [line for line in mem.body.splitlines() if line.startswith("[archived")]
    assert pointers
    for line in pointers:
        eid = line.split("id:")[1].split("]")[0]
        assert f"id:{eid} " in archive
    assert len(parse_blocks("")) == 0
