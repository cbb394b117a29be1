"""Workspaces: the reserved owner of every workspace's stream.

Every event names the project that owns its stream (a foreign key into ``projects``). A
workspace's stream (``workspace:<name>``) belongs to no project, so one reserved row,
``_workspaces``, owns them all; the registry never lists it nor reads it as a project (a
project id is a slug of ``[a-z0-9-]``, so it cannot collide). No table changes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_OWNER = "_workspaces"
_projects = sa.table(
    "projects",
    sa.column("project_id", sa.String),
    sa.column("root", sa.Text),
    sa.column("timezone", sa.String),
    sa.column("registered_at", sa.DateTime),
)


def upgrade() -> None:
    op.execute(
        _projects.insert().values(
            project_id=_OWNER,
            root="orbital:workspaces",
            timezone="",
            registered_at=dt.datetime(2026, 12, 3),
        )
    )


def downgrade() -> None:
    op.execute(_projects.delete().where(_projects.c.project_id == _OWNER))
