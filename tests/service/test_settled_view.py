"""Issue 13 item 15: the person's Done note and Drop reason reach the agent's view, for a week."""

from __future__ import annotations

import datetime as dt

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from tests.service.conftest import TODAY, Env

SETTLED = (
    "Settled by the user in the last 7 days, in their words (a dropped one: never re-propose):"
)


def test_the_persons_words_reach_the_next_view_and_leave_it_after_a_week(
    env: Env, store_url: str
) -> None:
    service = env.orbital
    readme = service.ask_open(env.project, "Review the README", actor=Actor.AGENT)
    venue = service.ask_open(env.project, "Book the rooftop", actor=Actor.AGENT)
    readme_id, venue_id = (o.events[0].stream.removeprefix("ask:") for o in (readme, venue))
    service.ask_close(
        env.project, readme_id, "done", "README looks good, ship it", actor=Actor.USER
    )
    service.ask_close(env.project, venue_id, "dropped", "too expensive", actor=Actor.USER)
    view = service.context_view(env.project)
    # The asks come before the memory block (data last).
    assert (
        f"{SETTLED}\n"
        f'- dropped [{venue_id}] Book the rooftop (2026-09-19): "too expensive"\n'
        f'- done [{readme_id}] Review the README (2026-09-19): "README looks good, ship it"'
        "\n\n[PROJECT_STATE.md]\n"
    ) in view
    a_week_on = FixedClock(TODAY + dt.timedelta(days=7))
    with Orbital.open(store_url, clock=a_week_on) as later:
        assert SETTLED in later.context_view(env.project)
    eight_days_on = FixedClock(TODAY + dt.timedelta(days=8))
    with Orbital.open(store_url, clock=eight_days_on) as later:
        view = later.context_view(env.project)
    assert "README looks good" not in view
    assert "Dropped by the user — never re-propose:\n- Book the rooftop\n\n[PROJECT_STATE" in view
