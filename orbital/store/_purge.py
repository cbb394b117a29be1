"""The one sanctioned change of stored events: the person's purge of a text.

Every event of the project whose payload holds the text, and every stream state that does,
gets the text replaced by a marker; the project's snapshots (compressed folds, rebuilt on the
next load) are deleted. The events' triggers let these UPDATEs through only for the positions
listed in ``purging`` during the transaction, and only when nothing but ``data`` changes
(``migrations/versions/0011_purge.py``). On SQLite the transaction runs with
``secure_delete`` on, so the pages it frees are zeroed; :meth:`EventStore.compact` then makes
the bytes leave the files (``VACUUM``, the WAL truncated; ``VACUUM FULL`` on PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from orbital.store._base import Transaction
from orbital.store._keys import drop_keys
from orbital.store._search import drop_index

#: The tables a purge changes: what :meth:`EventStore.compact` rewrites.
PURGED_TABLES = (
    "events",
    "streams",
    "snapshots",
    "search_docs",
    "search_fts",
    "stream_keys",
    "key_lists",
)


class Purged(msgspec.Struct, frozen=True):
    """What a purge changed: the events' positions, stream states and snapshots."""

    positions: tuple[int, ...]
    streams: int
    snapshots: int


def _without(value: Any, texts: Sequence[str], marker: str) -> Any:
    """``value`` (decoded JSON) with every occurrence of each text replaced by ``marker``."""
    if isinstance(value, str):
        for text in texts:
            value = value.replace(text, marker)
        return value
    if isinstance(value, list):
        return [_without(v, texts, marker) for v in value]
    if isinstance(value, dict):
        return {k: _without(v, texts, marker) for k, v in value.items()}
    return value


def _holds(data: str, texts: Sequence[str]) -> bool:
    """Whether stored JSON holds one of the texts (as written, or escaped as JSON writes it)."""
    return any(t in data or json.dumps(t)[1:-1] in data for t in texts)


def without(data: str, texts: Sequence[str], marker: str) -> str:
    """Stored JSON ``data`` with the texts replaced by ``marker`` (compact, UTF-8 as is)."""
    value = _without(json.loads(data), texts, marker)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class PurgeWrites(Transaction):
    def position_of(self, project: str, ref: str) -> int | None:
        """The position of the project's event named by ``ref``: its position or its id."""
        if ref.isdigit():
            sql = "SELECT position FROM events WHERE project_id = :p AND position = :ref"
            found = self._conn.scalar(sql, {"p": project, "ref": int(ref)})
        else:
            sql = "SELECT position FROM events WHERE project_id = :p AND event_id = :ref"
            found = self._conn.scalar(sql, {"p": project, "ref": ref})
        return None if found is None else int(found)

    def purge(self, project: str, texts: Sequence[str], marker: str) -> Purged:
        """Replace each of ``texts`` by ``marker`` in the project's events and stream states,
        and delete its snapshots (see the module's docstring)."""
        conn = self._conn
        if conn.dialect == "sqlite":
            conn.run("PRAGMA secure_delete = ON")
        rows = conn.execute(
            "SELECT position, data FROM events WHERE project_id = :p", {"p": project}
        )
        changed = [
            {"at": int(position), "data": without(data, texts, marker)}
            for position, data in rows
            if _holds(data, texts)
        ]
        if changed:
            conn.executemany("INSERT INTO purging (position) VALUES (:at)", changed)
            conn.executemany("UPDATE events SET data = :data WHERE position = :at", changed)
            conn.run("DELETE FROM purging")
        states = conn.execute(
            "SELECT stream, state FROM streams WHERE project_id = :p AND state IS NOT NULL",
            {"p": project},
        )
        streams = [
            {"p": project, "s": stream, "state": without(state, texts, marker)}
            for stream, state in states
            if _holds(state, texts)
        ]
        if streams:
            conn.executemany(
                "UPDATE streams SET state = :state WHERE project_id = :p AND stream = :s", streams
            )
        snapshots = conn.run("DELETE FROM snapshots WHERE project_id = :p", {"p": project})
        drop_index(conn, project, merge=True)  # the next search projects the purged events
        drop_keys(conn, project)  # keys of purged texts: the next unit files them again
        if conn.dialect == "sqlite":  # what it freed is zeroed; later writes need not be
            conn.run("PRAGMA secure_delete = OFF")
        positions = tuple(int(str(row["at"])) for row in changed)
        return Purged(positions, len(streams), snapshots)
