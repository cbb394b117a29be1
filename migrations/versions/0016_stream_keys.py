"""Streams filed by keys their states give (``stream_keys``): a decision or a view asks a
keyed question ("the open ask with this text", "the first open asks by due date") and reads
the few rows under its key instead of every stream's state. Each ``family`` of keys is a
projection of one category's states that records the position it was projected at and the
stamp of the code that made its keys (``stream_key_positions``): one behind catches up from
the streams that moved since, one made by other code is made again
(``orbital/service/_stream_keys.py``). A family whose keys each name many streams (a meaning
index: a WordNet sense names every dropped ask with a word of that sense) keeps a list per
key instead (``key_lists``: the items, space-separated), a row per key rather than one per
key and stream. Keys sort byte by byte on both databases (on
PostgreSQL the column's collation is ``C``), since a key's order is a view's order. Nothing
is filled here: the first unit of work that needs a family builds it.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_TABLES = ("stream_keys", "stream_key_positions", "key_lists")


def upgrade() -> None:
    key = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")
    op.create_table(
        "stream_keys",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("family", sa.String(32), primary_key=True),
        sa.Column("key", key, primary_key=True),
        sa.Column("stream", sa.String(200), primary_key=True),
        sa.Index("ix_stream_keys_stream", "project_id", "family", "stream", "key"),
    )
    op.create_table(
        "key_lists",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("family", sa.String(32), primary_key=True),
        sa.Column("key", key, primary_key=True),
        sa.Column("items", sa.Text, nullable=False),
    )
    op.create_table(
        "stream_key_positions",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("family", sa.String(32), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("stamp", sa.String(64), nullable=False),
        sa.Column("counts", sa.Text, nullable=False, server_default=""),
    )
    if op.get_bind().dialect.name == "postgresql":  # as migration 0015 does for every table
        for table in _TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
                f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION orbital_changed()"
            )


def downgrade() -> None:
    op.drop_table("stream_key_positions")
    op.drop_table("key_lists")
    op.drop_table("stream_keys")
