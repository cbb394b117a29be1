"""Streams filed by keys (``stream_keys``): the rows of a keyed projection of stream states,
and the position and code stamp each family of keys was projected at.

The store holds rows, not rules: which keys a state gives, and when a family is made again,
is the service's (:mod:`orbital.service._stream_keys`). A read joins each row to its stream's
state, decoded by the category's reducer, so a keyed question costs the rows under its key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from orbital.store._base import Transaction
from orbital.store._db import Conn

#: Streams per statement when a family's rows of some streams are read or replaced.
_CHUNK = 500
_KEYED = (
    "SELECT k.key, k.stream, s.state FROM stream_keys AS k JOIN streams AS s"
    " ON s.project_id = k.project_id AND s.stream = k.stream"
    " WHERE k.project_id = :p AND k.family = :f AND k.key >= :lo AND k.key < :hi"
)


#: A family's list under a wanted key (``v.column1``: :func:`_probed`).
_LIST = "FROM key_lists AS l WHERE l.project_id = :p AND l.family = :f AND l.key = v.column1"


class Projected(NamedTuple):
    """Where a family of keys was projected: the position, the stamp of the code that made
    its keys, and how many rows it holds under each counted prefix of keys."""

    position: int
    stamp: str
    counts: dict[str, int]


def _chunks(values: Iterable[str], name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """``values`` (each once) a chunk at a time, as the rows of a one-column ``VALUES`` list
    (its column is ``column1`` on both databases) and their parameters."""
    distinct = list(dict.fromkeys(values))
    for start in range(0, len(distinct), _CHUNK):
        params = {f"{name}{n}": value for n, value in enumerate(distinct[start : start + _CHUNK])}
        yield ", ".join(f"(:{key})" for key in params), params


def _probed(
    conn: Conn, column: str, source: str, values: Iterable[str], params: dict[str, Any]
) -> Iterator[tuple[str, Any]]:
    """``(value, column)`` for each of ``values``, ``column`` read from the rows of
    ``source`` (a ``FROM … WHERE …`` that names the value ``v.column1``) by a subquery per
    value: an index probe each, whatever the planner knows of the table. (PostgreSQL without
    statistics takes a ``key IN (…)`` over a table it has not analyzed to hold a row or two,
    and reads a whole family to filter it.) None where there is none."""
    for listed, chunk in _chunks(values, "v"):
        rows = conn.execute(
            f"SELECT v.column1, (SELECT {column} {source}) FROM (VALUES {listed}) AS v",
            {**params, **chunk},
        )
        yield from ((str(value), found) for value, found in rows)


class KeyReads(Transaction):
    def keys_projected(self, project: str, family: str) -> Projected | None:
        """Where ``family`` was projected (None: never)."""
        row = self._conn.first(
            "SELECT position, stamp, counts FROM stream_key_positions WHERE project_id = :p"
            " AND family = :f",
            {"p": project, "f": family},
        )
        if row is None:
            return None
        counts = (part.partition("=") for part in str(row[2]).split())
        return Projected(int(row[0]), str(row[1]), {k: int(n) for k, _, n in counts})

    def key_drops(self, project: str) -> int:
        """How many times the project's keys were all dropped (a purge, an import)."""
        return _drops(self._conn, project)

    def keyed(
        self,
        project: str,
        family: str,
        lo: str,
        hi: str,
        *,
        descending: bool = False,
        after: tuple[str, str] | None = None,
        limit: int = 64,
    ) -> list[tuple[str, str, Any]]:
        """The first ``limit`` rows of ``family`` with a key in ``[lo, hi)``, in key order
        (then by stream), each with its stream's state: ``(key, stream, state)``. ``after``:
        the ``(key, stream)`` of the last row of the previous page (not read again)."""
        sql, params = _KEYED, {"p": project, "f": family, "lo": lo, "hi": hi, "n": limit}
        op, order = ("<", "DESC") if descending else (">", "ASC")
        if after is not None:
            sql += f" AND (k.key {op} :k OR (k.key = :k AND k.stream {op} :s))"
            params["k"], params["s"] = after
        rows = self._conn.execute(
            f"{sql} ORDER BY k.key {order}, k.stream {order} LIMIT :n", params
        )
        return [(str(k), str(s), self._decode_state(str(s), state)) for k, s, state in rows]

    def under(self, project: str, family: str, key: str) -> list[tuple[str, Any]]:
        """The streams filed under exactly ``key`` in ``family``, each with its state."""
        rows = self._conn.execute(
            "SELECT k.stream, s.state FROM stream_keys AS k JOIN streams AS s"
            " ON s.project_id = k.project_id AND s.stream = k.stream"
            " WHERE k.project_id = :p AND k.family = :f AND k.key = :k ORDER BY k.stream",
            {"p": project, "f": family, "k": key},
        )
        return [(str(s), self._decode_state(str(s), state)) for s, state in rows]

    def lists(self, project: str, family: str, keys: Iterable[str]) -> dict[str, list[str]]:
        """The lists of ``family`` kept under each of ``keys`` that has one."""
        found = _probed(self._conn, "l.items", _LIST, keys, {"p": project, "f": family})
        return {key: str(items).split() for key, items in found if items is not None}

    def list_sizes(self, project: str, family: str, keys: Iterable[str]) -> dict[str, int]:
        """How many items each of ``keys`` that has a list in ``family`` names, read
        without the lists."""
        found = _probed(self._conn, "l.size", _LIST, keys, {"p": project, "f": family})
        return {key: int(size) for key, size in found if size is not None}

    def states_of(self, project: str, streams: Iterable[str]) -> dict[str, Any]:
        """The states of ``streams`` that have one."""
        source = "FROM streams AS s WHERE s.project_id = :p AND s.stream = v.column1"
        found = _probed(self._conn, "s.state", source, streams, {"p": project})
        return {s: self._decode_state(s, state) for s, state in found if state is not None}

    def keys_of(self, project: str, family: str, streams: Iterable[str]) -> list[tuple[str, str]]:
        """The ``(stream, key)`` rows of ``family`` filed for ``streams``."""
        agg = "json_agg" if self._conn.dialect == "postgresql" else "json_group_array"
        source = (
            "FROM stream_keys AS k WHERE k.project_id = :p AND k.family = :f"
            " AND k.stream = v.column1"
        )
        found = _probed(self._conn, f"{agg}(k.key)", source, streams, {"p": project, "f": family})
        return [
            (stream, str(key))
            for stream, keys in found
            if keys is not None
            for key in (json.loads(keys) if isinstance(keys, str) else keys)
        ]


