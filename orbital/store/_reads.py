"""The read API: a :class:`Reader` is one transaction's consistent view of the store.

The log and the materialised stream states and heads are read here; the reads of the tables
beside the log (projects, snapshots and checkpoints, credentials) come from their modules.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from orbital.events import Actor, RecordedEvent, decode_event
from orbital.store._base import AFTER, naive_utc
from orbital.store._credentials import CredentialReads
from orbital.store._db import instant
from orbital.store._keys import KeyReads
from orbital.store._projects import ProjectReads
from orbital.store._snapshots import SnapshotReads

_EVENT = (
    "SELECT position, project_id, stream, version, type, data, actor, session, recorded_at,"
    " event_id FROM events"
)
_SELECT_CATEGORY_HEAD = (
    "SELECT max(last_position) FROM heads WHERE project_id = :p AND category = :c"
)
_SELECT_CATEGORIES_HEAD = (
    "SELECT max(last_position) FROM heads"
    " WHERE project_id = :p AND category >= :lo AND category < :hi"
)
_SELECT_STATES = (
    "SELECT stream, state FROM streams"
    " WHERE project_id = :p AND stream >= :lo AND stream < :hi AND last_position > :after"
    " ORDER BY last_position"
)
_SELECT_STATE_PAGE = (
    "SELECT stream, state, last_position FROM streams"
    " WHERE project_id = :p AND stream >= :lo AND stream < :hi AND last_position > :after"
    " ORDER BY last_position LIMIT :n"
)
#: Every category head of a project with the id of its event (a primary-key probe each).
_SELECT_STREAM_NAMES = (
    "SELECT stream FROM streams WHERE project_id = :p AND stream >= :lo AND stream < :hi"
)


def _time_search(op: str) -> str:
    """The project's last position whose time is ``op`` :t, halving ``[lo, hi]`` one probe
    of the ``(project_id, position)`` index at a time (about 17 probes for 100,000 events).
    A probe reads the project's last event at or before the middle (none: before any time).
    Positions are global and an imported log keeps its times, so only a project's own
    times are known never to decrease along positions."""
    probe = (
        f"COALESCE((SELECT CASE WHEN e.recorded_at {op} :t THEN 1 ELSE 0 END FROM events AS e"
        " WHERE e.project_id = :p AND e.position <= (s.lo + s.hi + 1) / 2"
        " ORDER BY e.position DESC LIMIT 1), 1) = 1"
    )
    return (
        "WITH RECURSIVE search(lo, hi) AS ("
        " SELECT CAST(0 AS BIGINT), (SELECT max(position) FROM events WHERE project_id = :p)"
        " UNION ALL"
        f" SELECT CASE WHEN {probe} THEN (s.lo + s.hi + 1) / 2 ELSE s.lo END,"
        f" CASE WHEN {probe} THEN s.hi ELSE (s.lo + s.hi + 1) / 2 - 1 END"
        " FROM search AS s WHERE s.lo < s.hi"
        ") SELECT max(lo) FROM search"
    )


_AT_OR_BEFORE = _time_search("<=")
_BEFORE = _time_search("<")


def in_list(name: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """``(:name0, :name1, …)`` and its parameters: an ``IN`` list both drivers bind."""
    params = {f"{name}{i}": value for i, value in enumerate(values)}
    return "(" + ", ".join(f":{key}" for key in params) + ")", params


def _recorded(row: Sequence[Any]) -> RecordedEvent:
    position, project, stream, version, type_, data, actor, session, at, event_id = row
    return RecordedEvent(
        position=position,
        project=project,
        stream=stream,
        version=version,
        event=decode_event(data, type=type_, position=position),
        actor=Actor(actor),
        session=session,
        recorded_at=instant(at),
        event_id=event_id,
    )


class Reader(ProjectReads, SnapshotReads, CredentialReads, KeyReads):
    """Reads inside one transaction: a consistent snapshot of the store.

    Obtained from :meth:`EventStore.reader` (the read engine: never takes the write lock) or
    as a :class:`Writer` (then the reads see the writer's own appends).
    """

    # -- the log --------------------------------------------------------------------------

    def span(self, project: str) -> tuple[int, int]:
        """The project's first position and the store's last (0 for either when none): the
        versions a read of this project can have been given. Two indexed lookups."""
        row = self._conn.first(
            "SELECT (SELECT min(position) FROM events WHERE project_id = :p),"
            " (SELECT max(position) FROM events)",
            {"p": project},
        )
        assert row is not None
        return int(row[0] or 0), int(row[1] or 0)

    def event_id(self, project: str, position: int) -> str:
        """The id of the project's event at ``position`` ("" when it has none there)."""
        found = self._conn.scalar(
            "SELECT event_id FROM events WHERE project_id = :p AND position = :at",
            {"p": project, "at": position},
        )
        return "" if found is None else str(found)

    def event_position(self, project: str, event_id: str) -> int | None:
        """The position of the project's event ``event_id`` (None: it has none such)."""
        found = self._conn.scalar(
            "SELECT position FROM events WHERE project_id = :p AND event_id = :e",
            {"p": project, "e": event_id},
        )
        return None if found is None else int(found)

    def event_at_or_before(self, project: str, position: int) -> tuple[int, str] | None:
        """The project's last event at or before ``position``: its position and id."""
        row = self._conn.first(
            "SELECT position, event_id FROM events WHERE project_id = :p AND position <= :at"
            " ORDER BY position DESC LIMIT 1",
            {"p": project, "at": position},
        )
        return None if row is None else (int(row[0]), str(row[1]))

    def event_ids(self, project: str, streams: Sequence[str] | None = None) -> dict[str, int]:
        """Each event id of the project (or of its ``streams``) -> its position, in order."""
        sql = "SELECT event_id, position FROM events WHERE project_id = :p"
        params: dict[str, Any] = {}
        if streams is not None:
            if not streams:
                return {}
            names, params = in_list("s", streams)
            sql = f"{sql} AND stream IN {names}"
        rows = self._conn.execute(f"{sql} ORDER BY position", params | {"p": project})
        return {str(event_id): int(position) for event_id, position in rows}

    def read_log(
        self, projects: Sequence[str], streams_of: Mapping[str, Sequence[str]] | None = None
    ) -> Iterator[RecordedEvent]:
        """Every event of ``projects`` (and of the named streams of other owners,
        ``streams_of``: owner -> streams) in log order, streamed while consumed."""
        ids, params = in_list("p", projects)
        where = [f"project_id IN {ids}" if projects else "1 = 0"]
        for i, (owner, streams) in enumerate((streams_of or {}).items()):
            if streams:
                names, more = in_list(f"s{i}_", streams)
                where.append(f"(project_id = :o{i} AND stream IN {names})")
                params |= more | {f"o{i}": owner}
        return self._stream(f"{_EVENT} WHERE {' OR '.join(where)} ORDER BY position", params)

    def read_stream(self, project: str, stream: str) -> list[RecordedEvent]:
        """Every event of one stream, oldest first."""
        self._require_project(project)
        rows = self._conn.execute(
            f"{_EVENT} WHERE project_id = :p AND stream = :s ORDER BY version",
            {"p": project, "s": stream},
        )
        return [_recorded(row) for row in rows]

    def read_streams(
        self, project: str, streams: Sequence[str], *, types: Sequence[str] | None = None
    ) -> dict[str, list[RecordedEvent]]:
        """Every event of each of ``streams`` (one query on the stream index), oldest first;
        ``types`` keeps only those event types (other rows are not decoded)."""
        self._require_project(project)
        found: dict[str, list[RecordedEvent]] = {stream: [] for stream in streams}
        if streams:
            names, params = in_list("s", list(found))
            sql = f"{_EVENT} WHERE project_id = :p AND stream IN {names}"
            if types is not None:
                kinds, more = in_list("t", types)
                sql, params = f"{sql} AND type IN {kinds}", params | more
            rows = self._conn.execute(f"{sql} ORDER BY stream, version", params | {"p": project})
            for row in rows:
                found[row[2]].append(_recorded(row))
        return found

    def read_project(
        self,
        project: str,
        *,
        from_position: int = 0,
        until_position: int | None = None,
        since_time: dt.datetime | None = None,
        until_time: dt.datetime | None = None,
        stream_prefix: str | Sequence[str] | None = None,
        newest_first: bool = False,
        limit: int | None = None,
    ) -> Iterator[RecordedEvent]:
        """Events of a project in position order (``newest_first``: the reverse), at most
        ``limit`` of them.

        ``from_position`` is exclusive; ``until_position``, ``since_time`` and ``until_time``
        are inclusive. Rows stream in batches while the iterator is consumed (inside the
        transaction)."""
        self._require_project(project)
        after = from_position
        if since_time is not None:  # a project's times never decrease along positions
            after = max(after, self._time_position(project, since_time, before=True))
        if until_time is not None:
            last = self._time_position(project, until_time)
            until_position = last if until_position is None else min(until_position, last)
        sql = f"{_EVENT} WHERE project_id = :p AND position > :after"
        params: dict[str, Any] = {"p": project, "after": after}
        if until_position is not None:
            sql, params["until"] = f"{sql} AND position <= :until", until_position
        if stream_prefix:
            prefixes = (stream_prefix,) if isinstance(stream_prefix, str) else stream_prefix
            ranges = []
            for i, prefix in enumerate(prefixes):
                ranges.append(f"(stream >= :lo{i} AND stream < :hi{i})")
                params[f"lo{i}"], params[f"hi{i}"] = prefix, prefix + AFTER
            sql = f"{sql} AND ({' OR '.join(ranges)})"
        sql = f"{sql} ORDER BY position{' DESC' if newest_first else ''}"
        if limit is not None:
            sql, params["limit"] = f"{sql} LIMIT :limit", limit
        return self._stream(sql, params)

    def _stream(self, sql: str, params: dict[str, Any]) -> Iterator[RecordedEvent]:
        for row in self._conn.stream(sql, params):
            yield _recorded(row)

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
        sql = (
            "SELECT count(*) FROM events WHERE project_id = :p AND stream >= :lo"
            " AND stream < :hi AND position > :after AND position <= :until"
        )
        params = {
            "p": project,
            "lo": stream_prefix,
            "hi": stream_prefix + AFTER,
            "after": after_position,
            "until": until_position,
        }
        if types is not None:
            kinds, more = in_list("t", types)
            sql, params = f"{sql} AND type IN {kinds}", params | more
        return int(self._conn.scalar(sql, params) or 0)

    def position_at(self, project: str, when: dt.datetime) -> int:
        """The project's last position recorded at or before ``when`` (0: none)."""
        found = self._conn.scalar(
            "SELECT max(position) FROM events WHERE project_id = :p AND position <= :at",
            {"p": project, "at": self._time_position(project, when)},
        )
        return int(found or 0)

    def _time_position(self, project: str, when: dt.datetime, *, before: bool = False) -> int:
        """A position at or after the project's last event recorded at or before ``when``
        (``before``: strictly before it) and before its next, found by a binary search over
        the project's positions: its times never decrease along them, so no index on the
        time is kept for it."""
        sql = _BEFORE if before else _AT_OR_BEFORE
        found = self._conn.scalar(sql, {"t": naive_utc(when), "p": project})
        return int(found or 0)

    def recorded_at(self, project: str, position: int) -> dt.datetime | None:
        """When the project's event at or just before ``position`` was recorded."""
        found = self._conn.scalar(
            "SELECT recorded_at FROM events WHERE project_id = :p AND position <= :at"
            " ORDER BY position DESC LIMIT 1",
            {"p": project, "at": position},
        )
        return None if found is None else instant(found)

    # -- materialised streams and heads ---------------------------------------------------

    def stream_version(self, project: str, stream: str) -> int:
        version = self._conn.scalar(
            "SELECT version FROM streams WHERE project_id = :p AND stream = :s",
            {"p": project, "s": stream},
        )
        return int(version or 0)

    def state(self, project: str, stream: str) -> Any:
        """Materialised state of one stream (None when it has no reducer or no events)."""
        raw = self._conn.scalar(
            "SELECT state FROM streams WHERE project_id = :p AND stream = :s",
            {"p": project, "s": stream},
        )
        return self._decode_state(stream, raw)

    def states(self, project: str, prefix: str, *, after: int = 0) -> dict[str, Any]:
        """Materialised states of every stream whose name starts with ``prefix`` and whose
        last event is after position ``after``, in order of that event. One indexed query,
        whatever the length of the log."""
        rows = self._conn.execute(
            _SELECT_STATES, {"p": project, "lo": prefix, "hi": prefix + AFTER, "after": after}
        )
        return {stream: self._decode_state(stream, state) for stream, state in rows}

    def state_pages(
        self, project: str, prefix: str, *, after: int = 0, size: int = 5_000
    ) -> Iterator[dict[str, Any]]:
        """:meth:`states`, ``size`` streams at a time (a page decoded, the next read when the
        last is done with): a pass over every stream in bounded memory."""
        values: dict[str, Any] = {"p": project, "lo": prefix, "hi": prefix + AFTER, "n": size}
        while True:
            rows = self._conn.execute(_SELECT_STATE_PAGE, {**values, "after": after})
            if not rows:
                return
            yield {stream: self._decode_state(stream, state) for stream, state, _ in rows}
            if len(rows) < size:
                return
            after = int(rows[-1][2])

    def stream_names(self, project: str, prefix: str) -> list[str]:
        """The name of every stream whose name starts with ``prefix`` (no state read)."""
        values = {"p": project, "lo": prefix, "hi": prefix + AFTER}
        return list(self._conn.scalars(_SELECT_STREAM_NAMES, values))

    def prefix_head(self, project: str, prefix: str) -> int:
        """The last position of any stream whose name starts with ``prefix``: the newest head
        of the categories it covers (``ask:`` → ``ask``; ``ask`` → ``ask`` and ``asks``)."""
        if prefix.endswith(":"):
            head = self._conn.scalar(_SELECT_CATEGORY_HEAD, {"p": project, "c": prefix[:-1]})
        else:
            values = {"p": project, "lo": prefix, "hi": prefix + AFTER}
            head = self._conn.scalar(_SELECT_CATEGORIES_HEAD, values)
        return int(head or 0)
