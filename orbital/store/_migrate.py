"""Schema upgrades through Alembic, at start-up and from ``orbital db upgrade``.

At start-up the stored revision is compared with the newest script's (one small query on the
store's own connection, no Alembic or SQLAlchemy import: they cost a short-lived process far
more than the check); Alembic runs, on an SQLAlchemy engine, only when the store is behind or
new.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import orbital

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.engine import Connection

    from orbital.store._db import Database


def migrations_dir() -> Path:
    """The migration scripts: inside the installed wheel (``orbital/_alembic/migrations``, with
    ``alembic.ini`` beside it as in the repository), or the repository's ``migrations/``."""
    package = Path(orbital.__file__).resolve().parent
    for candidate in (package / "_alembic" / "migrations", package.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise RuntimeError(f"Orbital's migration scripts are missing (looked beside {package})")


def newest_revision() -> str | None:
    """The newest migration's revision, from the scripts' names (``NNNN_<what>.py`` with
    ``revision = "NNNN"``; ``tests/store/test_migrations.py`` holds Alembic to it), without
    importing Alembic."""
    try:
        names = os.listdir(migrations_dir() / "versions")
    except (RuntimeError, OSError):
        return None
    return max((n[:4] for n in names if n[:4].isdigit() and n.endswith(".py")), default=None)


def _config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


def current_revision(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def _stored_revisions(db: Database) -> list[str] | None:
    """The revisions in ``alembic_version`` (None: no such table yet)."""
    try:
        with db.begin() as conn:
            return [str(value) for value in conn.scalars("SELECT version_num FROM alembic_version")]
    except db.errors:
        return None


def at_newest_revision(db: Database) -> bool:
    """Whether the store's schema is at the newest script's revision (no Alembic import)."""
    newest = newest_revision()
    return newest is not None and _stored_revisions(db) == [newest]


def upgrade_schema(db: Database) -> None:
    """Bring the store to the newest revision through Alembic (and on SQLite, the
    SQLAlchemy engine Alembic runs on), unless it is already there."""
    if at_newest_revision(db):
        return
    with db.migrating() as conn:
        _upgrade_connection(conn)


def _upgrade_connection(conn: Connection) -> None:
    """Upgrade to head through ``conn`` (Alembic's; a no-op when already there)."""
    if current_revision(conn) == head_revision():
        conn.rollback()
        return
    conn.rollback()
    from alembic import command

    config = _config()
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
    if conn.in_transaction():
        conn.commit()
