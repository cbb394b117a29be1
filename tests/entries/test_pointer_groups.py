"""Short entries leave the live file in groups under one pointer line; a restore keeps the
rest of a group findable (issue 13 items 9 and 10: the backstop and the view)."""

from __future__ import annotations

import re

from orbital.domain.backstop import demote_durable, plan_backstop
from orbital.domain.entry_actions import decide_entry_action
from orbital.domain.measure import measure_state, measure_text
from orbital.events.entries import EntryArchived, EntryPointerSet, EntryRestored
from orbital.events.files import FileLayoutSet
from orbital.grammar.pointers import pointer_ids
from orbital.grammar.render import render_archive
from projections.views import durable_note, file_view
from tests.entries.entry_helpers import TODAY, Memory, est

#: One-line lessons: each is shorter than a pointer line naming it alone.
SHORT = "".join(f"{i}. Check L{i}\n" for i in range(1, 31))
#: Enough cut off SHORT for two groups: twenty entries, then four.
CUT = 380
GROUP_24 = (
    "[archived 2026-09-18] 4 LESSONS entries: Check L24; Check L25; Check L26; Check L27 "
    "→ LESSONS_ARCHIVE.md <!--ids check-l24 check-l25 check-l26 check-l27-->"
)


def _demoted(target_cut: float = CUT) -> Memory:
    mem = Memory("lessons")
    mem.write(SHORT)
    plan = demote_durable(mem.state, TODAY, est, target=measure_state(mem.state, est) - target_cut)
    mem.apply(plan.events)
    return mem


def _live_pointer_ids(mem: Memory) -> set[str]:
    return {i for line in mem.body.splitlines() for i in pointer_ids(line)}


def test_short_entries_move_in_groups_under_one_pointer_line() -> None:
    mem = Memory("lessons")
    mem.write(SHORT)
    before = measure_state(mem.state, est)
    plan = demote_durable(mem.state, TODAY, est, target=before - CUT)
    archived = [e for e in plan.events if isinstance(e, EntryArchived)]
    assert [e.entry_id for e in archived] == [f"check-l{i}" for i in range(4, 28)]
    assert [bool(e.pointer) for e in archived] == [True] + [False] * 19 + [True] + [False] * 3
    mem.apply(plan.events)
    assert measure_state(mem.state, est) <= before - CUT
    lines = mem.body.splitlines()
    assert lines[:3] == [
        f"{i}. Check L{i} <!--mem id:check-l{i} created:2026-09-18 touched:2026-09-18-->"
        for i in range(1, 4)
    ]
    ids = " ".join(f"check-l{i}" for i in range(4, 24))
    assert lines[3] == (
        "[archived 2026-09-18] 20 LESSONS entries: Check L4; Check L5; Check L6; Check L7; "
        f"Check L8; Check L9;… → LESSONS_ARCHIVE.md <!--ids {ids}-->"
    )
    assert lines[4] == GROUP_24
    assert lines[5].startswith("4. Check L28 <!--mem id:check-l28 ")  # renumbered, kept
    archive = render_archive(mem.state)
    for i in range(4, 28):
        assert f"Check L{i} <!--mem id:check-l{i} " in archive


def test_a_rewrite_of_the_grouped_file_appends_nothing() -> None:
    mem = _demoted()
    assert mem.write(mem.text).events == ()
    stripped = mem.text.replace(" <!--mem id:check-l1 created:2026-09-18 touched:2026-09-18-->", "")
    assert mem.write(stripped).events == ()


def test_a_group_line_costs_its_visible_words_only() -> None:
    mem = _demoted()
    assert "<!--ids check-l4 check-l5 " in mem.body  # every id is in the file
    visible = re.sub(r" <!--ids [^>]*-->", "", mem.body)
    assert measure_state(mem.state, est) == est(visible)
    assert measure_text(mem.text, "lessons", est) == est(visible)


def test_a_group_line_whose_id_comment_was_stripped_is_still_its_pointer() -> None:
    mem = _demoted()
    before = mem.text
    stripped = re.sub(r" <!--ids [^>]*-->", "", before)
    assert stripped != before
    assert mem.write(stripped).events == ()
    assert mem.text == before


WITHOUT_25 = (
    "[archived 2026-09-18] 3 LESSONS entries: Check L24; Check L26; Check L27 "
    "→ LESSONS_ARCHIVE.md <!--ids check-l24 check-l26 check-l27-->"
)
WITHOUT_24 = (
    "[archived 2026-09-18] 3 LESSONS entries: Check L25; Check L26; Check L27 "
    "→ LESSONS_ARCHIVE.md <!--ids check-l25 check-l26 check-l27-->"
)


