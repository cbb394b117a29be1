"""Injection views (§4): durable views, window scaling and the assembled memory block."""

from __future__ import annotations

from orbital.catalogue import FILE_BUDGETS
from orbital.domain.budgets import budgets_for_window
from orbital.domain.views import assemble_view, durable_view, file_view
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
    files = {"decisions": mem.text}
    large = assemble_view(files, TODAY, est, window=1_000_000)
    small = assemble_view(files, TODAY, est, window=32_000)
    assert large == f"Today is 2026-09-18.\n\n[DECISIONS.md]\n{mem.text}"
    hard = budgets_for_window(32_000)["decisions"].hard
    assert small == (
        "Today is 2026-09-18.\n\n[DECISIONS.md]\n" + durable_view(mem.text, "decisions", hard, est)
    )
    assert small != large and "older DECISIONS entries omitted" in small


def test_assembly_order_asks_block_and_subagent() -> None:
    files = {
        "index": "idx\n",
        "lessons": "",
        "decisions": "## D\nx\n",
        "state": "- s\n  <!--mem id:aaaaaa created:2026-09-01 touched:2026-09-01-->\n",
    }
    view = assemble_view(files, TODAY, est, asks_block="Open asks: none (orbital/ASKS.md)")
    assert view == (
        "Today is 2026-09-18.\n\n[PROJECT_STATE.md]\n- s\n\n\n[DECISIONS.md]\n## D\nx\n\n\n"
        "[INDEX.md]\nidx\n\n\nOpen asks: none (orbital/ASKS.md)"
    )
    sub = assemble_view(files, TODAY, est, audience="subagent", dropped_line="- dropped: x")
    assert sub == "Today is 2026-09-18.\n\n- dropped: x"
