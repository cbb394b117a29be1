"""Overflow behaviour of every Layer-1 file — the reference's test_layer1_lifecycle.py."""

from __future__ import annotations

import pytest

from orbital.catalogue import ARCHIVE_OF, FILE_BUDGETS, FILE_NAMES, LAYER1_KEYS
from orbital.domain.backstop import floor_state, plan_backstop
from orbital.domain.budgets import consolidation_target
from orbital.domain.line_trims import trim_index_lines
from orbital.domain.measure import budget_text, measure_text
from orbital.events.files import FileLayoutSet
from orbital.grammar.memory_files import FORMAT_HEADERS
from orbital.grammar.render import render_archive, render_body
from tests.entries.entry_helpers import TODAY, Memory, est


def test_recent_briefing_and_its_questions_survive_the_floor() -> None:
    mem = Memory("state")
    mem.write("## Briefing\n" + "".join(f"- question {i} for the briefing\n" for i in range(8)))
    plan = floor_state(mem.state, TODAY, est, target=5)
    assert plan.events == () and plan.over_by > 0


def test_prose_and_headings_are_never_floor_candidates() -> None:
    mem = Memory("state")
    mem.write("".join(f"prose line {i}\n" for i in range(400)))
    assert floor_state(mem.state, TODAY, est, target=5).events == ()


def test_state_has_an_archive_destination() -> None:
    assert ARCHIVE_OF["state"] == "state_archive"
    assert FILE_NAMES["state_archive"] == "PROJECT_STATE_ARCHIVE.md"


def test_archives_are_layer2_never_injected() -> None:
    assert all(archive not in FILE_BUDGETS for archive in ARCHIVE_OF.values())
    assert all(archive not in LAYER1_KEYS for archive in ARCHIVE_OF.values())


def _sentinel_state() -> Memory:
    mem = Memory("state")
    mem.write(
        "- SENTINEL oldest bullet that must end up in the archive, not deleted, with its id "
        "kept in a pointer line in the live file so it can be found again later\n"
        "  <!--mem id:dm0001 created:2025-12-01 touched:2025-12-01-->\n"
        + "".join(
            f"- old bullet {i} " + "x" * 600 + f"\n  <!--mem id:ob{i:04d} created:2026-01-0"
            f"{1 + i % 9} touched:2026-01-01-->\n"
            for i in range(20)
        )
    )
    return mem


def test_state_overflow_moves_old_bullets_to_archive_instead_of_deleting() -> None:
    mem = _sentinel_state()
    plan = plan_backstop({"state": mem.state}, TODAY, est)
    mem.apply([e for e in plan.events if not (isinstance(e, FileLayoutSet) and e.file == "index")])
    assert "with its id kept in a pointer line" not in mem.body
    assert "id:dm0001]" in mem.body
    assert "SENTINEL oldest bullet that must end up in the archive" in render_archive(mem.state)


def test_state_archive_gets_an_index_pointer() -> None:
    mem = _sentinel_state()
    index = Memory("index")
    index.write("## Code\n- src/app.py — entry point\n")
    plan = plan_backstop({"state": mem.state, "index": index.state}, TODAY, est)
    index.apply([e for e in plan.events if isinstance(e, FileLayoutSet) and e.file == "index"])
    assert render_body(index.state) == (
        "## Code\n- src/app.py — entry point\n\n"
        "- PROJECT_STATE_ARCHIVE.md — older entries demoted from the live file (read on demand).\n"
    )
    assert plan_backstop({"index": index.state}, TODAY, est).events == ()


INDEX300 = "".join(f"- src/module_{i:03d}.py — module {i}\n" for i in range(300))


def test_archive_pointers_survive_a_tail_dropping_trim() -> None:
    text = INDEX300 + "- DECISIONS_ARCHIVE.md — old decisions\n- LESSONS_ARCHIVE.md — old lessons\n"
    out = trim_index_lines(text, 100, est)
    assert out is not None and len(out) < len(text)
    assert "DECISIONS_ARCHIVE.md" in out and "LESSONS_ARCHIVE.md" in out


def test_pointer_pinning_does_not_protect_ordinary_lines() -> None:
    out = trim_index_lines(INDEX300 + "- LESSONS_ARCHIVE.md — old lessons\n", 50, est)
    assert out is not None and "module_299" not in out and "module_000" in out


def test_index_backstop_keeps_history_not_a_view_note() -> None:
    index = Memory("index")
    index.write(INDEX300 * 3 + "- LESSONS_ARCHIVE.md — old lessons\n")
    plan = plan_backstop({"index": index.state}, TODAY, est)
    index.apply(plan.events)
    body = render_body(index.state)
    assert est(body) <= consolidation_target("index")
    assert "LESSONS_ARCHIVE.md" in body and "trimmed from this view" not in body
    layouts = [e for e in index.events if isinstance(e, FileLayoutSet)]
    assert "module_299" in layouts[0].slots[0].text  # the cut lines stay in history


@pytest.mark.parametrize("key", LAYER1_KEYS)
def test_every_layer1_file_has_a_defined_overflow_behaviour(key: str) -> None:
    assert key in FILE_BUDGETS
    assert consolidation_target(key) < FILE_BUDGETS[key].soft
    if key == "index":
        assert key not in ARCHIVE_OF
    else:
        assert ARCHIVE_OF[key] in FILE_NAMES


@pytest.mark.parametrize("key", LAYER1_KEYS)
def test_format_header_does_not_consume_the_files_budget(key: str) -> None:
    body = "- some content line\n" * 10
    with_header = FORMAT_HEADERS[key] + "\n" + body
    assert abs(measure_text(with_header, key, est) - measure_text(body, key, est)) <= 1


def test_header_exclusion_is_worth_a_real_headroom_gain() -> None:
    head = FORMAT_HEADERS["state"]
    target = consolidation_target("state")
    assert target == 1080
    assert est(head) > 200 and est(head) > 0.2 * target
    assert measure_text(head + "\n" + "- content line\n" * 50, "state", est) < target


def test_mem_comments_are_still_excluded_for_state() -> None:
    text = "- a\n  <!--mem id:c0ffee created:2026-09-01 touched:2026-09-01-->\n"
    assert "c0ffee" not in budget_text(text, "state")
