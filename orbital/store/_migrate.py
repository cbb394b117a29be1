"""Schema upgrades through Alembic, at start-up and from ``orbital db upgrade``."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

import orbital


def migrations_dir() -> Path:
    """The migration scripts: inside the installed wheel, or the repository's ``migrations/``."""
    package = Path(orbital.__file__).resolve().parent
    for candidate in (package / "_migrations", package.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise RuntimeError(f"Orbital's migration scripts are missing (looked beside {package})")


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(_config()).get_current_head()


def current_revision(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def upgrade_schema(conn: Connection) -> None:
    """Upgrade to head through ``conn``; skips Alembic entirely when already there."""
    head = head_revision()
    if current_revision(conn) == head:
        conn.rollback()
        return
    conn.rollback()
    config = _config()
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
    if conn.in_transaction():
        conn.commit()
