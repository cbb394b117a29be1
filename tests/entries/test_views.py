"""Injection views (§4): durable views, window scaling and the assembled memory block."""

from __future__ import annotations

from orbital.catalogue import FILE_BUDGETS
from orbital.domain.budgets import budgets_for_window
from projections.view_order import (
    NO_DESCRIPTION,
    ViewParts,
    assemble,
    head,
    head_cost,
    today_line,
)
from projections.views import durable_view, file_view, frame_cost
from tests.entries.entry_helpers import TODAY, Memory, est

ENTRY = "## Decision {i}\n" + "Chose: option {i}. " * 20 + "\n\n"


def _decisions(n: int) -> str:
    return "# DECISIONS\n\n" + "".join(ENTRY.format(i=i) for i in range(n))


def test_budgets_for_window() -> None:
    small = budgets_for_window(40_000)
    assert (small["decisions"].soft, small["decisions"].hard) == (3684, 4736)
    assert (small["lessons"].soft, small["lessons"].hard) == (2631, 3157)
    assert (small["state"].soft, small["state"].hard) == (947, 1052)
    assert (small["index"].soft, small["index"].hard) == (789, 1052)
    edge = budgets_for_window(75_999)
    assert [(b.soft, b.hard) for b in edge.values()] == [
        (6999, 8999),
        (4999, 5999),
        (1799, 1999),
        (1499, 1999),
    ]
    assert budgets_for_window(76_000) == FILE_BUDGETS == budgets_for_window(None)
    assert budgets_for_window(0) == FILE_BUDGETS


def test_durable_view_keeps_oldest_three_and_newest_that_fit() -> None:
    text = _decisions(12)
    entry_cost = est(ENTRY.format(i=5))
    hard = est("# DECISIONS\n\n") + 5 * entry_cost + 20
    view = durable_view(text, "decisions", hard, est)
    assert view.startswith("# DECISIONS\n\n## Decision 0\n")
    assert (
        "\n[... 7 older DECISIONS entries omitted from this view — read orbital/DECISIONS.md "
        "(and its archive, listed in INDEX.md) for the full set ...]\n\n## Decision 10\n"
    ) in view
    assert "## Decision 3\n" not in view and view.endswith(ENTRY.format(i=11))


def test_views_return_the_input_itself_when_nothing_is_omitted() -> None:
    text = _decisions(5)
    assert durable_view(text, "decisions", 10_000, est) is text
    assert file_view("index", text, 10_000, est) is text


def test_large_and_small_windows_differ_only_by_the_budget_rules() -> None:
    mem = Memory("decisions")
    mem.write(_decisions(60))
    parts = ViewParts(TODAY, "UTC", description="d", files={"decisions": mem.text})
    large = assemble(parts, est, window=1_000_000)
    small = assemble(parts, est, window=32_000)
    top = f"[Project description]\nd\n\n{today_line(TODAY, 'UTC')}"
    assert large == f"{top}\n\n[DECISIONS.md]\n{mem.text}"
    reserved = head_cost(head(parts), est) + frame_cost("DECISIONS.md", est)
    hard = budgets_for_window(32_000, reserved=reserved)["decisions"].hard
    assert small == f"{top}\n\n[DECISIONS.md]\n" + durable_view(mem.text, "decisions", hard, est)
    assert small != large and "older DECISIONS entries omitted" in small


def test_assembly_order_asks_block_and_subagent() -> None:
    files = {
        "index": "idx\n",
        "lessons": "",
        "decisions": "## D\nx\n",
        "state": "- s\n  <!--mem id:aaaaaa created:2026-09-01 touched:2026-09-01-->\n",
    }
    parts = ViewParts(
        TODAY,
        "UTC",
        asks_block="Open asks: none (orbital/ASKS.md)",
        dropped_line="- dropped: x",
        files=files,
    )
    assert assemble(parts, est) == (
        f"{NO_DESCRIPTION}\n\nToday is 2026-09-18 (Friday); dates and times are in UTC.\n\n"
        "Open asks: none (orbital/ASKS.md)\n\n[PROJECT_STATE.md]\n- s\n\n\n"
        "[DECISIONS.md]\n## D\nx\n\n\n[INDEX.md]\nidx\n"
    )
    sub = assemble(parts, est, audience="subagent")
    assert sub == (
        f"{NO_DESCRIPTION}\n\nToday is 2026-09-18 (Friday); dates and times are in UTC.\n\n"
        "- dropped: x"
    )
