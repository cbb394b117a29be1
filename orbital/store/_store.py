"""The event store: append with optimistic concurrency, idempotent retries, reads by stream
and by project, and materialised stream state kept in the same transaction as the append."""

from __future__ import annotations

import datetime as dt
import re
import uuid
import zlib
import zoneinfo
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine

from orbital.clock import Clock, SystemClock
from orbital.errors import (
    Conflict,
    DuplicateEventId,
    InvalidInput,
    OrbitalError,
    StoreLocked,
    UnknownProject,
)
from orbital.events import Actor, Event, ProjectRegistered, RecordedEvent, decode_event
from orbital.events import encode_event as _encode
from orbital.events import event_type as _event_type
from orbital.store._engine import (
    busy_timeout_ms,
    create_read_engine,
    create_write_engine,
    default_url,
)
from orbital.store._migrate import upgrade_schema
from orbital.store._schema import (
    checkpoints,
    events,
    heads,
    projections_written,
    projects,
    snapshots,
    streams,
)

PROJECT_STREAM = "project"

# Statements built once: building Core constructs per call costs more than executing them.
_SELECT_STREAM_HEAD = sa.select(
    sa.select(sa.func.max(events.c.position)).scalar_subquery().label("head"),
    sa.select(events.c.recorded_at)
    .order_by(events.c.position.desc())
    .limit(1)
    .scalar_subquery()
    .label("last_time"),
    sa.select(streams.c.version)
    .where(streams.c.project_id == sa.bindparam("p"), streams.c.stream == sa.bindparam("s"))
    .scalar_subquery()
    .label("version"),
    sa.select(streams.c.state)
    .where(streams.c.project_id == sa.bindparam("p"), streams.c.stream == sa.bindparam("s"))
    .scalar_subquery()
    .label("state"),
)
_INSERT_EVENTS = events.insert()
_INSERT_STREAM = streams.insert().values(
    project_id=sa.bindparam("p"),
    stream=sa.bindparam("s"),
    version=sa.bindparam("v"),
    last_position=sa.bindparam("last"),
    state=sa.bindparam("state"),
)


def _upsert_head(insert: Any) -> Any:
    """One statement per append (not per event) keeps the category's last position."""
    statement = insert(heads).values(
        project_id=sa.bindparam("p"),
        category=sa.bindparam("c"),
        last_position=sa.bindparam("last"),
    )
    return statement.on_conflict_do_update(
        index_elements=[heads.c.project_id, heads.c.category],
        set_={"last_position": statement.excluded.last_position},
    )


_UPSERT_HEAD_SQLITE = _upsert_head(sqlite_insert)
_UPSERT_HEAD_PG = _upsert_head(pg_insert)
_UPDATE_STREAM = (
    streams.update()
    .where(streams.c.project_id == sa.bindparam("p"), streams.c.stream == sa.bindparam("s"))
    .values(
        version=sa.bindparam("v"), last_position=sa.bindparam("last"), state=sa.bindparam("state")
    )
)

_SELECT_CATEGORY_HEAD = sa.select(sa.func.max(heads.c.last_position)).where(
    heads.c.project_id == sa.bindparam("p"), heads.c.category == sa.bindparam("c")
)
_SELECT_CATEGORIES_HEAD = sa.select(sa.func.max(heads.c.last_position)).where(
    heads.c.project_id == sa.bindparam("p"),
    heads.c.category >= sa.bindparam("lo"),
    heads.c.category < sa.bindparam("hi"),
)
_SELECT_STATES = (
    sa.select(streams.c.stream, streams.c.state)
    .where(
        streams.c.project_id == sa.bindparam("p"),
        streams.c.stream >= sa.bindparam("lo"),
        streams.c.stream < sa.bindparam("hi"),
        streams.c.last_position > sa.bindparam("after"),
    )
    .order_by(streams.c.last_position)
)
_SELECT_CHECKPOINT = sa.select(checkpoints).where(
    checkpoints.c.project_id == sa.bindparam("p"), checkpoints.c.name == sa.bindparam("n")
)
_CHECKPOINT_VALUES: dict[str, Any] = {
    "position": sa.bindparam("at"),
    "sha256": sa.bindparam("hash"),
    "size": sa.bindparam("bytes"),
    "mtime_ns": sa.bindparam("mtime"),
    "written_at": sa.bindparam("when"),
}
_UPDATE_CHECKPOINT = (
    checkpoints.update()
    .where(checkpoints.c.project_id == sa.bindparam("p"), checkpoints.c.name == sa.bindparam("n"))
    .values(**_CHECKPOINT_VALUES)
)
_INSERT_CHECKPOINT = checkpoints.insert().values(
    project_id=sa.bindparam("p"), name=sa.bindparam("n"), **_CHECKPOINT_VALUES
)
#: Above every character: ``name < prefix + _AFTER`` for every name that starts with prefix.
_AFTER = "\U0010ffff"


