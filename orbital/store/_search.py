"""The search index behind one interface on both databases, each with its own full-text
engine: SQLite's FTS5 (``search_fts``: external content over ``search_docs``, porter
stemming, ranked by ``bm25``) and PostgreSQL's ``tsvector`` (``search_fts``: one per text,
GIN-indexed, configuration ``orbital_search``: English stems and no stopwords, as FTS5's;
ranked by ``ts_rank_cd``). Migration ``0013`` makes both.

The statements take a connection, so a hook's quick lane (:mod:`._quick`) runs the recall
read without opening the store. Words reach an engine only quoted (FTS5) or through
``plainto_tsquery`` (PostgreSQL): nothing a person types is read as the engine's syntax.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from orbital.store._db import Conn, instant

if TYPE_CHECKING:
    from projections.search import SearchDoc, SearchQuery

#: The kinds of rows one stream projects to: an entry's (its text, its past texts), an ask's.
ENTRY_KINDS = ("entry", "version")
ASK_KINDS = ("ask",)
#: Items dropped per statement (an ``IN`` list each).
_CHUNK = 500
#: Words of a prompt a recall looks for, at most.
RECALL_WORDS = 32

_COLUMNS = "d.item, d.kind, d.file, d.status, d.trust, d.actor, d.at, d.position, d.text"
_SQLITE_FROM = (
    f"SELECT {_COLUMNS}, -bm25(search_fts, 4.0, 1.0) AS score FROM search_fts"
    " JOIN search_docs AS d ON d.id = search_fts.rowid"
    " WHERE search_fts MATCH :match AND d.project_id = :p"
)
_PG_ALL = "plainto_tsquery('orbital_search', :match)"
#: The same words, any of them (the ``&`` of ``plainto_tsquery`` made ``|``).
_PG_ANY = f"CAST(replace(CAST({_PG_ALL} AS text), ' & ', ' | ') AS tsquery)"
_PG_VECTOR = (
    "setweight(to_tsvector('orbital_search', d.item), 'A') || to_tsvector('orbital_search', d.text)"
)


def _pg_from(query: str) -> str:
    return (
        f"SELECT {_COLUMNS}, ts_rank_cd(f.tsv, q.q) AS score FROM search_fts AS f"
        f" JOIN search_docs AS d ON d.id = f.id CROSS JOIN (SELECT {query} AS q) AS q"
        " WHERE f.tsv @@ q.q AND d.project_id = :p"
    )


class SearchRow(NamedTuple):
    """One indexed text found, with the engine's score (higher ranks first)."""

    item: str
    kind: str
    file: str
    status: str
    trust: str
    actor: str
    at: dt.datetime
    position: int
    text: str
    score: float


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _match(conn: Conn, words: Sequence[str], *, any_word: bool) -> str:
    """The words as the engine's query text: FTS5 phrases (all: side by side; any: ``OR``),
    or plain words for ``plainto_tsquery``."""
    if conn.dialect != "sqlite":
        return " ".join(words)
    return (" OR " if any_word else " ").join(_quoted(w) for w in words)


def _rows(conn: Conn, sql: str, params: dict[str, Any]) -> list[SearchRow]:
    return [
        SearchRow(r[0], r[1], r[2], r[3], r[4], r[5], instant(r[6]), int(r[7]), r[8], float(r[9]))
        for r in conn.execute(sql, params)
    ]


def find(conn: Conn, project: str, query: SearchQuery) -> list[SearchRow]:
    """The project's texts holding every word of ``query``, best first, filtered as it says."""
    params: dict[str, Any] = {
        "p": project,
        "match": _match(conn, query.words, any_word=False),
        "limit": query.limit,
    }
    sql = _SQLITE_FROM if conn.dialect == "sqlite" else _pg_from(_PG_ALL)
    if not query.past:
        sql += " AND d.kind <> 'version' AND d.status <> 'retired'"
    if not query.untrusted:
        sql += " AND d.trust NOT IN ('superseded', 'retracted')"
    for name in ("file", "trust", "actor"):
        if value := getattr(query, name):
            sql, params[name] = f"{sql} AND d.{name} = :{name}", value
    if query.since is not None:
        sql, params["since"] = f"{sql} AND d.at >= :since", _naive(query.since)
    if query.until is not None:
        sql, params["until"] = f"{sql} AND d.at <= :until", _naive(query.until)
    return _rows(conn, f"{sql} ORDER BY score DESC, d.id LIMIT :limit", params)


