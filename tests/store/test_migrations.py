"""The Alembic chain: one head, up and down cleanly, and the Core tables match it."""

from __future__ import annotations

import datetime as dt
import os

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from orbital.store import EventStore
from orbital.store._engine import create_write_engine
from orbital.store._migrate import (
    head_revision,
    migrations_dir,
    newest_revision,
)
from orbital.store._quick import quick_reader
from orbital.store._schema import ENGINE_TABLES, metadata


def _config(conn: sa.Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["connection"] = conn
    return config


def _register_shop(conn: sa.Connection) -> None:
    """The project ``shop`` as the early schemas registered one."""
    conn.execute(
        sa.text(
            "INSERT INTO projects (project_id, root, timezone, registered_at) "
            "VALUES ('shop', '/home/alice/shop', '', :at)"
        ),
        {"at": dt.datetime(2026, 12, 1, 9, 0)},
    )


def test_the_chain_has_a_single_head() -> None:
    script = ScriptDirectory(str(migrations_dir()))
    assert len(script.get_heads()) == 1
    assert script.get_current_head() == head_revision()
    # The start-up check reads the newest revision from the scripts' names, without Alembic.
    assert newest_revision() == head_revision()
    for revision in script.walk_revisions():
        assert revision.path is not None and revision.revision == _name_of(revision.path)


def _name_of(path: str) -> str:
    return os.path.basename(path)[:4]


def test_a_store_behind_is_upgraded_at_start(store_url: str) -> None:
    """On both backends the store runs on its driver, and Alembic (on SQLAlchemy) upgrades a
    store that is behind when it opens; a hook's quick reader never reads one that is not at
    the newest revision (the full path upgrades it first)."""
    if store_url.startswith("sqlite"):
        EventStore(store_url).close()  # the file exists: the quick reader looks inside it
    engine = create_write_engine(store_url)
    try:
        with engine.connect() as conn:
            command.upgrade(_config(conn), "head")
            command.downgrade(_config(conn), "0003")
            conn.commit()
        assert quick_reader(store_url) is None
        EventStore(store_url).close()  # the check at start finds it behind and upgrades it
        with engine.connect() as conn:
            assert MigrationContext.configure(conn).get_current_revision() == head_revision()
        reader = quick_reader(store_url)
        assert reader is not None
        with reader, reader.reads() as reads:
            assert reads.head() == 0
    finally:
        engine.dispose()


def test_a_new_store_is_created_at_start_not_by_a_quick_read(store_url: str) -> None:
    assert quick_reader(store_url) is None
    with EventStore(store_url) as store:
        assert store.database_version.split()[0] in {"SQLite", "PostgreSQL"}
    reader = quick_reader(store_url)
    assert reader is not None
    with reader, reader.reads() as reads:
        assert reads.head() == 0


def test_upgrade_downgrade_upgrade_and_tables_match_the_models(store_url: str) -> None:
    engine = create_write_engine(store_url)
    try:
        for target in ("head", "base", "head"):
            with engine.connect() as conn:
                if target == "base":
                    command.downgrade(_config(conn), target)
                else:
                    command.upgrade(_config(conn), target)
                conn.commit()
        with engine.connect() as conn:
            # The full-text engine's own tables (FTS5's and its shadow tables; PostgreSQL's
            # tsvector table) are the engine's, made by migration 0013, not modelled.
            engine_owned = {
                "include_name": lambda name, kind, _parent: (
                    not (kind == "table" and str(name).startswith(ENGINE_TABLES))
                )
            }
            context = MigrationContext.configure(conn, opts=engine_owned)
            assert context.get_current_revision() == head_revision()
            assert compare_metadata(context, metadata) == []
            tables = set(sa.inspect(conn).get_table_names())
        assert {"events", "projects", "streams", "alembic_version"} <= tables
    finally:
        engine.dispose()


def test_0006_makes_each_project_a_checkout_of_this_machine_with_its_checkpoints(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_MACHINE", "alice-laptop")
    engine = create_write_engine(store_url)
    row = {"at": dt.datetime(2026, 12, 1, 9, 0)}
    try:
        with engine.connect() as conn:
            command.upgrade(_config(conn), "0005")
            _register_shop(conn)
            conn.execute(
                sa.text(
                    "INSERT INTO checkpoints (project_id, name, position, sha256, size, "
                    "mtime_ns, written_at) VALUES ('shop', 'ASKS.md', 7, NULL, 120, 99, :at)"
                ),
                row,
            )
            command.upgrade(_config(conn), "head")
            checkouts = conn.execute(
                sa.text("SELECT checkout_id, project_id, machine, root FROM checkouts")
            ).all()
            checkpoints = conn.execute(
                sa.text("SELECT checkout_id, name, position, size, mtime_ns FROM checkpoints")
            ).all()
            identity = conn.execute(sa.text("SELECT identity FROM projects")).scalar()
            command.downgrade(_config(conn), "0005")
            back = conn.execute(
                sa.text("SELECT project_id, name, position, size, mtime_ns FROM checkpoints")
            ).all()
            conn.commit()
    finally:
        engine.dispose()
    assert [tuple(r) for r in checkouts] == [("shop", "shop", "alice-laptop", "/home/alice/shop")]
    assert [tuple(r) for r in checkpoints] == [("shop", "ASKS.md", 7, 120, 99)]
    assert identity is None  # until `orbital init` writes the id file
    assert [tuple(r) for r in back] == [("shop", "ASKS.md", 7, 120, 99)]


def test_0009_stores_ask_states_as_rows_and_back(store_url: str) -> None:
    state = (
        '{"id":"a1b2c3","text":"Pick the \\"venue\\"","due":null,"opened":"2026-09-19",'
        '"state":"dropped","updated":"2026-09-22","closed_by":"user","note":"","seq":42}'
    )
    opened = '{"id":"d4e5f6","text":"Book it","due":"2026-10-01","opened":"2026-09-19",'
    opened += '"state":"open","updated":"2026-09-19","closed_by":null,"note":"","seq":43}'
    engine = create_write_engine(store_url)
    try:
        with engine.connect() as conn:
            command.upgrade(_config(conn), "0008")
            _register_shop(conn)
            for stream, value in (("ask:a1b2c3", state), ("ask:d4e5f6", opened), ("x:y", "{}")):
                conn.execute(
                    sa.text(
                        "INSERT INTO streams (project_id, stream, version, last_position, state)"
                        " VALUES ('shop', :s, 1, 1, :v)"
                    ),
                    {"s": stream, "v": value},
                )
            query = sa.text("SELECT stream, state FROM streams ORDER BY stream")
            command.upgrade(_config(conn), "0009")
            rows = conn.execute(query).all()
            command.downgrade(_config(conn), "0008")
            back = conn.execute(query).all()
            conn.commit()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [
        ("ask:a1b2c3", '["a1b2c3","Pick the \\"venue\\"",20715,2,3,42,"","user"]'),
        ("ask:d4e5f6", '["d4e5f6","Book it",20715,0,0,43,"",null,"2026-10-01"]'),
        ("x:y", "{}"),  # not an ask stream
    ]
    assert [tuple(r) for r in back] == [
        ("ask:a1b2c3", state),
        ("ask:d4e5f6", opened),
        ("x:y", "{}"),
    ]


def test_0012_admits_calendar_tokens_beside_those_referenced_and_takes_them_back(
    store_url: str,
) -> None:
    at = dt.datetime(2026, 12, 1, 9, 0)
    insert = sa.text(
        "INSERT INTO credentials (token_id, secret_sha256, audience, label, created_at)"
        " VALUES (:t, 'x', :a, '', :at)"
    )
    audiences = sa.text("SELECT token_id, audience FROM credentials ORDER BY token_id")
    engine = create_write_engine(store_url)
    try:
        with engine.connect() as conn:
            command.upgrade(_config(conn), "0011")
            conn.execute(insert, {"t": "a1", "a": "agent", "at": at})
            conn.execute(
                sa.text(
                    "INSERT INTO page_sessions (session_sha256, token_id, created_at, expires_at)"
                    " VALUES ('s', 'a1', :at, :at)"
                ),
                {"at": at},
            )
            conn.commit()
            with pytest.raises(sa.exc.IntegrityError):
                conn.execute(insert, {"t": "c0", "a": "calendar", "at": at})
            conn.rollback()
            command.upgrade(_config(conn), "0012")
            conn.execute(insert, {"t": "c1", "a": "calendar", "at": at})
            conn.commit()
            with pytest.raises(sa.exc.IntegrityError):
                conn.execute(insert, {"t": "x1", "a": "admin", "at": at})
            conn.rollback()
            upgraded = conn.execute(audiences).all()
            command.downgrade(_config(conn), "0011")
            back = conn.execute(audiences).all()
            conn.commit()
    finally:
        engine.dispose()
    assert [tuple(r) for r in upgraded] == [("a1", "agent"), ("c1", "calendar")]
    assert [tuple(r) for r in back] == [("a1", "agent")]


def test_0017_counts_the_items_of_the_lists_already_kept(store_url: str) -> None:
    rows = [("p\x01hall", "a1 b2 c3"), ("s\x01hll", "hall"), ("v\x01chairs", "d4 e5")]
    engine = create_write_engine(store_url)
    try:
        with engine.connect() as conn:
            command.upgrade(_config(conn), "0016")
            _register_shop(conn)
            for key, items in rows:
                conn.execute(
                    sa.text(
                        "INSERT INTO key_lists (project_id, family, key, items)"
                        " VALUES ('shop', 'asks-restates', :k, :i)"
                    ),
                    {"k": key, "i": items},
                )
            conn.commit()
            command.upgrade(_config(conn), "0017")
            sizes = conn.execute(sa.text("SELECT key, size FROM key_lists ORDER BY key")).all()
            conn.commit()
    finally:
        engine.dispose()
    assert [tuple(r) for r in sizes] == [("p\x01hall", 3), ("s\x01hll", 1), ("v\x01chairs", 2)]
