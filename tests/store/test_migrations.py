"""The Alembic chain: one head, up and down cleanly, and the Core tables match it."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from orbital.store._engine import create_write_engine
from orbital.store._migrate import head_revision, migrations_dir
from orbital.store._schema import metadata


def _config(conn: sa.Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["connection"] = conn
    return config


def test_the_chain_has_a_single_head() -> None:
    script = ScriptDirectory(str(migrations_dir()))
    assert len(script.get_heads()) == 1
    assert script.get_current_head() == head_revision()


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
            context = MigrationContext.configure(conn)
            assert context.get_current_revision() == head_revision()
            assert compare_metadata(context, metadata) == []
            tables = set(sa.inspect(conn).get_table_names())
        assert {"events", "projects", "streams", "alembic_version"} <= tables
    finally:
        engine.dispose()