def matching_items(conn: Conn, project: str, words: Sequence[str]) -> set[str]:
    """The ids of the project's entries whose current text holds every word (any status;
    no words: none)."""
    if not words:
        return set()
    match = _match(conn, words, any_word=False)
    if conn.dialect == "sqlite":
        sql = (
            "SELECT d.item FROM search_fts JOIN search_docs AS d ON d.id = search_fts.rowid"
            " WHERE search_fts MATCH :match AND d.project_id = :p AND d.kind = 'entry'"
        )
    else:
        sql = (
            "SELECT d.item FROM search_fts AS f JOIN search_docs AS d ON d.id = f.id"
            f" WHERE f.tsv @@ {_PG_ALL} AND d.project_id = :p AND d.kind = 'entry'"
        )
    return {str(item) for item in conn.scalars(sql, {"p": project, "match": match})}


def recall_candidates(
    conn: Conn, project: str, words: Sequence[str], limit: int
) -> list[SearchRow]:
    """The project's archived entries still held that hold any of ``words``, best first."""
    words = list(dict.fromkeys(words))[:RECALL_WORDS]
    if not words:
        return []
    params = {"p": project, "match": _match(conn, words, any_word=True), "limit": limit}
    sql = _SQLITE_FROM if conn.dialect == "sqlite" else _pg_from(_PG_ANY)
    sql += " AND d.kind = 'entry' AND d.status = 'archived' AND d.trust = 'held'"
    return _rows(conn, f"{sql} ORDER BY score DESC, d.id LIMIT :limit", params)


def indexed_position(conn: Conn, project: str) -> int:
    """The position the project's index was projected at (0: never)."""
    found = conn.scalar(
        "SELECT position FROM search_positions WHERE project_id = :p", {"p": project}
    )
    return int(found or 0)


def behind(conn: Conn, project: str) -> int | None:
    """The head of what the index reads (``entry:`` and ``ask:``) when the index is behind
    it, else None: one read of two small tables."""
    row = conn.first(
        "SELECT (SELECT max(last_position) FROM heads WHERE project_id = :p"
        " AND category IN ('entry', 'ask')),"
        " (SELECT position FROM search_positions WHERE project_id = :p)",
        {"p": project},
    )
    head, indexed = (int(row[0] or 0), int(row[1] or 0)) if row is not None else (0, 0)
    return head if head > indexed else None


def moved_streams(conn: Conn, project: str, after: int) -> list[str]:
    """The ``entry:`` and ``ask:`` streams with an event after position ``after``."""
    return [
        str(s)
        for s in conn.scalars(
            "SELECT stream FROM streams WHERE project_id = :p AND last_position > :after"
            " AND ((stream >= 'entry:' AND stream < 'entry;')"
            " OR (stream >= 'ask:' AND stream < 'ask;')) ORDER BY stream",
            {"p": project, "after": after},
        )
    ]


_DOC_COLUMNS = (
    "project_id",
    "doc",
    "kind",
    "item",
    "file",
    "status",
    "trust",
    "actor",
    "at",
    "position",
    "text",
)


def _doc_row(project: str, d: SearchDoc) -> tuple[Any, ...]:
    """A ``search_docs`` row, in :data:`_DOC_COLUMNS` order."""
    at = _naive(d.at)
    return (
        project,
        d.doc,
        d.kind,
        d.item,
        d.file,
        d.status,
        d.trust,
        d.actor,
        at,
        d.position,
        d.text,
    )