class KeyWrites(Transaction):
    def file_keys(
        self, project: str, family: str, streams: Sequence[str], keys: Sequence[tuple[str, str]]
    ) -> None:
        """``family``'s rows of ``streams`` replaced by ``keys`` (``(key, stream)`` each)."""
        if streams:
            self._conn.executemany(
                "DELETE FROM stream_keys WHERE project_id = :p AND family = :f AND stream = :s",
                [{"p": project, "f": family, "s": stream} for stream in dict.fromkeys(streams)],
            )
        if keys:
            rows = [(project, family, key, stream) for key, stream in dict.fromkeys(keys)]
            self._conn.insert_rows("stream_keys", ("project_id", "family", "key", "stream"), rows)

    def keys_at(self, project: str, family: str, at: Projected) -> None:
        """``family`` projected as ``at`` says."""
        counts = " ".join(f"{k}={n}" for k, n in sorted(at.counts.items()))
        self._conn.run(
            "INSERT INTO stream_key_positions (project_id, family, position, stamp, counts)"
            " VALUES (:p, :f, :at, :stamp, :counts) ON CONFLICT (project_id, family)"
            " DO UPDATE SET position = excluded.position, stamp = excluded.stamp,"
            " counts = excluded.counts",
            {"p": project, "f": family, "at": at.position, "stamp": at.stamp, "counts": counts},
        )

    def put_lists(self, project: str, family: str, lists: dict[str, list[str]]) -> None:
        """``family``'s lists under these keys replaced (an empty one: no row)."""
        gone = [{"p": project, "f": family, "k": key} for key, items in lists.items() if not items]
        if gone:
            self._conn.executemany(
                "DELETE FROM key_lists WHERE project_id = :p AND family = :f AND key = :k", gone
            )
        kept = [
            {"p": project, "f": family, "k": key, "items": " ".join(items), "n": len(items)}
            for key, items in lists.items()
            if items
        ]
        if kept:
            self._conn.executemany(
                "INSERT INTO key_lists (project_id, family, key, items, size)"
                " VALUES (:p, :f, :k, :items, :n) ON CONFLICT (project_id, family, key)"
                " DO UPDATE SET items = excluded.items, size = excluded.size",
                kept,
            )

    def drop_family(self, project: str, family: str) -> None:
        """``family``'s rows and lists of the project, all of them (it is made again
        whole)."""
        for table in ("stream_keys", "key_lists"):
            self._conn.run(
                f"DELETE FROM {table} WHERE project_id = :p AND family = :f",
                {"p": project, "f": family},
            )

    def drop_keys(self, project: str) -> None:
        """Every family of the project's keys emptied and set back to never projected: the
        next unit that needs one makes it again (after a purge or an import)."""
        drop_keys(self._conn, project)


#: The ``stream_key_positions`` row that counts how many times a project's keys were all
#: dropped (its ``position``): a family filed from states read before a drop (a purge's
#: states held the purged text) must not be written after it.
DROPS = "dropped"


def drop_keys(conn: Conn, project: str) -> None:
    drops = _drops(conn, project)
    for table in ("stream_keys", "key_lists", "stream_key_positions"):
        conn.run(f"DELETE FROM {table} WHERE project_id = :p", {"p": project})
    conn.run(
        "INSERT INTO stream_key_positions (project_id, family, position, stamp, counts)"
        " VALUES (:p, :f, :n, '', '')",
        {"p": project, "f": DROPS, "n": drops + 1},
    )


def _drops(conn: Conn, project: str) -> int:
    found = conn.scalar(
        "SELECT position FROM stream_key_positions WHERE project_id = :p AND family = :f",
        {"p": project, "f": DROPS},
    )
    return int(found or 0)
