"""Checkouts: one project's memory projected into several folders (on one machine or many
sharing a PostgreSQL store), each with its own checkpoints and hand-edit intake.

A folder belongs to a project by the identity in its committed ``orbital/project-id`` file,
not by its path: another clone joins the project, a renamed or moved folder keeps it. A
checkout is brought up to date by an ordinary unit of work (``sync``): every unit writes the
files its checkpoints show behind the log, whoever appended.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orbital.catalogue import MEMORY_DIR, MEMORY_FILES, PROJECT_ID_FILE
from orbital.domain.projects import named
from orbital.errors import ProjectElsewhere, UnknownProject
from orbital.events import Actor
from orbital.project import (
    Project,
    identity_above,
    identity_in,
    locate,
    public_url,
    remember_store,
    stores_knowing,
)
from orbital.service._asks_file import ASKS_FILE
from orbital.service._asks_state import ASKS_PREFIX
from orbital.service._context import SyncReport
from orbital.service._memory_state import MEMORY_KEYS
from orbital.service._unit import Units
from orbital.store import EventStore, LogWatch, Reader, Writer


def register(
    w: Writer, path: Path, timezone: str, *, new_project: bool = False, name: str | None = None
) -> Project:
    """The checkout of ``path`` (registered, joined or moved here: see
    ``Writer.register_project``), its ``orbital/`` directory and id file written;
    ``new_project``: the folder's id file is not followed, so an unregistered folder becomes
    a new project whose own id replaces it; ``name``: a new project's display name."""
    identity = None if new_project else identity_in(path)
    project = w.register_project(path, timezone=timezone, identity=identity, name=name)
    (path / MEMORY_DIR).mkdir(exist_ok=True)
    known = w.identity(project.project_id)
    if known is not None and known != identity:
        target = path / MEMORY_DIR / PROJECT_ID_FILE
        temp = target.with_name(f".{PROJECT_ID_FILE}.{os.getpid()}.tmp")
        temp.write_text(f"{known}\n", "utf-8")
        os.replace(temp, target)
    return project


@contextmanager
def registering(
    w: Writer, path: Path, timezone: str, *, new_project: bool = False, name: str | None = None
) -> Iterator[Project]:
    """:func:`register` for a block that may fail: then its transaction rolls back, so the
    id file it wrote would name a project no store has (and the next ``init`` would refuse
    the folder as another store's); it is put back as it was."""
    id_file = path / MEMORY_DIR / PROJECT_ID_FILE
    before = id_file.read_bytes() if id_file.is_file() else None
    project = register(w, path, timezone, new_project=new_project, name=name)
    try:
        yield project
    except BaseException:
        if before is None:
            id_file.unlink(missing_ok=True)
        elif id_file.read_bytes() != before:
            id_file.write_bytes(before)
        raise


def checkout_of(store: EventStore, path: Path) -> Project:
    """The checkout ``path`` is in (:func:`orbital.project.locate`), joined or registered
    here when the walk found a folder of a known project not registered yet."""
    with store.reader() as r:
        found = locate(r, path)
        if found is None:
            elsewhere(store, r, path)
            return r.project_for_root(path)  # raises UnknownProject
    if isinstance(found, Project):
        return found
    with store.writing() as w:
        joined = register(w, found, "")
    remember(store, joined)
    return joined


def elsewhere(store: EventStore, r: Reader, path: Path) -> None:
    """Refuse a folder not registered here whose committed id names a project ``store``
    does not know (:class:`ProjectElsewhere`, naming the stores this user's record says
    know it)."""
    identity = identity_above(path)
    if identity is None or r.project_with_identity(identity) is not None:
        return
    for folder in (path, *path.parents):
        if r.checkout_at(folder) is not None:
            return
        if identity_in(folder) is not None:
            break
    known = tuple(s for s in stores_knowing(identity) if s != public_url(store.url))
    raise ProjectElsewhere(str(path), identity, public_url(store.url), known)


def remember(store: EventStore, project: Project) -> None:
    """This user's record gets ``store`` as the store of ``project``'s identity."""
    with store.reader() as r:
        identity = r.identity(project.project_id)
    if identity is not None:
        remember_store(identity, store.url)


def unmerged_files(units: Units, r: Reader, project: Project) -> list[str]:
    """Projected files changed on disk and not taken in yet."""
    asks = [ASKS_FILE] if units.asks_file.unmerged(r, project) else []
    return units.memory.unmerged(r, project) + asks


def behind(units: Units, r: Reader, checkout: Project) -> bool:
    """Whether a checkout's files were written before the log's last change to them (or
    not written at all), read without the write lock: a follower's cheap look."""
    pid = checkout.project_id
    memory = units.memory.load(r, pid)
    for key in MEMORY_KEYS:
        changed, written = memory.changed_at[key], r.checkpoint(checkout, MEMORY_FILES[key])
        if changed and (written is None or written.position < changed):
            return True
    written = r.checkpoint(checkout, ASKS_FILE)
    head = r.prefix_head(pid, ASKS_PREFIX)
    return head > 0 and (written is None or written.position < head)


class Checkouts:
    """This machine's checkouts and what a follower needs to keep their files current."""

    def __init__(self, units: Units) -> None:
        self.units = units
        self.store = units.ctx.store

    def find(self, ref: str | Path) -> Project:
        """A project by id (or by its display name, when one project has it), or by its
        directory (or any directory inside it) in that folder's checkout, which this process
        then works in (a folder whose id file names a known project joins it: a clone, or
        the folder moved)."""
        if isinstance(ref, str) and "/" not in ref and not Path(ref).exists():
            try:
                return self.store.project(ref)
            except UnknownProject:
                with self.store.reader() as r:
                    pid = named(r.names(), ref)
                if pid is None:
                    raise
                return self.store.project(pid)
        found = checkout_of(self.store, Path(ref).expanduser().resolve())
        self.store.pin(found)
        return found

    def refuse_elsewhere(self, path: Path) -> None:
        """Refuse to register ``path`` when it is a checkout of a project kept in another
        store (:func:`elsewhere`)."""
        with self.store.reader() as r:
            elsewhere(self.store, r, path)

    def remember(self, project: Project) -> None:
        """Record this store as ``project``'s for the user (:func:`remember`)."""
        remember(self.store, project)

    def all(self) -> list[Project]:
        """Every checkout on this machine (folders of projects), by id."""
        with self.units.ctx.store.reader() as r:
            return r.checkouts()

    def watch(self) -> LogWatch:
        """A waiter woken when any process (any machine) appends to the store."""
        return self.units.ctx.store.watch_log()

    def behind(self, checkout: Project) -> bool:
        """Whether a checkout's files are behind the log (a cheap read, no lock)."""
        with self.units.ctx.store.reader() as r:
            return behind(self.units, r, checkout)

    def unmerged(self, checkout: Project) -> list[str]:
        """The checkout's projected files changed on disk and not taken in yet."""
        with self.store.reader() as r:
            return unmerged_files(self.units, r, checkout)

    def sync(self, checkout: Project) -> SyncReport:
        """Take in the checkout's hand edits and rewrite its stale files."""
        with self.units.begin(checkout, Actor.SYSTEM) as u:
            u.refuse_planted()
            u.sync_memory()
            u.sync_asks()
        return SyncReport(u.warnings, u.events, u.conflicts)
