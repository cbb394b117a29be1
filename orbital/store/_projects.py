"""The projects registry: a project found by its identity (the committed ``orbital/project-id``
file), which is also a new project's id (a project from before issue 31 keeps the slug of its
first folder's name as its id), with a display name people read and may change, projected into
one checkout per folder and machine."""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

from orbital.catalogue import PROJECT_ID_FILE, PROJECT_STREAM, WORKSPACES_OWNER
from orbital.domain.projects import check_project_id, display_name, folder_name
from orbital.errors import Refused, UnknownProject
from orbital.events import Actor, ProjectRegistered
from orbital.project import Project, check_timezone, identity_in, this_machine
from orbital.store._appends import Appends
from orbital.store._base import Transaction, naive_utc
from orbital.store._first_reads import JOINED, FirstReads, from_row
from orbital.store._first_reads import resolved as resolved_path


class ProjectReads(Transaction, FirstReads):
    def project(self, ref: str) -> Project:
        """A checkout by its id, or a project by its id in its first checkout on this
        machine (else its first checkout anywhere)."""
        row = self._conn.first(f"{JOINED} WHERE k.checkout_id = :ref", {"ref": ref})
        if row is None or row[0] == ref:
            rows = self._conn.execute(
                f"{JOINED} WHERE k.project_id = :ref ORDER BY k.registered_at, k.checkout_id",
                {"ref": ref},
            )
            local = [r for r in rows if r[5] == this_machine()]
            row = (local or rows)[0] if rows else row  # else a checkout's own id
        if row is None:
            raise UnknownProject(ref)
        return from_row(row)

    def project_for_root(self, root: str | Path) -> Project:
        """The checkout registered for exactly this directory on this machine."""
        found = self.checkout_at(root)
        if found is None:
            raise UnknownProject(resolved_path(root))
        return found

    def projects(self) -> list[Project]:
        """Every registered project, by id (each in its first checkout on this machine)."""
        # The reserved owner of the workspaces' streams is never a project.
        ids = self._conn.scalars(
            "SELECT project_id FROM projects WHERE project_id != :owner ORDER BY project_id",
            {"owner": WORKSPACES_OWNER},
        )
        return [self.project(pid) for pid in ids]

    def checkouts(self) -> list[Project]:
        """Every checkout on this machine, by id."""
        rows = self._conn.execute(
            f"{JOINED} WHERE k.machine = :machine ORDER BY k.checkout_id",
            {"machine": this_machine()},
        )
        return [from_row(r) for r in rows]

    def names(self) -> dict[str, str]:
        """Every registered project's id -> its display name, by id."""
        rows = self._conn.execute(
            "SELECT project_id, name FROM projects WHERE project_id != :owner ORDER BY project_id",
            {"owner": WORKSPACES_OWNER},
        )
        return {str(pid): str(name) for pid, name in rows}

    def identity(self, project: str) -> str | None:
        found = self._conn.scalar(
            "SELECT identity FROM projects WHERE project_id = :p", {"p": project}
        )
        return None if found is None else str(found)


