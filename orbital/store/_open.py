"""Which database a store URL names, and opening it (:func:`open_database`): the one module
above both backends (:mod:`orbital.store._sqlite_db`, :mod:`orbital.store._pg_db`) and
SQLAlchemy's URL parsing (:mod:`orbital.store._engine`), each imported only when needed, so the
interface below them (:mod:`orbital.store._db`) imports none of them."""

from __future__ import annotations

from pathlib import Path

from orbital.store._db import Database, plain_sqlite_file, postgresql_url


def sqlite_database(url: str) -> tuple[str, bool] | None:
    """A SQLite URL's database (a path, ``:memory:`` or a ``file:`` URI) and whether it is a
    URI; None for any other backend. A plain ``sqlite:///PATH`` is read without SQLAlchemy,
    anything else (a query, an escape) as SQLAlchemy reads it."""
    if not url.startswith("sqlite"):
        return None
    plain = plain_sqlite_file(url)
    if plain is not None:
        return str(plain), False
    from orbital.store._engine import parse_url

    parsed = parse_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ":memory:"
    query = {k: v for k, v in parsed.query.items() if k != "uri" and isinstance(v, str)}
    uri = parsed.query.get("uri") == "true" or database.startswith("file:")
    if uri and query:
        database += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return database, uri


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite store (None for PostgreSQL, an in-memory or a URI database)."""
    found = sqlite_database(url)
    if found is None or found[1] or found[0] == ":memory:":
        return None
    return Path(found[0]).expanduser()


def open_database(
    url: str, *, immediate: bool, timeout_ms: int, immutable: bool = False
) -> Database:
    """The store at ``url``: ``immediate`` writers take the store's write lock as they begin
    (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's exclusive lock on ``events``);
    ``immutable``: a SQLite store on a read-only filesystem, read without a ``-shm``."""
    found = sqlite_database(url)
    if found is not None:
        from orbital.store._sqlite_db import SqliteDatabase

        database, uri = found
        return SqliteDatabase(
            url,
            database,
            uri=uri,
            immediate=immediate,
            timeout_ms=timeout_ms,
            immutable=immutable,
        )
    if not postgresql_url(url):
        from orbital.store._engine import refuse

        refuse(url)
    from orbital.store._pg_db import PgDatabase

    return PgDatabase(url, immediate=immediate, timeout_ms=timeout_ms)


def display_url(url: str) -> str:
    """The URL as shown to the person (a password hidden)."""
    if url.startswith("sqlite") and "@" not in url:
        return url
    from orbital.store._engine import parse_url

    return parse_url(url).render_as_string(hide_password=True)