def test_restoring_a_member_rewrites_the_line_to_name_the_rest() -> None:
    mem = _demoted()
    events = decide_entry_action({"lessons": mem.state}, "check-l25", "restore", TODAY)
    assert events == [
        EntryRestored(entry_id="check-l25", date=TODAY),
        EntryPointerSet(
            entry_id="check-l24",
            pointer=WITHOUT_25,
        ),
    ]
    mem.apply(events)
    lines = mem.body.splitlines()
    assert lines[4] == WITHOUT_25
    assert lines[5].startswith("4. Check L25 <!--mem id:check-l25 ")  # beside its old line


def test_restoring_the_head_hands_the_line_to_the_next_member() -> None:
    mem = _demoted()
    events = decide_entry_action({"lessons": mem.state}, "check-l24", "restore", TODAY)
    assert events == [
        EntryRestored(entry_id="check-l24", date=TODAY),
        EntryPointerSet(
            entry_id="check-l25",
            pointer=WITHOUT_24,
        ),
    ]
    mem.apply(events)
    lines = mem.body.splitlines()
    assert lines[4].startswith("4. Check L24 <!--mem id:check-l24 ")
    assert lines[5] == WITHOUT_24
    still_archived = {i for i, e in mem.state.entries.items() if e.status == "archived"}
    assert _live_pointer_ids(mem) == still_archived  # every archived entry is named live


def test_the_head_of_a_group_whose_line_was_deleted_still_leaves_a_line_for_the_rest() -> None:
    mem = _demoted()
    without = "\n".join(
        line for line in mem.text.splitlines() if "<!--ids check-l24 " not in line
    )  # the agent drops the second group's line
    mem.write(without + "\n")
    events = decide_entry_action({"lessons": mem.state}, "check-l24", "restore", TODAY)
    assert isinstance(events[-1], FileLayoutSet)
    mem.apply(events)
    tail = mem.body.splitlines()[-2:]
    assert tail[0].startswith("7. Check L24 <!--mem id:check-l24 ")  # at the end: slot gone
    assert tail[1] == WITHOUT_24


def test_pasting_a_head_back_keeps_the_rest_of_its_group_findable() -> None:
    mem = _demoted()
    archive = render_archive(mem.state)
    pasted = next(line for line in archive.splitlines() if "id:check-l4 " in line)
    text = mem.text.replace(
        next(line for line in mem.text.splitlines() if "<!--ids check-l4 " in line),
        pasted,
    )
    mem.write(text)
    assert mem.state.entries["check-l4"].status == "live"
    still_archived = {i for i, e in mem.state.entries.items() if e.status == "archived"}
    assert _live_pointer_ids(mem) == still_archived


def test_restoring_every_member_is_byte_identical() -> None:
    mem = Memory("lessons")
    mem.write(SHORT)
    before = mem.text
    mem.apply(demote_durable(mem.state, TODAY, est, target=300).events)
    archived = [i for i, e in mem.state.entries.items() if e.status == "archived"]
    assert len(archived) > 10
    for entry_id in archived:
        mem.apply(decide_entry_action({"lessons": mem.state}, entry_id, "restore", TODAY))
    assert mem.text == before
    assert render_archive(mem.state) == ""


def test_a_file_of_protected_entries_says_why_it_stays_over_budget() -> None:
    mem = Memory("lessons")
    mem.write("".join(f"{i}. Lesson {i} " + "word " * 4000 + "\n" for i in range(1, 4)))
    plan = plan_backstop({"lessons": mem.state}, TODAY, est)
    assert plan.events == ()
    assert plan.notes == (
        "LESSONS.md stays over its soft budget: 15,072 of 5,000 tok after session-end; "
        "3 protected entries (the oldest 3 and pinned) take 15,072 tok, 0 archive pointer "
        "lines 0 tok, text outside entries 0 tok; leaving it (over budget beats losing "
        "entries)",
    )


def test_the_view_shows_pointers_as_one_line_counted_in_the_budget() -> None:
    mem = _demoted()
    view = file_view("lessons", mem.body, 10_000, est)
    assert "[archived" not in view
    assert view.endswith(
        "\n\n[24 LESSONS entries archived in orbital/LESSONS_ARCHIVE.md (ids check-l4, "
        "check-l5, check-l6, check-l7, check-l8, check-l9, check-l10, check-l11 and 16 more) "
        "— read it on demand]\n"
    )
    assert all(f"Check L{i} " in view for i in (1, 2, 3, *range(28, 31)))
    small = file_view("lessons", mem.body, 150, est)
    assert durable_note("lessons", 1) in small  # the reference leaves that note uncounted
    assert est(small) - est(durable_note("lessons", 1)) <= 150
    assert small.endswith("and 16 more) — read it on demand]\n")
