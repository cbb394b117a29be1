"""Alembic environment.

Accepts a connection handed over by the application (``config.attributes["connection"]``,
used for the automatic upgrade at start-up) or builds an engine from ``ORBITAL_DB`` / the
``sqlalchemy.url`` option for the plain ``alembic`` command line.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, text

from orbital.store._db import default_url
from orbital.store._engine import create_write_engine
from orbital.store._schema import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Two processes starting at once must not both run the DDL.
            connection.execute(text("SELECT pg_advisory_xact_lock(7460215)"))
        context.run_migrations()


def run_migrations_online() -> None:
    handed = config.attributes.get("connection")
    if handed is not None:
        _run(handed)
        return
    url = config.get_main_option("sqlalchemy.url") or default_url()
    engine = create_write_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run against a database")
run_migrations_online()
