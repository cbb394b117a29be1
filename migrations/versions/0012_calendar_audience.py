"""A third credential audience: ``calendar``, the read-only token in a calendar feed's URL.

The audience check widens from ``('agent', 'workbench')`` to take ``'calendar'``. PostgreSQL
drops and re-adds the constraint. SQLite cannot alter a CHECK, and rebuilding ``credentials``
would trip the foreign keys of its tokens' projects and page sessions inside the migration's
transaction, so the table's stored definition is rewritten in place: SQLite's documented
procedure for a change every existing row already satisfies (a widened CHECK), with the schema
version bumped so every open connection reloads it.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_NAME = "ck_credentials_audience"
_BEFORE = "audience IN ('agent', 'workbench')"
_AFTER = "audience IN ('agent', 'workbench', 'calendar')"


def _sqlite_rewrite(before: str, after: str) -> None:
    bind = op.get_bind()
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    bind.exec_driver_sql(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
        (before, after, "credentials"),
    )
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rewrite(_BEFORE, _AFTER)
        return
    op.drop_constraint(_NAME, "credentials", type_="check")
    op.create_check_constraint(_NAME, "credentials", _AFTER)


def downgrade() -> None:
    op.execute(
        "DELETE FROM credential_projects WHERE token_id IN "
        "(SELECT token_id FROM credentials WHERE audience = 'calendar')"
    )
    op.execute(
        "DELETE FROM page_sessions WHERE token_id IN "
        "(SELECT token_id FROM credentials WHERE audience = 'calendar')"
    )
    op.execute("DELETE FROM credentials WHERE audience = 'calendar'")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rewrite(_AFTER, _BEFORE)
        return
    op.drop_constraint(_NAME, "credentials", type_="check")
    op.create_check_constraint(_NAME, "credentials", _BEFORE)
