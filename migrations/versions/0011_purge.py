"""The one sanctioned change of an event: the person's purge of a text (``orbital purge``).

Events stay immutable to everything else: the triggers that refused every UPDATE now let one
through only when it changes nothing but ``data`` and its position is in ``purging``, a table
the purge fills and empties inside its own transaction. DELETE (and TRUNCATE on PostgreSQL)
are refused as before.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_MESSAGE = "events are immutable: UPDATE and DELETE are refused"
_SAME = ("position", "project_id", "stream", "version", "type", "actor", "recorded_at", "event_id")


def upgrade() -> None:
    op.create_table(
        "purging", sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False)
    )
    if op.get_bind().dialect.name == "sqlite":
        same = " AND ".join(f"NEW.{c} = OLD.{c}" for c in _SAME)
        op.execute("DROP TRIGGER events_refuse_update")
        op.execute(
            "CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events WHEN NOT ("
            f"{same} AND NEW.session IS OLD.session AND EXISTS "
            "(SELECT 1 FROM purging WHERE purging.position = OLD.position)) "
            f"BEGIN SELECT RAISE(ABORT, '{_MESSAGE}'); END"
        )
        return
    new = ", ".join(f"NEW.{c}" for c in ("session", *_SAME))
    old = ", ".join(f"OLD.{c}" for c in ("session", *_SAME))
    op.execute(
        "CREATE OR REPLACE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN "
        "IF TG_OP = 'UPDATE' THEN "
        f"IF ROW({new}) IS NOT DISTINCT FROM ROW({old}) AND EXISTS "
        "(SELECT 1 FROM purging WHERE purging.position = OLD.position) THEN RETURN NEW; END IF; "
        "END IF; "
        f"RAISE EXCEPTION '{_MESSAGE}'; END $$"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER events_refuse_update")
        op.execute(
            "CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events "
            f"BEGIN SELECT RAISE(ABORT, '{_MESSAGE}'); END"
        )
    else:
        op.execute(
            "CREATE OR REPLACE FUNCTION events_refuse_change() RETURNS trigger "
            f"LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '{_MESSAGE}'; END $$"
        )
    op.drop_table("purging")
