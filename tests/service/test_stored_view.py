"""The view's asks read from the store's keys (``stream_keys``, kept by each unit of work) in a
process that holds none of them read the same as the rule spelled out over every ask: after
any history of opens, closes and reopens on changing days, with the keys behind the head
(asks changed by a write that filed no keys), and with keys made by other code (not read)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from orbital.catalogue import ASK_PREFIX
from orbital.domain.asks import Ask, random_minter
from orbital.events import Actor
from orbital.events.asks import AskClosed
from orbital.service import Orbital, _stored_asks
from orbital.service._stored_asks import Keyed, stored_view
from orbital.service._stream_keys import ASK_KEYS, stamp
from orbital.store import Projected, Reader
from projections.asks_view import ViewAsks, runtime_block

START = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


class MovingClock:
    """A clock a test moves on."""

    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


@contextmanager
def fresh(store_url: str, clock: MovingClock) -> Iterator[Orbital]:
    """A service holding nothing of the project (a new process's)."""
    with Orbital.open(store_url, clock=clock) as service:
        yield service


@contextmanager
def started(store_url: str, root: Path, seed: int) -> Iterator[tuple[Orbital, str, MovingClock]]:
    """A service on ``store_url`` with a project at ``root`` (created), ids minted from
    ``seed``, and the clock it reads (moved on by the test)."""
    clock = MovingClock(START)
    root.mkdir()
    with Orbital.open(store_url, clock=clock, mint=random_minter(random.Random(seed))) as service:
        yield service, service.init_project(root, timezone="UTC").project_id, clock


def stored(r: Reader, project: str) -> ViewAsks | None:
    """The view's asks read from the store's keys (None: not there for this code)."""
    found = r.keys_projected(project, ASK_KEYS.name)
    keyed = Keyed.of(r, project, r.prefix_head(project, ASK_PREFIX), found)
    return None if keyed is None else stored_view(keyed)


def every_ask(service: Orbital, project: str) -> dict[str, Ask]:
    with service.store.reader() as r:
        states = r.states(project, ASK_PREFIX)
    return {a.id: a for a in states.values() if a is not None}


def assert_reads_as_spelled_out(store_url: str, clock: MovingClock, project: str) -> None:
    """A new service's view of the asks, read from the store, equals the one built from
    every ask: the block the agent sees, and the whole of each order."""
    today = clock.at.date()
    with fresh(store_url, clock) as service:
        plain = every_ask(service, project)
        built = ViewAsks.of(plain)
        with service.store.reader() as r:
            view = stored(r, project)
            assert view is not None
            assert runtime_block(view, today, empty_cue=True) == runtime_block(
                plain, today, empty_cue=True
            )
            assert view.open_count == built.open_count
            assert view.open_first(len(plain)) == built.open_first(len(plain))
            everything = today - dt.timedelta(days=10_000)
            assert view.newest_closed(len(plain), everything, lambda a: True) == (
                built.newest_closed(len(plain), everything, lambda a: True)
            )
            for ask_id, ask in plain.items():
                assert view[ask_id] == ask
            assert sorted(view) == sorted(plain)


@pytest.mark.parametrize(("first", "page"), [(16, 256), (1, 3)])
def test_the_stored_orders_read_as_every_ask_sorted(
    store_url: str, tmp_path: Path, first: int, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_stored_asks, "FIRST_PAGE", first)  # 1: pages of 1, 2, then 3 rows
    monkeypatch.setattr(_stored_asks, "PAGE", page)  # 3: an order read over many pages
    rng = random.Random(11)
    with started(store_url, tmp_path / "project", 3) as (service, project, clock):
        for step in range(90):
            clock.at += dt.timedelta(hours=rng.choice([0, 1, 30]))
            asks = every_ask(service, project)
            opened = [a.id for a in asks.values() if a.state == "open"]
            closed = [a.id for a in asks.values() if a.state != "open"]
            roll = rng.random()
            if roll < 0.45 or not opened:
                due = rng.choice([None, None, f"2026-0{rng.randint(6, 9)}-{rng.randint(10, 28)}"])
                service.ask_open(project, f"ask number {step}", due, actor=Actor.USER)
            elif roll < 0.85:
                kind = rng.choice(["done", "dropped"])
                actor = rng.choice([Actor.USER, Actor.AGENT])
                service.ask_close(project, rng.choice(opened), kind, '"ok"', actor=actor)
            elif closed:
                service.ask_reopen(project, rng.choice(closed), '"again"', actor=Actor.USER)
            if step % 15 == 14:
                assert_reads_as_spelled_out(store_url, clock, project)


def test_asks_changed_after_the_keys_position_are_read_as_they_are_now(
    store_url: str, tmp_path: Path
) -> None:
    with started(store_url, tmp_path / "project", 5) as (service, project, clock):
        for n in range(12):
            clock.at += dt.timedelta(days=1)
            service.ask_open(
                project, f"thing {n}", None if n % 3 else "2026-07-01", actor=Actor.USER
            )
        with service.store.reader() as r:
            filed = r.keys_projected(project, ASK_KEYS.name)
        ids = sorted(every_ask(service, project))
        # Closed by a write that is no unit of work: the keys stay where they were.
        with service.store.writing() as w:
            for ask_id in ids[:5]:
                closed = AskClosed(ask_id=ask_id, kind="dropped", date=clock.at.date(), by="user")
                w.append(project, ASK_PREFIX + ask_id, [closed], expected_version=None,
                         actor=Actor.USER)  # fmt: skip
        with service.store.reader() as r:
            assert r.keys_projected(project, ASK_KEYS.name) == filed
    assert_reads_as_spelled_out(store_url, clock, project)


def test_keys_made_by_other_code_are_not_read_and_the_next_unit_makes_them_again(
    store_url: str, tmp_path: Path
) -> None:
    with started(store_url, tmp_path / "project", 9) as (service, project, clock):
        for n in range(4):
            service.ask_open(project, f"item {n}", actor=Actor.USER)
        with service.store.writing() as w:
            # Keys filed by another Orbital: where every ask stands, by its rules.
            w.keys_at(project, ASK_KEYS.name, Projected(10**9, "other code", {}))
        with service.store.reader() as r:
            assert stored(r, project) is None
        plain = every_ask(service, project)
        with fresh(store_url, clock) as other, other.store.reader() as r:
            view = other.units.asks.now(r, project).view  # every ask read instead
            today = clock.at.date()
            assert runtime_block(view, today, empty_cue=True) == runtime_block(
                plain, today, empty_cue=True
            )
        service.ask_open(project, "item 4", actor=Actor.USER)
        with service.store.reader() as r:
            found = r.keys_projected(project, ASK_KEYS.name)
            assert found is not None
            assert found[:2] == (r.prefix_head(project, ASK_PREFIX), stamp(ASK_KEYS))
    assert_reads_as_spelled_out(store_url, clock, project)


def test_a_purge_files_the_keys_again_from_the_purged_states(
    store_url: str, tmp_path: Path
) -> None:
    with started(store_url, tmp_path / "project", 4) as (service, project, clock):
        service.ask_open(project, "call the bank about 4111-2222-3333", actor=Actor.USER)
        service.ask_open(project, "water the plants", actor=Actor.USER)
        service.purges.purge(
            project, text="4111-2222-3333", reason="a card number", actor=Actor.USER,
            state=tmp_path / "s",
        )  # fmt: skip
        with service.store.reader() as r:
            head = r.prefix_head(project, ASK_PREFIX)
            found = r.keys_projected(project, ASK_KEYS.name)
            assert found is not None and found[:2] == (head, stamp(ASK_KEYS))
            rows = r.keyed(project, ASK_KEYS.name, "", "\x7f", limit=100)
        assert len({stream for _, stream, _ in rows}) == 2
        assert rows and not any("4111" in key for key, _, _ in rows)
        service.ask_open(project, "feed the cat", actor=Actor.USER)
    assert_reads_as_spelled_out(store_url, clock, project)


POOL = (
    "Move the cron jobs off Heroku",
    "move the cron jobs off heroku!",
    "Raise the price on the pricing page",
    "Write the launch post",
    "Draft the launch announcement",
    "Migrate the cron jobs away from Heroku",
    "Ask the bank about the wire",
)


def _history(store_url: str, root: Path, keyed: bool) -> list[tuple[str, str, list[str]]]:
    """One scripted history of agent and person ask writes, by a service that reads the asks
    from the store's keys (``keyed``) or holds them all: each write's events and warnings."""
    rng = random.Random(21)
    seen: list[tuple[str, str, list[str]]] = []
    with started(store_url, root, 8) as (service, project, clock):
        service.units.asks.keyed = keyed
        for step in range(70):
            clock.at += dt.timedelta(hours=7)
            asks = every_ask(service, project)
            opened = sorted(a.id for a in asks.values() if a.state == "open")
            dropped = sorted(a.id for a in asks.values() if a.state == "dropped")
            roll = rng.random()
            if roll < 0.4 or not opened:
                text = rng.choice(POOL)
                outcome = service.ask_open(project, text, actor=Actor.AGENT)
            elif roll < 0.65:
                lines = [f"- open {rng.choice(POOL)}" for _ in range(rng.randint(1, 3))]
                asks_md = root / "orbital" / "ASKS.md"
                content = asks_md.read_bytes() + ("\n".join(lines) + "\n").encode()
                outcome = service.write_file(project, "ASKS.md", content, actor=Actor.AGENT)
            elif roll < 0.9:
                ask_id, kind = rng.choice(opened), rng.choice(["done", "dropped"])
                outcome = service.ask_close(project, ask_id, kind, '"fine"', actor=Actor.USER)
            elif dropped:
                ask_id = rng.choice(dropped)
                outcome = service.ask_reopen(project, ask_id, '"again"', actor=Actor.AGENT)
            else:
                continue
            events = [f"{e.type}:{e.stream}:{e.summary}" for e in outcome.events]
            seen.append((str(step), " ".join(events), list(outcome.warnings)))
    return seen


def test_decisions_read_from_the_keys_are_the_decisions_made_over_every_ask(
    store_url: str, second_url: str, tmp_path: Path
) -> None:
    held = _history(store_url, tmp_path / "held", keyed=False)
    keyed = _history(second_url, tmp_path / "keyed", keyed=True)
    assert keyed == held
    refused = [w for _, _, warnings in held for w in warnings if "not added" in w]
    assert refused  # the script reaches the refusals it compares