@dataclass(frozen=True, slots=True)
class Project:
    project_id: str
    root: str
    timezone: str
    registered_at: dt.datetime

    def tz(self) -> dt.tzinfo:
        """The project's timezone; "" means the machine's local zone."""
        if self.timezone:
            return zoneinfo.ZoneInfo(self.timezone)
        local = dt.datetime.now().astimezone().tzinfo
        assert local is not None
        return local


@dataclass(frozen=True, slots=True)
class AppendResult:
    positions: tuple[int, ...]
    #: The stream's version after the append.
    version: int
    #: True when the batch was already recorded (an idempotent retry appended nothing).
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What Orbital last wrote for a projection: the position rendered, and the file's
    size, mtime and hash (``sha256`` None after an incremental append)."""

    position: int
    size: int
    mtime_ns: int
    sha256: str | None


@dataclass(frozen=True, slots=True)
class Reducer:
    """Materialised state for one stream category (the text before ``:`` in a stream name).

    ``fold(state, event)`` is a pure fold; its result is stored as JSON with the stream's row
    in the same transaction as the append, so current state is one indexed read.
    """

    state_type: Any
    fold: Callable[[Any, RecordedEvent], Any]


def category(stream: str) -> str:
    return stream.split(":", 1)[0]


_LOCKED = re.compile(r"database is locked|database table is locked|busy", re.IGNORECASE)


def _is_lock_error(exc: sa.exc.DBAPIError) -> bool:
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if sqlstate in {"55P03", "40P01"}:  # lock_not_available, deadlock_detected
        return True
    return isinstance(exc, sa.exc.OperationalError) and bool(_LOCKED.search(str(exc.orig)))


def _naive_utc(value: dt.datetime) -> dt.datetime:
    if value.tzinfo is None:
        return value
    return value.astimezone(dt.UTC).replace(tzinfo=None)


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48]
    return slug or "project"


class Reader:
    """Reads inside one transaction: a consistent snapshot of the store.

    Obtained from :meth:`EventStore.reader` (the read engine: never takes the write lock) or
    as part of a :class:`Writer` (then the reads see the writer's own appends).
    """

    def __init__(self, store: EventStore, conn: Connection) -> None:
        self._store = store
        self._conn = conn

    @property
    def connection(self) -> Connection:
        """The transaction's connection, for tables kept beside the log (credentials)."""
        return self._conn

    def stream_version(self, project: str, stream: str) -> int:
        return self._store._stream_version(self._conn, project, stream)

    def state(self, project: str, stream: str) -> Any:
        return self._store._state(self._conn, project, stream)

    def states(self, project: str, prefix: str) -> dict[str, Any]:
        return self._store._states(self._conn, project, prefix)

    def read_stream(self, project: str, stream: str) -> list[RecordedEvent]:
        return list(self._store._read_stream(self._conn, project, stream))

    def read_project(self, project: str, **window: Any) -> list[RecordedEvent]:
        """Like :meth:`EventStore.read_project`, seeing this transaction's own appends."""
        return list(self._store._read_project(self._conn, project, **window))

    def states_after(self, project: str, prefix: str, after: int) -> dict[str, Any]:
        return self._store._states(self._conn, project, prefix, after)

    def prefix_head(self, project: str, prefix: str) -> int:
        return self._store._prefix_head(self._conn, project, prefix)

    def project_head(self, project: str) -> int:
        """The project's last position (0 when it has none): one indexed max()."""
        return self._store._head(self._conn, project)

    def checkpoint(self, project: str, name: str) -> Checkpoint | None:
        return self._store._checkpoint(self._conn, project, name)

    def snapshot(
        self, project: str, name: str, at_or_before: int | None = None
    ) -> tuple[int, bytes] | None:
        return self._store._snapshot(self._conn, project, name, at_or_before)

    def project(self, project: str) -> Project:
        return self._store._project(self._conn, project)

    def snapshot_position(self, project: str, name: str, at_or_before: int) -> int | None:
        """The position of the newest snapshot at or before a position (without its state)."""
        found = self._conn.scalar(
            sa.select(sa.func.max(snapshots.c.position)).where(
                snapshots.c.project_id == project,
                snapshots.c.name == name,
                snapshots.c.position <= at_or_before,
            )
        )
        return None if found is None else int(found)

    def count(
        self,
        project: str,
        stream_prefix: str,
        *,
        until_position: int,
        after_position: int = 0,
        types: Sequence[str] | None = None,
    ) -> int:
        """How many events (of the given types) a stream prefix holds in a position window."""
        query = sa.select(sa.func.count()).where(
            events.c.project_id == project,
            events.c.stream >= stream_prefix,
            events.c.stream < stream_prefix + _AFTER,
            events.c.position > after_position,
            events.c.position <= until_position,
        )
        if types is not None:
            query = query.where(events.c.type.in_(list(types)))
        return int(self._conn.scalar(query) or 0)

    def position_at(self, project: str, when: dt.datetime) -> int:
        """The project's last position recorded at or before ``when`` (0: none): one probe of
        the ``(project, recorded_at)`` index, since times never decrease along positions."""
        found = self._conn.scalar(
            sa.select(events.c.position)
            .where(events.c.project_id == project, events.c.recorded_at <= _naive_utc(when))
            .order_by(events.c.recorded_at.desc(), events.c.position.desc())
            .limit(1)
        )
        return int(found or 0)

    def recorded_at(self, project: str, position: int) -> dt.datetime | None:
        """When the project's event at or just before ``position`` was recorded."""
        found = self._conn.scalar(
            sa.select(events.c.recorded_at)
            .where(events.c.project_id == project, events.c.position <= position)
            .order_by(events.c.position.desc())
            .limit(1)
        )
        return None if found is None else found.replace(tzinfo=dt.UTC)

    def written_versions(self, project: str, name: str) -> dict[str, int]:
        """Every content hash written for projection ``name``, with its position."""
        rows = self._conn.execute(
            sa.select(projections_written.c.sha256, projections_written.c.position).where(
                projections_written.c.project_id == project,
                projections_written.c.name == name,
            )
        ).all()
        return {r.sha256: int(r.position) for r in rows}


class Writer(Reader):
    """One write transaction: reads inside it see a stable state, appends commit together.

    Obtained from :meth:`EventStore.writing`; on SQLite it holds the write lock from its first
    statement (``BEGIN IMMEDIATE``), on PostgreSQL an exclusive lock on ``events``; so
    load → decide → append cannot interleave with another writer.
    """

    def __init__(self, store: EventStore, conn: Connection) -> None:
        super().__init__(store, conn)
        self._on_commit: list[Callable[[], None]] = []
        self._on_rollback: list[Callable[[], None]] = []
        # Nothing else writes while this transaction holds the lock, so what it read of
        # heads and checkpoints stays true until it changes them itself.
        self._heads: dict[tuple[str, str], int] = {}
        self._checkpoints: dict[tuple[str, str], Checkpoint | None] = {}

    def prefix_head(self, project: str, prefix: str) -> int:
        key = (project, prefix)
        if key not in self._heads:
            self._heads[key] = super().prefix_head(project, prefix)
        return self._heads[key]

    def checkpoint(self, project: str, name: str) -> Checkpoint | None:
        key = (project, name)
        if key not in self._checkpoints:
            self._checkpoints[key] = super().checkpoint(project, name)
        return self._checkpoints[key]

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the transaction committed (e.g. publish a cached state:
        state read inside a transaction that rolls back must never be cached)."""
        self._on_commit.append(callback)

    def on_rollback(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` if the transaction does not commit (e.g. put a file back)."""
        self._on_rollback.append(callback)

    def save_snapshot(self, project: str, name: str, position: int, state: bytes) -> None:
        """Record folded state (JSON) as of ``position``; stored compressed. A second
        snapshot at the same position is ignored (it would hold the same state)."""
        found = self._store._snapshot(self._conn, project, name, position)
        if found is not None and found[0] == position:
            return
        self._conn.execute(
            snapshots.insert().values(
                project_id=project, name=name, position=position, state=zlib.compress(state, 6)
            )
        )

    def set_checkpoint(self, project: str, name: str, checkpoint: Checkpoint) -> None:
        """Record what was written for a projection, in this transaction (and, for a whole
        write, its hash among the versions ever written)."""
        table = projections_written
        if checkpoint.sha256 is not None and (
            self._conn.scalar(
                sa.select(table.c.position).where(
                    table.c.project_id == project,
                    table.c.name == name,
                    table.c.sha256 == checkpoint.sha256,
                )
            )
            is None
        ):
            self._conn.execute(
                projections_written.insert().values(
                    project_id=project,
                    name=name,
                    sha256=checkpoint.sha256,
                    position=checkpoint.position,
                )
            )
        values = {
            "p": project,
            "n": name,
            "at": checkpoint.position,
            "hash": checkpoint.sha256,
            "bytes": checkpoint.size,
            "mtime": checkpoint.mtime_ns,
            "when": _naive_utc(self._store.clock.now()),
        }
        if self._conn.execute(_UPDATE_CHECKPOINT, values).rowcount == 0:
            self._conn.execute(_INSERT_CHECKPOINT, values)
        self._checkpoints[project, name] = checkpoint

    def append(
        self,
        project: str,
        stream: str,
        batch: Sequence[Event],
        *,
        expected_version: int | None,
        actor: Actor,
        session: str | None = None,
        event_ids: Sequence[str] | None = None,
    ) -> AppendResult:
        """Append ``batch`` to ``stream`` of ``project``.

        ``expected_version`` is the stream version the caller decided against (0: the stream
        must not exist yet; ``None``: no check). A mismatch raises :class:`Conflict` and
        nothing is written. ``event_ids`` make retries idempotent: a batch whose ids are all
        recorded already returns the original positions and appends nothing.
        """
        result = self._store._append(
            self._conn, project, stream, batch, expected_version, actor, session, event_ids
        )
        if not result.duplicate:  # the newest position now, for every prefix covering it
            name = category(stream)
            for known, prefix in list(self._heads):
                covers = name == prefix[:-1] if prefix.endswith(":") else name.startswith(prefix)
                if known == project and covers:
                    self._heads[known, prefix] = result.positions[-1]
        return result


class EventStore:
    """The SQLAlchemy-Core event store (SQLite default, PostgreSQL for teams)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        clock: Clock | None = None,
        reducers: Mapping[str, Reducer] | None = None,
        timeout_ms: int | None = None,
        upgrade: bool = True,
    ) -> None:
        self.url = url or default_url()
        self.clock: Clock = clock or SystemClock()
        self.timeout_ms = busy_timeout_ms() if timeout_ms is None else timeout_ms
        self._reducers = dict(reducers or {})
        self._write_engine: Engine = create_write_engine(self.url, timeout_ms=self.timeout_ms)
        self._read_engine: Engine = create_read_engine(self.url, timeout_ms=self.timeout_ms)
        self._known_projects: set[str] = set()
        self._projects: dict[str, Project] = {}
        self._encoders = msgspec.json.Encoder()
        if upgrade:
            self.upgrade()

    @property
    def backend(self) -> str:
        return self._write_engine.dialect.name

    def upgrade(self) -> None:
        """Bring the schema to the newest Alembic revision (no-op when already there)."""
        with self._guard(), self._write_engine.connect() as conn:
            upgrade_schema(conn)

    def close(self) -> None:
        self._write_engine.dispose()
        self._read_engine.dispose()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- transactions ---------------------------------------------------------------------

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Map driver errors to Orbital's typed errors."""
        try:
            yield
        except sa.exc.DBAPIError as exc:
            if _is_lock_error(exc):
                raise StoreLocked(self._display_url(), self.timeout_ms) from exc
            raise

    def _display_url(self) -> str:
        return sa.make_url(self.url).render_as_string(hide_password=True)

    @contextmanager
    def writing(self) -> Iterator[Writer]:
        """One write transaction; commits on success, rolls back entirely on any error.

        Callbacks registered with :meth:`Writer.on_commit` run after the commit returned;
        those registered with :meth:`Writer.on_rollback` run when it did not."""
        writer: Writer | None = None
        try:
            with self._guard(), self._write_engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(sa.text("LOCK TABLE events IN EXCLUSIVE MODE"))
                writer = Writer(self, conn)
                yield writer
        except BaseException:
            if writer is not None:
                for undo in reversed(writer._on_rollback):
                    undo()
            raise
        for done in writer._on_commit:
            done()

    @contextmanager
    def reader(self) -> Iterator[Reader]:
        """A read transaction with the :class:`Reader` API; never waits for the writer."""
        with self.reading() as conn:
            yield Reader(self, conn)

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read transaction: a consistent snapshot that takes no write lock."""
        with self._guard(), self._read_engine.begin() as conn:
            yield conn

    # -- projects -------------------------------------------------------------------------

    def register_project(self, root: str | Path, *, timezone: str = "") -> Project:
        """Register a project directory (idempotent: the same root returns the same project)."""
        resolved = str(Path(root).expanduser().resolve())
        if timezone:
            try:
                zoneinfo.ZoneInfo(timezone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise InvalidInput(
                    f"unknown timezone {timezone!r}: use an IANA name such as Europe/Berlin"
                ) from None
        with self.writing() as writer:
            conn = writer._conn
            row = conn.execute(sa.select(projects).where(projects.c.root == resolved)).first()
            if row is not None:
                return self._project_from_row(row)
            taken = set(conn.scalars(sa.select(projects.c.project_id)))
            base = _slug(Path(resolved).name)
            project_id, n = base, 1
            while project_id in taken:
                n += 1
                project_id = f"{base}-{n}"
            now = self.clock.now()
            conn.execute(
                projects.insert().values(
                    project_id=project_id,
                    root=resolved,
                    timezone=timezone,
                    registered_at=_naive_utc(now),
                )
            )
            writer.append(
                project_id,
                PROJECT_STREAM,
                [ProjectRegistered(root=resolved, timezone=timezone)],
                expected_version=0,
                actor=Actor.SYSTEM,
            )
            return Project(project_id, resolved, timezone, now.astimezone(dt.UTC))

    def project(self, project: str) -> Project:
        """A registered project. Projects are never changed or removed once registered, so a
        found one is kept in memory (the HTTP routes look one up on every request)."""
        found = self._projects.get(project)
        if found is None:
            with self.reading() as conn:
                found = self._projects[project] = self._project(conn, project)
        return found

    def project_for_root(self, root: str | Path) -> Project:
        resolved = str(Path(root).expanduser().resolve())
        with self.reading() as conn:
            row = conn.execute(sa.select(projects).where(projects.c.root == resolved)).first()
        if row is None:
            raise UnknownProject(resolved)
        return self._project_from_row(row)

    def projects(self) -> list[Project]:
        with self.reading() as conn:
            rows = conn.execute(sa.select(projects).order_by(projects.c.project_id)).all()
        return [self._project_from_row(r) for r in rows]

    @staticmethod
    def _project_from_row(row: sa.Row[Any]) -> Project:
        registered = row.registered_at.replace(tzinfo=dt.UTC)
        return Project(row.project_id, row.root, row.timezone, registered)

    def _project(self, conn: Connection, project: str) -> Project:
        row = conn.execute(sa.select(projects).where(projects.c.project_id == project)).first()
        if row is None:
            raise UnknownProject(project)
        return self._project_from_row(row)

    def _require_project(self, conn: Connection, project: str) -> None:
        if project in self._known_projects:
            return
        found = conn.scalar(
            sa.select(projects.c.project_id).where(projects.c.project_id == project)
        )
        if found is None:
            raise UnknownProject(project)
        self._known_projects.add(project)

    # -- appends --------------------------------------------------------------------------

    def append(
        self,
        project: str,
        stream: str,
        batch: Sequence[Event],
        *,
        expected_version: int | None,
        actor: Actor,
        session: str | None = None,
        event_ids: Sequence[str] | None = None,
    ) -> AppendResult:
        """Append in a transaction of its own; see :meth:`Writer.append`."""
        with self.writing() as writer:
            return writer.append(
                project,
                stream,
                batch,
                expected_version=expected_version,
                actor=actor,
                session=session,
                event_ids=event_ids,
            )

    def _append(
        self,
        conn: Connection,
        project: str,
        stream: str,
        batch: Sequence[Event],
        expected_version: int | None,
        actor: Actor,
        session: str | None,
        event_ids: Sequence[str] | None,
    ) -> AppendResult:
        if not batch:
            raise InvalidInput("append needs at least one event")
        if not stream or len(stream) > 200:
            raise InvalidInput(f"stream name {stream!r} must be 1 to 200 characters")
        actor = Actor(actor)
        payloads = [_encode(event) for event in batch]
        if event_ids is None:
            ids = [uuid.uuid4().hex for _ in batch]
        else:
            ids = [str(i) for i in event_ids]
            if len(ids) != len(batch) or len(set(ids)) != len(ids):
                raise InvalidInput("event_ids must be distinct and one per event")
            replay = self._replayed(conn, project, stream, ids, payloads)
            if replay is not None:
                return replay
        self._require_project(conn, project)
        row = conn.execute(_SELECT_STREAM_HEAD, {"p": project, "s": stream}).first()
        current = row.version if row is not None and row.version is not None else 0
        if expected_version is not None and expected_version != current:
            raise Conflict(stream, expected_version, current)
        first = (row.head if row is not None and row.head is not None else 0) + 1
        recorded_at = _naive_utc(self.clock.now())
        if row is not None and row.last_time is not None and row.last_time > recorded_at:
            # Time never runs backwards along positions (a clock stepped back records the
            # last instant again), so "as of T" is always a prefix of the log.
            recorded_at = row.last_time
        rows = [
            {
                "position": first + i,
                "project_id": project,
                "stream": stream,
                "version": current + 1 + i,
                "type": _event_type(type(event)),
                "data": payload.decode(),
                "actor": actor.value,
                "session": session,
                "recorded_at": recorded_at,
                "event_id": event_id,
            }
            for i, (event, payload, event_id) in enumerate(zip(batch, payloads, ids, strict=True))
        ]
        try:
            conn.execute(_INSERT_EVENTS, rows)
        except sa.exc.IntegrityError as exc:
            message = str(exc.orig)
            if "event_id" in message:
                raise DuplicateEventId(ids[0]) from None
            raise Conflict(stream, current, current + 1) from None
        new_version = current + len(batch)
        last_position = first + len(batch) - 1
        previous_state = row.state if row is not None else None
        values = {
            "p": project,
            "s": stream,
            "v": new_version,
            "last": last_position,
            "state": self._fold_state(
                project, stream, previous_state, batch, rows, recorded_at, actor
            ),
        }
        conn.execute(_UPDATE_STREAM if current else _INSERT_STREAM, values)
        upsert = _UPSERT_HEAD_PG if conn.dialect.name == "postgresql" else _UPSERT_HEAD_SQLITE
        conn.execute(upsert, {"p": project, "c": category(stream), "last": last_position})
        return AppendResult(tuple(range(first, last_position + 1)), new_version)

    def _fold_state(
        self,
        project: str,
        stream: str,
        previous_state: str | None,
        batch: Sequence[Event],
        rows: list[dict[str, Any]],
        recorded_at: dt.datetime,
        actor: Actor,
    ) -> str | None:
        reducer = self._reducers.get(category(stream))
        if reducer is None:
            return None
        state = None
        if previous_state is not None:
            state = msgspec.json.decode(previous_state, type=reducer.state_type)
        for event, values in zip(batch, rows, strict=True):
            recorded = RecordedEvent(
                position=values["position"],
                project=project,
                stream=stream,
                version=values["version"],
                event=event,
                actor=actor,
                session=values["session"],
                recorded_at=recorded_at.replace(tzinfo=dt.UTC),
                event_id=values["event_id"],
            )
            state = reducer.fold(state, recorded)
        return None if state is None else self._encoders.encode(state).decode()

    def _replayed(
        self,
        conn: Connection,
        project: str,
        stream: str,
        ids: list[str],
        payloads: list[bytes],
    ) -> AppendResult | None:
        """The original result when this exact batch was recorded before, else None."""
        found = conn.execute(
            sa.select(
                events.c.event_id,
                events.c.position,
                events.c.project_id,
                events.c.stream,
                events.c.version,
                events.c.data,
            ).where(events.c.event_id.in_(ids))
        ).all()
        if not found:
            return None
        by_id = {r.event_id: r for r in found}
        for event_id, payload in zip(ids, payloads, strict=True):
            original = by_id.get(event_id)
            if (
                original is None
                or original.project_id != project
                or original.stream != stream
                or original.data != payload.decode()
            ):
                raise DuplicateEventId(event_id)
        ordered = [by_id[i] for i in ids]
        return AppendResult(tuple(r.position for r in ordered), ordered[-1].version, duplicate=True)

    # -- reads ----------------------------------------------------------------------------

    def _stream_version(self, conn: Connection, project: str, stream: str) -> int:
        version = conn.scalar(
            sa.select(streams.c.version).where(
                streams.c.project_id == project, streams.c.stream == stream
            )
        )
        return int(version or 0)

    def _decode_state(self, stream: str, raw: str | None) -> Any:
        reducer = self._reducers.get(category(stream))
        if reducer is None or raw is None:
            return None
        return msgspec.json.decode(raw, type=reducer.state_type)

    def _state(self, conn: Connection, project: str, stream: str) -> Any:
        raw = conn.scalar(
            sa.select(streams.c.state).where(
                streams.c.project_id == project, streams.c.stream == stream
            )
        )
        return self._decode_state(stream, raw)

    def _states(
        self, conn: Connection, project: str, prefix: str, after: int = 0
    ) -> dict[str, Any]:
        rows = conn.execute(
            _SELECT_STATES, {"p": project, "lo": prefix, "hi": prefix + _AFTER, "after": after}
        ).all()
        return {r.stream: self._decode_state(r.stream, r.state) for r in rows}

    def _prefix_head(self, conn: Connection, project: str, prefix: str) -> int:
        """The last position of any stream whose name starts with ``prefix``: the newest head
        of the categories it covers (``ask:`` → ``ask``; ``ask`` → ``ask`` and ``asks``)."""
        if prefix.endswith(":"):
            head = conn.scalar(_SELECT_CATEGORY_HEAD, {"p": project, "c": prefix[:-1]})
        else:
            values = {"p": project, "lo": prefix, "hi": prefix + _AFTER}
            head = conn.scalar(_SELECT_CATEGORIES_HEAD, values)
        return int(head or 0)

    def _snapshot(
        self, conn: Connection, project: str, name: str, at_or_before: int | None
    ) -> tuple[int, bytes] | None:
        query = sa.select(snapshots.c.position, snapshots.c.state).where(
            snapshots.c.project_id == project, snapshots.c.name == name
        )
        if at_or_before is not None:
            query = query.where(snapshots.c.position <= at_or_before)
        row = conn.execute(query.order_by(snapshots.c.position.desc()).limit(1)).first()
        return None if row is None else (int(row.position), zlib.decompress(row.state))

    def snapshot(
        self, project: str, name: str, at_or_before: int | None = None
    ) -> tuple[int, bytes] | None:
        """The newest snapshot of ``name`` at or before a position: ``(position, state)``."""
        with self.reading() as conn:
            return self._snapshot(conn, project, name, at_or_before)

    def _checkpoint(self, conn: Connection, project: str, name: str) -> Checkpoint | None:
        row = conn.execute(_SELECT_CHECKPOINT, {"p": project, "n": name}).first()
        if row is None:
            return None
        return Checkpoint(row.position, row.size, row.mtime_ns, row.sha256)

    def stream_version(self, project: str, stream: str) -> int:
        with self.reading() as conn:
            return self._stream_version(conn, project, stream)

    def state(self, project: str, stream: str) -> Any:
        """Materialised state of one stream (None when it has no reducer or no events)."""
        with self.reading() as conn:
            return self._state(conn, project, stream)

    def states(self, project: str, prefix: str) -> dict[str, Any]:
        """Materialised states of every stream whose name starts with ``prefix``, in order
        of their last event. One indexed query, whatever the length of the log."""
        with self.reading() as conn:
            return self._states(conn, project, prefix)

    def head(self, project: str | None = None) -> int:
        """The last position (of the project, or of the whole store); 0 when empty."""
        with self.reading() as conn:
            return self._head(conn, project)

    def _head(self, conn: Connection, project: str | None) -> int:
        query = sa.select(sa.func.max(events.c.position))
        if project is not None:
            query = query.where(events.c.project_id == project)
        return int(conn.scalar(query) or 0)

    def _to_recorded(self, row: sa.Row[Any]) -> RecordedEvent:
        return RecordedEvent(
            position=row.position,
            project=row.project_id,
            stream=row.stream,
            version=row.version,
            event=decode_event(row.data, position=row.position),
            actor=Actor(row.actor),
            session=row.session,
            recorded_at=row.recorded_at.replace(tzinfo=dt.UTC),
            event_id=row.event_id,
        )

    def _read_stream(
        self, conn: Connection, project: str, stream: str, from_version: int = 1
    ) -> Iterator[RecordedEvent]:
        rows = conn.execute(
            sa.select(events)
            .where(
                events.c.project_id == project,
                events.c.stream == stream,
                events.c.version >= from_version,
            )
            .order_by(events.c.version)
        )
        for row in rows:
            yield self._to_recorded(row)

    def read_stream(
        self, project: str, stream: str, *, from_version: int = 1
    ) -> list[RecordedEvent]:
        """Every event of one stream, oldest first."""
        with self.reading() as conn:
            self._require_project(conn, project)
            return list(self._read_stream(conn, project, stream, from_version))

    def read_project(
        self,
        project: str,
        *,
        from_position: int = 0,
        until_position: int | None = None,
        since_time: dt.datetime | None = None,
        until_time: dt.datetime | None = None,
        stream_prefix: str | Sequence[str] | None = None,
    ) -> Iterator[RecordedEvent]:
        """Events of a project in position order.

        ``from_position`` is exclusive; ``until_position``, ``since_time`` and ``until_time``
        are inclusive. Rows stream in batches; the generator holds a read transaction until
        it is exhausted or closed."""
        with self.reading() as conn:
            yield from self._read_project(
                conn,
                project,
                from_position=from_position,
                until_position=until_position,
                since_time=since_time,
                until_time=until_time,
                stream_prefix=stream_prefix,
            )

    def _read_project(
        self,
        conn: Connection,
        project: str,
        *,
        from_position: int = 0,
        until_position: int | None = None,
        since_time: dt.datetime | None = None,
        until_time: dt.datetime | None = None,
        stream_prefix: str | Sequence[str] | None = None,
    ) -> Iterator[RecordedEvent]:
        self._require_project(conn, project)
        query = sa.select(events).where(
            events.c.project_id == project, events.c.position > from_position
        )
        if until_position is not None:
            query = query.where(events.c.position <= until_position)
        if since_time is not None:
            query = query.where(events.c.recorded_at >= _naive_utc(since_time))
        if until_time is not None:
            query = query.where(events.c.recorded_at <= _naive_utc(until_time))
        if stream_prefix:
            prefixes = (stream_prefix,) if isinstance(stream_prefix, str) else stream_prefix
            query = query.where(
                sa.or_(
                    *(sa.and_(events.c.stream >= p, events.c.stream < p + _AFTER) for p in prefixes)
                )
            )
        result = conn.execution_options(yield_per=2000).execute(query.order_by(events.c.position))
        try:
            for row in result:
                yield self._to_recorded(row)
        finally:
            result.close()


__all__ = [
    "AppendResult",
    "Checkpoint",
    "EventStore",
    "OrbitalError",
    "Project",
    "Reader",
    "Reducer",
    "Writer",
    "category",
]
