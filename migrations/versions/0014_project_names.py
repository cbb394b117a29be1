"""A project's display name beside its id (issue 31): the id is the random identity in its
committed ``orbital/project-id`` (a folder name is no id: two folders called ``invoicer`` are
two projects, and a moved folder is the same one), the name what people read. The row keeps
the name the project stream's ``project.registered`` and ``project.renamed`` events give; a
project from before names was called by its id, so that is its name.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("projects", sa.Column("name", sa.String(200), nullable=False, server_default=""))
    op.execute("UPDATE projects SET name = project_id")


def downgrade() -> None:
    op.drop_column("projects", "name")
