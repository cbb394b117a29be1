"""The projects registry: a project found by its identity (the committed ``orbital/project-id``
file), named by a slug of its first folder's name, projected into one checkout per folder and
machine."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from orbital.catalogue import PROJECT_ID_FILE, PROJECT_STREAM, WORKSPACES_OWNER
from orbital.errors import Refused, UnknownProject
from orbital.events import Actor, ProjectRegistered
from orbital.project import Project, check_timezone, identity_in, this_machine
from orbital.store._appends import Appends
from orbital.store._base import Transaction, naive_utc
from orbital.store._schema import checkouts, projects

_JOINED = sa.select(
    projects.c.project_id,
    checkouts.c.root,
    projects.c.timezone,
    projects.c.registered_at,
    checkouts.c.checkout_id,
    checkouts.c.machine,
).join_from(checkouts, projects, checkouts.c.project_id == projects.c.project_id)


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48]
    return slug or "project"


def _resolved(root: str | Path) -> str:
    return str(Path(root).expanduser().resolve())


def _from_row(row: Any) -> Project:
    registered = row.registered_at.replace(tzinfo=dt.UTC)
    return Project(row.project_id, row.root, row.timezone, registered, row.checkout_id)


class ProjectReads(Transaction):
    def project(self, ref: str) -> Project:
        """A checkout by its id, or a project by its id in its first checkout on this
        machine (else its first checkout anywhere)."""
        row = self._conn.execute(_JOINED.where(checkouts.c.checkout_id == ref)).first()
        if row is None or row.project_id == ref:
            rows = self._conn.execute(
                _JOINED.where(checkouts.c.project_id == ref).order_by(
                    checkouts.c.registered_at, checkouts.c.checkout_id
                )
            ).all()
            local = [r for r in rows if r.machine == this_machine()]
            row = (local or rows)[0] if rows else row  # else a checkout's own id
        if row is None:
            raise UnknownProject(ref)
        return _from_row(row)

    def checkout_at(self, root: str | Path) -> Project | None:
        """The checkout registered for exactly this directory on this machine."""
        row = self._conn.execute(
            _JOINED.where(
                checkouts.c.machine == this_machine(), checkouts.c.root == _resolved(root)
            )
        ).first()
        return None if row is None else _from_row(row)

    def project_for_root(self, root: str | Path) -> Project:
        """The checkout registered for exactly this directory on this machine."""
        found = self.checkout_at(root)
        if found is None:
            raise UnknownProject(_resolved(root))
        return found

    def projects(self) -> list[Project]:
        """Every registered project, by id (each in its first checkout on this machine)."""
        # The reserved owner of the workspaces' streams is never a project.
        ids = self._conn.scalars(
            sa.select(projects.c.project_id)
            .where(projects.c.project_id != WORKSPACES_OWNER)
            .order_by(projects.c.project_id)
        )
        return [self.project(pid) for pid in ids]

    def checkouts(self) -> list[Project]:
        """Every checkout on this machine, by id."""
        rows = self._conn.execute(
            _JOINED.where(checkouts.c.machine == this_machine()).order_by(checkouts.c.checkout_id)
        ).all()
        return [_from_row(r) for r in rows]

    def unclaimed_at(self, root: str | Path) -> Project | None:
        """A checkout at this path under another machine name, of a project from before
        identities (no id file anywhere): this machine under a new host name."""
        row = self._conn.execute(
            _JOINED.where(checkouts.c.root == _resolved(root), projects.c.identity.is_(None))
        ).first()
        return None if row is None else _from_row(row)

    def project_with_identity(self, identity: str) -> str | None:
        return self._conn.scalar(
            sa.select(projects.c.project_id).where(projects.c.identity == identity)
        )

    def identity(self, project: str) -> str | None:
        return self._conn.scalar(
            sa.select(projects.c.identity).where(projects.c.project_id == project)
        )


class ProjectWrites(Appends, ProjectReads):
    def register_project(
        self, root: str | Path, *, timezone: str = "", identity: str | None = None
    ) -> Project:
        """The checkout of ``root`` on this machine: the one registered there, else the
        project of ``identity`` (the folder's id file) joined — a checkout of it on this
        machine whose folder no longer holds that id moved here — else a new project."""
        resolved = _resolved(root)
        check_timezone(timezone)
        found = self.checkout_at(resolved)
        if found is not None:
            known = self.identity(found.project_id)
            if identity is not None and known is not None and known != identity:
                raise Refused(
                    f"{resolved} is registered as project {found.project_id}, but its "
                    f"orbital/{PROJECT_ID_FILE} names another project ({identity}): restore "
                    "the file, or move the folder and run `orbital init` there"
                )
            if known is None:
                self._set_identity(found.project_id, identity or uuid.uuid4().hex)
            return found
        unclaimed = None if identity is not None else self.unclaimed_at(resolved)
        if unclaimed is not None:
            self._conn.execute(
                checkouts.update()
                .where(checkouts.c.checkout_id == unclaimed.checkout)
                .values(machine=this_machine())
            )
            self._set_identity(unclaimed.project_id, uuid.uuid4().hex)
            return unclaimed
        project_id = None if identity is None else self.project_with_identity(identity)
        if project_id is None:
            return self._new_project(resolved, timezone, identity or uuid.uuid4().hex)
        for checkout in self._checkouts_of(project_id):
            if identity_in(checkout.root) != identity:
                return self._move(checkout, resolved)
        return self._add_checkout(project_id, resolved)

    def _checkouts_of(self, project_id: str) -> list[Project]:
        rows = self._conn.execute(
            _JOINED.where(
                checkouts.c.project_id == project_id, checkouts.c.machine == this_machine()
            ).order_by(checkouts.c.checkout_id)
        ).all()
        return [_from_row(r) for r in rows]

    def _set_identity(self, project_id: str, identity: str) -> None:
        self._conn.execute(
            projects.update().where(projects.c.project_id == project_id).values(identity=identity)
        )

    def _move(self, checkout: Project, root: str) -> Project:
        """A checkout whose folder was renamed or moved: its checkpoints stay (stat
        and hash of its files, which moved with it)."""
        self._conn.execute(
            checkouts.update().where(checkouts.c.checkout_id == checkout.checkout).values(root=root)
        )
        self._conn.execute(
            projects.update()
            .where(projects.c.project_id == checkout.project_id, projects.c.root == checkout.root)
            .values(root=root)
        )
        return Project(
            checkout.project_id, root, checkout.timezone, checkout.registered_at, checkout.checkout
        )

    def _add_checkout(self, project_id: str, root: str) -> Project:
        taken = set(
            self._conn.scalars(
                sa.select(checkouts.c.checkout_id).where(checkouts.c.project_id == project_id)
            )
        )
        checkout_id, n = project_id, 1
        while checkout_id in taken:
            n += 1
            checkout_id = f"{project_id}.{n}"
        self._conn.execute(
            checkouts.insert().values(
                checkout_id=checkout_id,
                project_id=project_id,
                machine=this_machine(),
                root=root,
                registered_at=naive_utc(self._store.clock.now()),
            )
        )
        return self.project(checkout_id)

    def _new_project(self, resolved: str, timezone: str, identity: str) -> Project:
        taken = set(self._conn.scalars(sa.select(projects.c.project_id)))
        base = _slug(Path(resolved).name)
        project_id, n = base, 1
        while project_id in taken:
            n += 1
            project_id = f"{base}-{n}"
        now = self._store.clock.now()
        # ``projects.root`` (unique) is the folder a project was first registered in; the
        # same path on another machine of a shared store is another folder.
        first = self._conn.scalar(
            sa.select(projects.c.project_id).where(projects.c.root == resolved)
        )
        self._conn.execute(
            projects.insert().values(
                project_id=project_id,
                root=resolved if first is None else f"{this_machine()}:{resolved}",
                timezone=timezone,
                registered_at=naive_utc(now),
                identity=identity,
            )
        )
        self.append(
            project_id,
            PROJECT_STREAM,
            [ProjectRegistered(root=resolved, timezone=timezone)],
            expected_version=0,
            actor=Actor.SYSTEM,
        )
        return self._add_checkout(project_id, resolved)