class ProjectWrites(Appends, ProjectReads):
    def register_project(
        self,
        root: str | Path,
        *,
        timezone: str = "",
        identity: str | None = None,
        name: str | None = None,
    ) -> Project:
        """The checkout of ``root`` on this machine: the one registered there, else the
        project of ``identity`` (the folder's id file) joined — a checkout of it on this
        machine whose folder no longer holds that id moved here — else a new project, whose
        id is ``identity`` (a new random one when None) and whose display name is ``name``
        (default: the folder's name)."""
        resolved = resolved_path(root)
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
            self._conn.run(
                "UPDATE checkouts SET machine = :machine WHERE checkout_id = :k",
                {"machine": this_machine(), "k": unclaimed.checkout},
            )
            self._set_identity(unclaimed.project_id, uuid.uuid4().hex)
            return unclaimed
        project_id = None if identity is None else self.project_with_identity(identity)
        if project_id is None:
            return self._new_project(resolved, timezone, identity or uuid.uuid4().hex, name)
        for checkout in self._checkouts_of(project_id):
            if identity_in(checkout.root) != identity:
                return self._move(checkout, resolved)
        return self._add_checkout(project_id, resolved)

    def register_imported(
        self,
        root: str | Path,
        *,
        project_id: str,
        identity: str,
        timezone: str,
        registered_at: dt.datetime,
    ) -> Project:
        """A project that comes with its log (an exported file): registered under its own
        id, identity, timezone and registration time, checked out at ``root``; its events,
        its ``project.registered`` first among them, are the file's to append (and its name
        their fold's: :meth:`set_name` after them)."""
        resolved = resolved_path(root)
        check_timezone(timezone)
        other = self._conn.scalar(
            "SELECT identity FROM projects WHERE project_id = :p", {"p": project_id}
        )
        if other is not None or project_id == WORKSPACES_OWNER:
            raise Refused(
                f"this store already has another project with the id {project_id} (its "
                f"orbital/{PROJECT_ID_FILE} differs); nothing was imported"
            )
        self._insert_project(project_id, resolved, timezone, registered_at, identity, project_id)
        return self._add_checkout(project_id, resolved)

    def _checkouts_of(self, project_id: str) -> list[Project]:
        rows = self._conn.execute(
            f"{JOINED} WHERE k.project_id = :p AND k.machine = :machine ORDER BY k.checkout_id",
            {"p": project_id, "machine": this_machine()},
        )
        return [from_row(r) for r in rows]

    def _set_identity(self, project_id: str, identity: str) -> None:
        self._conn.run(
            "UPDATE projects SET identity = :identity WHERE project_id = :p",
            {"identity": identity, "p": project_id},
        )

    def _move(self, checkout: Project, root: str) -> Project:
        """A checkout whose folder was renamed or moved: its checkpoints stay (stat
        and hash of its files, which moved with it)."""
        self._conn.run(
            "UPDATE checkouts SET root = :root WHERE checkout_id = :k",
            {"root": root, "k": checkout.checkout},
        )
        self._conn.run(
            "UPDATE projects SET root = :root WHERE project_id = :p AND root = :old",
            {"root": root, "p": checkout.project_id, "old": checkout.root},
        )
        return Project(
            checkout.project_id, root, checkout.timezone, checkout.registered_at, checkout.checkout
        )

    def _add_checkout(self, project_id: str, root: str) -> Project:
        taken = set(
            self._conn.scalars(
                "SELECT checkout_id FROM checkouts WHERE project_id = :p", {"p": project_id}
            )
        )
        checkout_id, n = project_id, 1
        while checkout_id in taken:
            n += 1
            checkout_id = f"{project_id}.{n}"
        self._conn.run(
            "INSERT INTO checkouts (checkout_id, project_id, machine, root, registered_at)"
            " VALUES (:k, :p, :machine, :root, :at)",
            {
                "k": checkout_id,
                "p": project_id,
                "machine": this_machine(),
                "root": root,
                "at": naive_utc(self._store.clock.now()),
            },
        )
        return self.project(checkout_id)

    def set_name(self, project_id: str, name: str) -> None:
        """The row's display name, as the project stream's newest ``project.renamed`` gives
        it (appended in this transaction)."""
        self._conn.run(
            "UPDATE projects SET name = :name WHERE project_id = :p",
            {"name": name, "p": project_id},
        )

    def _new_project(
        self, resolved: str, timezone: str, identity: str, name: str | None
    ) -> Project:
        """A project whose id is its identity: the folder's name is only its display name,
        so another folder of that name is another project, never ``<name>-2``."""
        project_id = check_project_id(identity)
        shown = display_name(name) if name else folder_name(resolved)
        now = self._store.clock.now()
        self._insert_project(project_id, resolved, timezone, now, identity, shown)
        self.append(
            project_id,
            PROJECT_STREAM,
            [ProjectRegistered(root=resolved, timezone=timezone, name=shown)],
            expected_version=0,
            actor=Actor.SYSTEM,
        )
        return self._add_checkout(project_id, resolved)

    def _insert_project(
        self,
        project_id: str,
        resolved: str,
        timezone: str,
        at: dt.datetime,
        identity: str | None,
        name: str,
    ) -> None:
        """The project's row. ``projects.root`` (unique) is the folder a project was first
        registered in; the same path on another machine of a shared store is another folder."""
        first = self._conn.scalar(
            "SELECT project_id FROM projects WHERE root = :root", {"root": resolved}
        )
        self._conn.run(
            "INSERT INTO projects (project_id, root, timezone, registered_at, identity, name)"
            " VALUES (:p, :root, :timezone, :at, :identity, :name)",
            {
                "p": project_id,
                "root": resolved if first is None else f"{this_machine()}:{resolved}",
                "timezone": timezone,
                "at": naive_utc(at),
                "identity": identity,
                "name": name,
            },
        )
