"""The store's commit counter: what lets a long-lived process answer a repeated read with no
query. SQLite's is ``PRAGMA data_version``; PostgreSQL's counts the notifications every table
sends (migration 0015) once the process listens."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.store import EventStore


def _moves(store: EventStore, before: int | None, timeout: float = 5.0) -> bool:
    """Whether ``store.changes()`` leaves ``before`` within ``timeout`` (a notification's trip)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if store.changes() != before:
            return True
        time.sleep(0.005)
    return False


def test_another_process_commit_moves_the_number_and_an_own_one_at_once(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    server = Orbital.open(store_url, clock=clock)
    other = Orbital.open(store_url, clock=clock)
    try:
        root = tmp_path / "shop"
        root.mkdir()
        pid = server.init_project(root, timezone="UTC").project_id
        server.store.listen_for_changes()
        first = server.store.changes()
        assert first is not None
        assert server.store.changes() == first  # nothing committed: the same number
        other.ask_open(pid, "Choose the hosting provider", actor=Actor.AGENT)
        assert _moves(server.store, first)
        second = server.store.changes()
        server.ask_open(pid, "Book the venue for the launch", actor=Actor.AGENT)
        assert server.store.changes() != second  # its own commit, with no wait
    finally:
        other.close()
        server.close()


def test_a_token_revoked_elsewhere_stops_working_in_a_listening_server(
    store_url: str, clock: FixedClock
) -> None:
    server = Orbital.open(store_url, clock=clock)
    other = Orbital.open(store_url, clock=clock)
    try:
        server.store.listen_for_changes()
        issued = server.credentials.create("agent", label="laptop")
        assert server.credentials.verify(issued.token) is not None  # now kept by the number
        before = server.store.changes()
        other.credentials.revoke(issued.credential.token_id)
        assert _moves(server.store, before)
        assert server.credentials.verify(issued.token) is None
    finally:
        other.close()
        server.close()


def test_a_short_lived_process_on_postgresql_does_not_know_the_number(
    store_url: str, backend: str, clock: FixedClock
) -> None:
    if backend != "postgresql":
        pytest.skip("SQLite's number is known at once, with no listener")
    service = Orbital.open(store_url, clock=clock)
    try:
        assert service.store.changes() is None  # it reads the store, as before
    finally:
        service.close()


def test_every_table_tells_listeners_it_changed(store_url: str, backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("SQLite's data_version needs no trigger")
    EventStore(store_url).close()
    engine = sa.create_engine(store_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            tables = conn.execute(
                sa.text(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename <> 'alembic_version'"
                )
            ).scalars()
            triggers = conn.execute(
                sa.text(
                    "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = current_schema() AND t.tgname = c.relname || '_changed'"
                )
            ).scalars()
            assert set(tables) == set(triggers)
    finally:
        engine.dispose()
