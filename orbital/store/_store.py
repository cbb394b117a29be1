"""The event store: two databases (writes serialised by one lock, reads that never wait for
it) handing out :class:`Reader` and :class:`Writer` transactions."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING

import msgspec

from orbital.clock import Clock, FixedClock, SystemClock
from orbital.errors import DiskFull, StoreCorrupt, StoreReadOnly
from orbital.project import Project
from orbital.store._base import Reducer
from orbital.store._changes import ChangeCounter, NotifiedChanges
from orbital.store._db import Database, busy_timeout_ms, default_url
from orbital.store._faults import fault
from orbital.store._file import StoreFile
from orbital.store._migrate import at_newest_revision, upgrade_schema
from orbital.store._open import display_url, open_database, sqlite_path
from orbital.store._queue import WriterQueue
from orbital.store._reads import Reader
from orbital.store._writer import Writer

if TYPE_CHECKING:
    from orbital.store._follow import LogWatch


class StoreStatus(msgspec.Struct, frozen=True):
    """``state`` is ``ok`` or what keeps the store from taking writes; ``detail`` says why."""

    state: str
    detail: str
    database: str


class EventStore:
    """The event store (SQLite default, PostgreSQL for teams; :mod:`orbital.store._db`,
    opened by :mod:`orbital.store._open`).

    Every read goes through a :class:`Reader` (:meth:`reader`) and every write through a
    :class:`Writer` (:meth:`writing`), one transaction each."""

    def __init__(
        self,
        url: str | None = None,
        *,
        clock: Clock | None = None,
        reducers: Mapping[str, Reducer] | None = None,
        timeout_ms: int | None = None,
        upgrade: bool = True,
        create: bool = True,
        warn: Callable[[str], None] | None = None,
        damaged_ok: bool = False,
    ) -> None:
        """``create``: a SQLite store file may be created where none is (see
        :mod:`orbital.store._file`). ``warn`` tells the person running Orbital something
        they should know (default: a ``warning:`` line on stderr). ``damaged_ok``: a store
        found damaged at open is opened anyway for the reads that still work, every write
        refused (a server: :meth:`status` says so)."""
        self.url = url or default_url()
        self._shown_url: str | None = None
        self.clock: Clock = clock or SystemClock()
        self._warn = warn or _to_stderr
        self._warned_clock = False
        self.timeout_ms = busy_timeout_ms() if timeout_ms is None else timeout_ms
        #: Materialised state per stream category, folded in the append transaction.
        self.reducers: Mapping[str, Reducer] = dict(reducers or {})
        self._write_db = self._open(immediate=True)
        self._read_db = self._open(immediate=False)
        path = sqlite_path(self.url)
        self._file = None if path is None else StoreFile(path, create=create, now=self._now)
        #: SQLite writers take turns on a lock file first (fair, unlike SQLite's busy wait).
        self._queue = None if path is None else WriterQueue(path)
        self._changes: ChangeCounter | NotifiedChanges = (
            NotifiedChanges(self.url) if path is None else ChangeCounter(path)
        )
        self.known_projects: set[str] = set()
        self._projects: dict[str, Project] = {}
        #: The free bytes on the store's disk when a write last found it full (0 where that
        #: cannot be asked: PostgreSQL); None once a write commits again.
        self._full: int | None = None
        #: Opened on a store that cannot be written: reads see it as immutable (SQLite cannot
        #: create the ``-shm`` beside it), writes are refused until it is writable again.
        self._read_only = self._file is not None and self._file.read_only()
        #: Found damaged (at open with ``damaged_ok``, or by any read since): every write is
        #: refused with this.
        self._damaged: StoreCorrupt | None = None
        #: Called once, when a read first finds the store damaged (a server says so then).
        self.on_damaged: Callable[[], None] | None = None
        try:
            self._start(upgrade=upgrade)
        except StoreCorrupt as exc:
            if not damaged_ok:
                self.close()
                raise
            self._damaged = exc
        except BaseException:
            self.close()  # no connection left for the garbage collector to find open
            raise

    def _now(self) -> dt.datetime:
        return self.clock.now()

    def _start(self, *, upgrade: bool) -> None:
        if self._read_only:
            self._read_db.dispose()
            self._read_db = open_database(self.url, immediate=False, timeout_ms=0, immutable=True)
        else:
            if upgrade:
                self.upgrade()
            with self._guard():
                self._write_db.touch()  # open (create) the file, so its identity can be taken
        if self._file is not None:
            self._file.opened()

    def _open(self, *, immediate: bool) -> Database:
        return open_database(self.url, immediate=immediate, timeout_ms=self.timeout_ms)

    @property
    def backend(self) -> str:
        return self._write_db.dialect

    @property
    def database_version(self) -> str:
        """The database underneath, e.g. ``SQLite 3.53.4`` or ``PostgreSQL 16.4``."""
        return self._write_db.version

    @property
    def integrity_errors(self) -> tuple[type[BaseException], ...]:
        """What the driver raises for a violated constraint."""
        return self._write_db.integrity

    def status(self) -> StoreStatus:
        """How the store is: ``ok`` or ``store-gone`` (its file deleted or replaced), with
        what to know about it; cheap enough for every health check."""
        if self._file is not None and (gone := self._file.problem()) is not None:
            detail = f"the store {self._file.path} {gone[0]}; {gone[1]}"
            return StoreStatus("store-gone", detail, self.database_version)
        if self._damaged is not None:
            detail = (
                f"the store {self._display_url()} is damaged ({self._damaged.detail}): only "
                "the reads that do not meet the damage work, every write is refused; restore "
                "it from a backup (`sqlite3 FILE .recover` may save what is left)"
            )
            return StoreStatus("store-corrupt", detail, self.database_version)
        if self._read_only or (self._file is not None and self._file.read_only()):
            detail = f"the store {self._display_url()} is read-only: reads work, writes wait"
            return StoreStatus("read-only", detail, self.database_version)
        if self._disk_full():
            detail = (
                f"the disk holding the store {self._display_url()} is full: reads work, "
                "writes are refused until space is freed"
            )
            return StoreStatus("disk-full", detail, self.database_version)
        return StoreStatus("ok", "", self.database_version)

    def _disk_full(self) -> bool:
        """No room on the store's disk now, or a write found none and no space was freed
        since (SQLite); a write found none and none committed since (PostgreSQL)."""
        if self._file is None:
            return self._full is not None
        free = self._file.free()
        return free == 0 or (self._full is not None and free <= self._full)

    def _writable_again(self) -> None:
        """Leave read-only mode once the store can be written, else refuse the write before
        anything is touched."""
        assert self._file is not None
        if self._file.read_only():
            raise StoreReadOnly(self._display_url())
        self._read_db.dispose()
        self._read_db = self._open(immediate=False)
        self._read_only = False

    def clock_behind(self, now: dt.datetime, last: dt.datetime) -> None:
        """The clock says ``now``, before the store's last event at ``last`` (naive UTC), so
        the append is recorded at ``last``. A pinned clock (``ORBITAL_NOW``) doing so is
        said once: times in the log are not the ones pinned."""
        if self._warned_clock or not isinstance(self.clock, FixedClock):
            return
        self._warned_clock = True
        pinned, kept = f"{now:%Y-%m-%dT%H:%M:%SZ}", f"{last:%Y-%m-%dT%H:%M:%SZ}"
        self._warn(
            f"the pinned clock (ORBITAL_NOW) says {pinned}, earlier than the store's last event "
            f"({kept}); events are recorded at {kept} instead, since the log's time never "
            "runs backwards. Pin a later time, or unset ORBITAL_NOW"
        )

    def upgrade(self) -> None:
        """Bring the schema to the newest Alembic revision (no-op when already there). The
        check is a read, which waits for no writer; Alembic runs in the writers' turn."""
        with self._guard():
            if at_newest_revision(self._read_db):
                return
        with self._turn(), self._guard():
            upgrade_schema(self._write_db)

    def compact(self, tables: Sequence[str]) -> bool:
        """Make the bytes a purge replaced leave the database's files, in the writers' turn
        (:meth:`Database.compact`); False when SQLite's WAL could not be cut (a reader of
        another process held it): the next checkpoint does it."""
        with self._turn(), self._guard():
            return self._write_db.compact(tables)

    def analyze(self, tables: Sequence[str]) -> None:
        """Refresh the planner's statistics after a bulk load (:meth:`Database.analyze`)."""
        with self._guard():
            self._write_db.analyze(tables)

    def changes(self) -> int | None:
        """A number that changes whenever anyone commits to the store (SQLite; PostgreSQL
        once :meth:`listen_for_changes`; None when unknown): a cache of reads keyed by it
        needs no query to be current (:mod:`orbital.store._changes`)."""
        return None if self._read_only else self._changes.value()

    def listen_for_changes(self) -> None:
        """A long-lived process's :meth:`changes` on PostgreSQL: listen for every commit's
        notification from now on (SQLite's number needs nothing)."""
        if isinstance(self._changes, NotifiedChanges):
            self._changes.start()
            self._changes.wait_listening(2.0)

    def close(self) -> None:
        self._changes.close()
        self._write_db.dispose()
        self._read_db.dispose()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def writing(self) -> Iterator[Writer]:
        """One write transaction; commits on success, rolls back entirely on any error.

        Callbacks registered with :meth:`Writer.on_commit` run after the commit returned;
        those registered with :meth:`Writer.on_rollback` run when it did not."""
        if self._damaged is not None:
            raise StoreCorrupt(self._damaged.where, self._damaged.detail)
        if self._read_only:
            self._writable_again()
        writer: Writer | None = None
        try:
            with self._turn(), self._guard(), self._write_db.begin() as conn:
                writer = Writer(self, conn)
                yield writer
                if self._file is not None:
                    self._file.check()  # the commit would go to a file no one opens again
        except BaseException as exc:
            if isinstance(exc, DiskFull):
                self._full = 0 if self._file is None else self._file.free()
            if writer is not None:
                for undo in reversed(writer._on_rollback):
                    undo()
            raise
        self._full = None
        self._changes.committed()
        for done in writer._on_commit:
            done()

    @contextmanager
    def reader(self) -> Iterator[Reader]:
        """A read transaction: a consistent snapshot that never waits for the writer."""
        with self._guard(), self._read_db.begin() as conn:
            yield Reader(self, conn)

    def project(self, project: str) -> Project:
        """A registered project (by its id, in the checkout this process works in: see
        :meth:`pin`), or a checkout by its id. Projects are never removed once registered, so
        a found one is kept in memory (the HTTP routes look one up on every request)."""
        found = self._projects.get(project)
        if found is None:
            with self.reader() as r:
                found = self._projects[project] = r.project(project)
        return found

    def watch_log(self) -> LogWatch:
        """A waiter woken when any process appends (see :mod:`orbital.store._follow`)."""
        from orbital.store._follow import LogWatch

        return LogWatch(self.url, sqlite_path(self.url))

    def pin(self, checkout: Project) -> None:
        """Work in ``checkout`` whenever this process names its project by id (a command
        run in a folder works in that folder's checkout)."""
        self._projects[checkout.project_id] = self._projects[checkout.checkout] = checkout

    def _turn(self) -> AbstractContextManager[None]:
        """This writer's turn on the store (SQLite: the writers' queue; PostgreSQL queues
        lock waits itself)."""
        if self._queue is None:
            return nullcontext()
        return self._queue.turn(self._display_url(), self.timeout_ms)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Map driver errors to Orbital's typed errors."""
        try:
            yield
        except self._write_db.errors as exc:
            typed = fault(exc, self._display_url(), self.timeout_ms, self._file)
            if typed is None:
                raise
            if isinstance(typed, StoreCorrupt):
                first, self._damaged = self._damaged is None, typed  # no write from now on
                if first and self.on_damaged is not None:
                    self.on_damaged()
            if isinstance(typed, StoreReadOnly):
                self._write_db.dispose()  # its connections stay read-only once opened so
            raise typed from exc

    @property
    def location(self) -> str:
        """Where the store is, as a person finds it: a SQLite store's file (absolute), else
        its URL with any password hidden."""
        if self._file is not None:
            return str(self._file.path.absolute())
        return self._display_url()

    def _display_url(self) -> str:
        if self._shown_url is None:
            self._shown_url = display_url(self.url)
        return self._shown_url


def _to_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