def replace_docs(
    conn: Conn, project: str, streams: Sequence[str], docs: Sequence[SearchDoc], position: int
) -> None:
    """Every row of ``streams`` replaced by ``docs``, and the index at ``position``: the
    writer's one statement set, inside its transaction."""
    items: dict[str, list[str]] = {"entry": [], "ask": []}
    for stream in streams:
        kind, _, item = stream.partition(":")
        items[kind].append(item)
    for kind, kinds in (("entry", "('entry', 'version')"), ("ask", "('ask')")):
        for start in range(0, len(items[kind]), _CHUNK):
            names = items[kind][start : start + _CHUNK]
            params = {f"i{n}": item for n, item in enumerate(names)}
            listed = ", ".join(f":{key}" for key in params)
            _drop(conn, project, f"d.item IN ({listed}) AND d.kind IN {kinds}", params)
    if docs:
        before = int(conn.scalar("SELECT coalesce(max(id), 0) FROM search_docs") or 0)
        conn.insert_rows(
            "search_docs",
            _DOC_COLUMNS,
            [_doc_row(project, d) for d in docs],
        )
        if conn.dialect == "sqlite":
            conn.run(
                "INSERT INTO search_fts (rowid, item, text) SELECT id, item, text"
                " FROM search_docs WHERE id > :before",
                {"before": before},
            )
        else:
            conn.run(
                f"INSERT INTO search_fts (id, tsv) SELECT d.id, {_PG_VECTOR}"
                " FROM search_docs AS d WHERE d.id > :before",
                {"before": before},
            )
    conn.run(
        "INSERT INTO search_positions (project_id, position) VALUES (:p, :at)"
        " ON CONFLICT (project_id) DO UPDATE SET position = excluded.position",
        {"p": project, "at": position},
    )


def drop_index(conn: Conn, project: str, *, merge: bool = False) -> None:
    """The project's index emptied and set back to nothing projected: the next read (or the
    caller) rebuilds it. ``merge`` (a purge's): on SQLite the engine's segments are merged
    too, so no term of a dropped text stays in its pages."""
    _drop(conn, project, "1 = 1", {})
    conn.run("DELETE FROM search_positions WHERE project_id = :p", {"p": project})
    if merge and conn.dialect == "sqlite":
        conn.run("INSERT INTO search_fts (search_fts) VALUES ('optimize')")


def _drop(conn: Conn, project: str, where: str, params: dict[str, Any]) -> None:
    params = {"p": project, **params}
    if conn.dialect == "sqlite":  # an external-content FTS5 row is deleted with its text
        conn.run(
            "INSERT INTO search_fts (search_fts, rowid, item, text)"
            f" SELECT 'delete', d.id, d.item, d.text FROM search_docs AS d"
            f" WHERE d.project_id = :p AND {where}",
            params,
        )
    else:
        conn.run(
            "DELETE FROM search_fts WHERE id IN (SELECT d.id FROM search_docs AS d"
            f" WHERE d.project_id = :p AND {where})",
            params,
        )
    conn.run(f"DELETE FROM search_docs AS d WHERE d.project_id = :p AND {where}", params)


def _naive(value: dt.datetime) -> dt.datetime:
    return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value


class SearchReads:
    """The index's reads over one connection: a hook's first reads
    (:class:`~orbital.store._first_reads.FirstReads`) and so every :class:`Reader`."""

    _conn: Conn

    def search(self, project: str, query: SearchQuery) -> list[SearchRow]:
        return find(self._conn, project, query)

    def search_matching(self, project: str, words: Sequence[str]) -> set[str]:
        return matching_items(self._conn, project, words)

    def search_behind(self, project: str) -> int | None:
        return behind(self._conn, project)

    def search_position(self, project: str) -> int:
        return indexed_position(self._conn, project)

    def search_moved(self, project: str, after: int) -> list[str]:
        return moved_streams(self._conn, project, after)

    def recall(self, project: str, words: Sequence[str], limit: int) -> list[SearchRow]:
        return recall_candidates(self._conn, project, words, limit)


class SearchWrites:
    """The index's writes (:class:`~orbital.store.Writer`)."""

    _conn: Conn

    def index_search(
        self, project: str, streams: Sequence[str], docs: Sequence[SearchDoc], position: int
    ) -> None:
        replace_docs(self._conn, project, streams, docs, position)

    def drop_search(self, project: str) -> None:
        drop_index(self._conn, project)
