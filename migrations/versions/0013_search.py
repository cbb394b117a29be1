"""The search index: one row per searchable text (an entry as it stands, an entry's past
version, an ask) in ``search_docs``, and each database's own full-text index over it in
``search_fts`` — an FTS5 table (external content, porter stemming) on SQLite, a ``tsvector``
with a GIN index on PostgreSQL (``orbital_search``: English stemming without
stopwords, as FTS5's porter tokenizer). ``search_positions`` holds the position each
project's index was projected at: a read behind the head catches up from it
(``orbital/service/_search.py``). Nothing is filled here: the first search builds it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "search_docs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), nullable=False
        ),
        sa.Column("doc", sa.String(240), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("item", sa.String(200), nullable=False),
        sa.Column("file", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("trust", sa.String(16), nullable=False),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.UniqueConstraint("project_id", "doc", name="uq_search_docs_doc"),
        sa.Index("ix_search_docs_item", "project_id", "item"),
    )
    op.create_table(
        "search_positions",
        sa.Column(
            "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
        ),
        sa.Column("position", sa.BigInteger, nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE search_fts USING fts5(item, text, content='search_docs',"
            " content_rowid='id', tokenize='porter unicode61')"
        )
        return
    # English stemming without English stopwords, as FTS5's porter tokenizer does: a word a
    # person types is looked for on both databases alike.
    op.execute(
        "CREATE TEXT SEARCH DICTIONARY orbital_stem (TEMPLATE = snowball, LANGUAGE = english)"
    )
    op.execute("CREATE TEXT SEARCH CONFIGURATION orbital_search (COPY = english)")
    op.execute(
        "ALTER TEXT SEARCH CONFIGURATION orbital_search ALTER MAPPING FOR asciiword, asciihword,"
        " hword_asciipart, word, hword, hword_part WITH orbital_stem"
    )
    op.execute(
        "CREATE TABLE search_fts (id INTEGER PRIMARY KEY REFERENCES search_docs (id)"
        " ON DELETE CASCADE, tsv tsvector NOT NULL)"
    )
    op.execute("CREATE INDEX ix_search_fts_tsv ON search_fts USING gin (tsv)")


def downgrade() -> None:
    op.execute("DROP TABLE search_fts")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TEXT SEARCH CONFIGURATION orbital_search")
        op.execute("DROP TEXT SEARCH DICTIONARY orbital_stem")
    op.drop_table("search_positions")
    op.drop_table("search_docs")
