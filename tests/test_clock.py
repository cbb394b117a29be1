from __future__ import annotations

import datetime as dt

import pytest

from orbital.clock import FixedClock, SystemClock, clock_from_env, parse_instant
from orbital.errors import InvalidInput


def test_orbital_now_pins_the_clock() -> None:
    clock = clock_from_env({"ORBITAL_NOW": "2026-11-01T09:30:00+01:00"})
    assert clock == FixedClock(dt.datetime(2026, 11, 1, 8, 30, tzinfo=dt.UTC))
    assert clock.now().tzinfo is dt.UTC


def test_a_date_alone_or_a_naive_time_is_taken_as_utc() -> None:
    assert parse_instant("2026-11-01") == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    assert parse_instant("2026-11-01T10:00") == dt.datetime(2026, 11, 1, 10, tzinfo=dt.UTC)


def test_without_orbital_now_the_system_clock_is_used() -> None:
    assert isinstance(clock_from_env({}), SystemClock)
    assert isinstance(clock_from_env({"ORBITAL_NOW": "  "}), SystemClock)


def test_a_bad_orbital_now_says_which_variable() -> None:
    with pytest.raises(InvalidInput) as info:
        clock_from_env({"ORBITAL_NOW": "tomorrow"})
    assert str(info.value) == (
        "ORBITAL_NOW: 'tomorrow' is not an ISO 8601 date or time "
        "(e.g. 2026-11-01 or 2026-11-01T09:30:00Z)"
    )
