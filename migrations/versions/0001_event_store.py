"""Event store: projects, the immutable events table, materialised stream state and the last
position of each stream category.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_IMMUTABLE_MESSAGE = "events are immutable: UPDATE and DELETE are refused"


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("project_id", sa.String(64), primary_key=True),
        sa.Column("root", sa.Text, nullable=False, unique=True),
        sa.Column("timezone", sa.String(64), nullable=False, server_default=""),
        sa.Column("registered_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), nullable=False
        ),
        sa.Column("stream", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column("session", sa.String(200), nullable=True),
        sa.Column("recorded_at", sa.DateTime, nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False, unique=True),
        sa.UniqueConstraint("project_id", "stream", "version", name="uq_events_stream_version"),
    )
    op.create_index("ix_events_project_position", "events", ["project_id", "position"])
    op.create_index("ix_events_project_recorded_at", "events", ["project_id", "recorded_at"])
    op.create_table(
        "streams",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("stream", sa.String(200), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.Column("state", sa.Text, nullable=True),
    )
    op.create_index("ix_streams_project_last_position", "streams", ["project_id", "last_position"])
    op.create_table(
        "heads",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("category", sa.String(200), primary_key=True),
        sa.Column("last_position", sa.BigInteger, nullable=False),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER events_refuse_{action.lower()} BEFORE {action} ON events "
                f"BEGIN SELECT RAISE(ABORT, '{_IMMUTABLE_MESSAGE}'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{_IMMUTABLE_MESSAGE}'; END $$"
        )
        op.execute(
            "CREATE TRIGGER events_refuse_change BEFORE UPDATE OR DELETE ON events "
            "FOR EACH ROW EXECUTE FUNCTION events_refuse_change()"
        )
        op.execute(
            "CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON events "
            "FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()"
        )
    else:  # pragma: no cover - guarded by the store's URL check
        raise RuntimeError(f"unsupported database dialect {dialect!r}")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS events_refuse_update")
        op.execute("DROP TRIGGER IF EXISTS events_refuse_delete")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_refuse_truncate ON events")
        op.execute("DROP TRIGGER IF EXISTS events_refuse_change ON events")
        op.execute("DROP FUNCTION IF EXISTS events_refuse_change()")
    op.drop_table("heads")
    op.drop_index("ix_streams_project_last_position", table_name="streams")
    op.drop_table("streams")
    op.drop_index("ix_events_project_recorded_at", table_name="events")
    op.drop_index("ix_events_project_position", table_name="events")
    op.drop_table("events")
    op.drop_table("projects")
