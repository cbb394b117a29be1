"""Schema upgrades through Alembic, at start-up and from ``orbital db upgrade``.

At start-up the stored revision is compared with the newest script's (one small query, no
Alembic import: Alembic's machinery costs a short-lived process far more than the check);
Alembic runs only when the store is behind, new, or when ``orbital db upgrade`` asks.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

import orbital
from orbital.store._quick import newest_revision

if TYPE_CHECKING:
    from alembic.config import Config


def migrations_dir() -> Path:
    """The migration scripts: inside the installed wheel, or the repository's ``migrations/``."""
    package = Path(orbital.__file__).resolve().parent
    for candidate in (package / "_migrations", package.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise RuntimeError(f"Orbital's migration scripts are missing (looked beside {package})")


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


def _stored_revisions(conn: Connection) -> list[str] | None:
    """The revisions in ``alembic_version`` (None: no such table yet)."""
    try:
        rows = conn.execute(sa.text("SELECT version_num FROM alembic_version")).all()
    except sa.exc.DBAPIError:
        conn.rollback()
        return None
    return [str(row[0]) for row in rows]


def upgrade_schema(conn: Connection) -> None:
    """Upgrade to head through ``conn``; skips Alembic entirely when already there."""
    newest = newest_revision()
    if newest is not None and _stored_revisions(conn) == [newest]:
        conn.rollback()
        return
    conn.rollback()
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
