"""Scheduling: the pure decision and the single-flight scheduler around it."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.domain.editor.schedule import PassHistory, Trigger, decide_schedule
from orbital.editor.scheduler import Claim, EditorScheduler

NOW = dt.datetime(2026, 9, 19, 12, 0, tzinfo=dt.UTC)


def ago(**delta: float) -> dt.datetime:
    return NOW - dt.timedelta(**delta)


@pytest.mark.parametrize(
    ("history", "trigger", "over_soft", "changed", "verdict"),
    [
        (PassHistory(), "auto", True, True, "run"),
        (PassHistory(), "auto", False, True, "not_needed"),
        (PassHistory(), "auto", True, False, "no_delta"),
        (PassHistory(last_run_at=ago(minutes=5)), "auto", True, True, "too_soon"),
        (PassHistory(last_run_at=ago(minutes=29)), "auto", True, True, "too_soon"),
        (PassHistory(last_run_at=ago(minutes=30)), "auto", True, True, "run"),
        (PassHistory(last_run_at=ago(hours=1)), "auto", True, True, "run"),
        (PassHistory(last_started_at=ago(minutes=4)), "auto", True, True, "debounced"),
        (PassHistory(last_started_at=ago(minutes=5)), "auto", True, True, "run"),
        (PassHistory(in_flight=True), "auto", True, True, "in_flight"),
        (PassHistory(last_run_at=ago(minutes=1)), "requested", False, False, "run"),
        (PassHistory(last_started_at=ago(minutes=1)), "requested", True, True, "debounced"),
        (PassHistory(in_flight=True), "requested", True, True, "in_flight"),
        (PassHistory(last_run_at=ago(minutes=1)), "session_end", False, False, "run"),
        (PassHistory(last_started_at=ago(minutes=1)), "session_end", True, True, "debounced"),
        (PassHistory(in_flight=True), "session_end", True, True, "in_flight"),
        (PassHistory(last_started_at=ago(seconds=1)), "forced", False, False, "run"),
        (PassHistory(in_flight=True), "forced", True, True, "in_flight"),
    ],
)
def test_decide_schedule(
    history: PassHistory, trigger: Trigger, over_soft: bool, changed: bool, verdict: str
) -> None:
    assert decide_schedule(history, NOW, trigger, over_soft=over_soft, changed=changed) == verdict


def test_single_flight_per_project() -> None:
    scheduler = EditorScheduler(FixedClock(NOW))
    first = scheduler.claim("p1", "forced", over_soft=True, changed=True, last_run_at=None)
    assert isinstance(first, Claim)
    second = scheduler.claim("p1", "forced", over_soft=True, changed=True, last_run_at=None)
    assert second == "in_flight"
    other = scheduler.claim("p2", "forced", over_soft=True, changed=True, last_run_at=None)
    assert isinstance(other, Claim)
    first.release()
    first.release()
    again = scheduler.claim("p1", "forced", over_soft=True, changed=True, last_run_at=None)
    assert isinstance(again, Claim)
    again.release()
    other.release()


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


def test_automatic_passes_are_debounced_then_rationed_to_every_30_minutes() -> None:
    clock = Clock(NOW)
    scheduler = EditorScheduler(clock)

    def auto(last_run_at: dt.datetime | None) -> Claim | str:
        return scheduler.claim("p", "auto", over_soft=True, changed=True, last_run_at=last_run_at)

    first = auto(None)
    assert isinstance(first, Claim)
    first.release()
    assert auto(None) == "debounced"
    clock.at = NOW + dt.timedelta(minutes=6)
    assert auto(NOW) == "too_soon"
    clock.at = NOW + dt.timedelta(minutes=30)
    claim = auto(NOW)
    assert isinstance(claim, Claim)
    claim.release()


def test_concurrent_callers_get_one_claim() -> None:
    scheduler = EditorScheduler(FixedClock(NOW))
    barrier = threading.Barrier(8)
    results: list[object] = []

    def caller() -> None:
        barrier.wait()
        results.append(
            scheduler.claim("p", "forced", over_soft=True, changed=True, last_run_at=None)
        )

    threads = [threading.Thread(target=caller) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    claims = [r for r in results if isinstance(r, Claim)]
    assert len(claims) == 1
    assert results.count("in_flight") == 7
    claims[0].release()


def test_the_lock_file_keeps_a_second_scheduler_out(tmp_path: Path) -> None:
    lock = tmp_path / ".editor.lock"
    server = EditorScheduler(FixedClock(NOW))
    cli = EditorScheduler(FixedClock(NOW))
    held = server.claim(
        "p", "forced", over_soft=True, changed=True, last_run_at=None, lock_file=lock
    )
    assert isinstance(held, Claim)
    refused = cli.claim(
        "p", "forced", over_soft=True, changed=True, last_run_at=None, lock_file=lock
    )
    assert refused == "in_flight"
    held.release()
    taken = cli.claim("p", "forced", over_soft=True, changed=True, last_run_at=None, lock_file=lock)
    assert isinstance(taken, Claim)
    taken.release()
