"""The projects registry: a project directory registered once, named by a slug of its name."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from orbital.catalogue import PROJECT_STREAM, WORKSPACES_OWNER
from orbital.errors import InvalidInput, UnknownProject
from orbital.events import Actor, ProjectRegistered
from orbital.project import Project
from orbital.store._appends import Appends
from orbital.store._base import Transaction, naive_utc
from orbital.store._schema import projects


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48]
    return slug or "project"


def _resolved(root: str | Path) -> str:
    return str(Path(root).expanduser().resolve())


def _from_row(row: sa.Row[Any]) -> Project:
    registered = row.registered_at.replace(tzinfo=dt.UTC)
    return Project(row.project_id, row.root, row.timezone, registered)


#: Only projects: the reserved owner of the workspaces' streams is never one.
_PROJECTS = sa.select(projects).where(projects.c.project_id != WORKSPACES_OWNER)


class ProjectReads(Transaction):
    def project(self, project: str) -> Project:
        row = self._conn.execute(_PROJECTS.where(projects.c.project_id == project)).first()
        if row is None:
            raise UnknownProject(project)
        return _from_row(row)

    def project_for_root(self, root: str | Path) -> Project:
        """The project registered for exactly this directory."""
        resolved = _resolved(root)
        row = self._row_for_root(resolved)
        if row is None:
            raise UnknownProject(resolved)
        return _from_row(row)

    def projects(self) -> list[Project]:
        """Every registered project, by id."""
        rows = self._conn.execute(_PROJECTS.order_by(projects.c.project_id)).all()
        return [_from_row(r) for r in rows]

    def _row_for_root(self, resolved: str) -> sa.Row[Any] | None:
        return self._conn.execute(_PROJECTS.where(projects.c.root == resolved)).first()


class ProjectWrites(Appends, ProjectReads):
    def register_project(self, root: str | Path, *, timezone: str = "") -> Project:
        """Register a project directory (idempotent: the same root returns the same project)."""
        resolved = _resolved(root)
        if timezone:
            try:
                zoneinfo.ZoneInfo(timezone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise InvalidInput(
                    f"unknown timezone {timezone!r}: use an IANA name such as Europe/Berlin"
                ) from None
        row = self._row_for_root(resolved)
        if row is not None:
            return _from_row(row)
        taken = set(self._conn.scalars(sa.select(projects.c.project_id)))
        base = _slug(Path(resolved).name)
        project_id, n = base, 1
        while project_id in taken:
            n += 1
            project_id = f"{base}-{n}"
        now = self._store.clock.now()
        self._conn.execute(
            projects.insert().values(
                project_id=project_id,
                root=resolved,
                timezone=timezone,
                registered_at=naive_utc(now),
            )
        )
        self.append(
            project_id,
            PROJECT_STREAM,
            [ProjectRegistered(root=resolved, timezone=timezone)],
            expected_version=0,
            actor=Actor.SYSTEM,
        )
        return Project(project_id, resolved, timezone, now.astimezone(dt.UTC))
