"""PostgreSQL: every table tells listeners when a statement changed it.

A long-lived process keeps reads (the heads a view is keyed by, verified tokens) by the
store's commit counter; SQLite has one (``PRAGMA data_version``), PostgreSQL does not. Here
each table gets a statement-level trigger that sends ``NOTIFY orbital_changes`` (delivered at
commit, one per transaction however many statements), which
:class:`orbital.store._changes.NotifiedChanges` counts. A table a later migration adds gets the
same trigger there (``tests/store/test_migrations.py`` checks every table has it). SQLite:
nothing to do.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def _tables() -> list[str]:
    query = sa.text(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
        "AND tablename <> 'alembic_version' ORDER BY tablename"
    )
    return [row[0] for row in op.get_bind().execute(query)]


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        "CREATE FUNCTION orbital_changed() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN PERFORM pg_notify('orbital_changes', ''); RETURN NULL; END $$"
    )
    for table in _tables():
        op.execute(
            f"CREATE TRIGGER {table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
            f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION orbital_changed()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in _tables():
        op.execute(f"DROP TRIGGER IF EXISTS {table}_changed ON {table}")
    op.execute("DROP FUNCTION orbital_changed()")
