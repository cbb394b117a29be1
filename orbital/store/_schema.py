"""SQLAlchemy Core table definitions the store queries through.

The schema itself is created and changed only by the Alembic migrations in ``migrations/``;
these objects describe it for queries and must match the newest migration (a test checks it).
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()


def _project_key() -> sa.Column[str]:
    """The ``project_id`` that leads the primary key of every per-project table (a column
    belongs to one table, so each table gets a fresh one)."""
    return sa.Column(
        "project_id", sa.String(64), sa.ForeignKey("projects.project_id"), primary_key=True
    )


projects = sa.Table(
    "projects",
    metadata,
    sa.Column("project_id", sa.String(64), primary_key=True),
    sa.Column("root", sa.Text, nullable=False, unique=True),
    sa.Column("timezone", sa.String(64), nullable=False, server_default=""),
    sa.Column("registered_at", sa.DateTime, nullable=False),
    #: The random id in the project's committed ``orbital/project-id`` file (NULL until
    #: ``init`` wrote it for a project from before): how another checkout joins the project.
    sa.Column("identity", sa.String(64), nullable=True),
    sa.Index("ix_projects_identity", "identity", unique=True),
    #: What people call the project (its folder's name at registration, or as renamed);
    #: the id is the identity (migration 0014), or a slug of a folder's name before it.
    sa.Column("name", sa.String(200), nullable=False, server_default=""),
)

#: The folders a project is projected into, one per machine and path: each has its own
#: checkpoints. The first checkout's id is the project's id.
checkouts = sa.Table(
    "checkouts",
    metadata,
    sa.Column("checkout_id", sa.String(80), primary_key=True),
    sa.Column("project_id", sa.String(64), sa.ForeignKey("projects.project_id"), nullable=False),
    sa.Column("machine", sa.String(255), nullable=False),
    sa.Column("root", sa.Text, nullable=False),
    sa.Column("registered_at", sa.DateTime, nullable=False),
    sa.UniqueConstraint("machine", "root", name="uq_checkouts_machine_root"),
    sa.Index("ix_checkouts_project_id", "project_id"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("project_id", sa.String(64), sa.ForeignKey("projects.project_id"), nullable=False),
    sa.Column("stream", sa.String(200), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("actor", sa.String(16), nullable=False),
    sa.Column("session", sa.String(200), nullable=True),
    sa.Column("recorded_at", sa.DateTime, nullable=False),
    sa.Column("event_id", sa.String(64), nullable=False, unique=True),
    sa.UniqueConstraint("project_id", "stream", "version", name="uq_events_stream_version"),
    sa.Index("ix_events_project_position", "project_id", "position"),
)

streams = sa.Table(
    "streams",
    metadata,
    _project_key(),
    sa.Column("stream", sa.String(200), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("last_position", sa.BigInteger, nullable=False),
    sa.Column("state", sa.Text, nullable=True),
    sa.Index("ix_streams_project_last_position", "project_id", "last_position"),
)

#: The last position of each stream category (``ask`` for ``ask:<id>``…), kept in the append
#: transaction: "did anything of this kind change?" is one primary-key read.
heads = sa.Table(
    "heads",
    metadata,
    _project_key(),
    sa.Column("category", sa.String(200), primary_key=True),
    sa.Column("last_position", sa.BigInteger, nullable=False),
)

#: What Orbital last wrote for each projected file: the position it was rendered at, the
#: hash of the bytes (NULL after an incremental append, when it was not recomputed) and the
#: file's size and mtime, so a hand edit is detected with one ``stat``; per checkout.
checkpoints = sa.Table(
    "checkpoints",
    metadata,
    sa.Column(
        "checkout_id", sa.String(80), sa.ForeignKey("checkouts.checkout_id"), primary_key=True
    ),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=True),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("mtime_ns", sa.BigInteger, nullable=False),
    sa.Column("written_at", sa.DateTime, nullable=False),
)

#: HTTP bearer tokens. Only the SHA-256 of the secret part is kept: the token is shown once.
#: ``audience`` decides the actor (``agent``, or ``workbench`` = the person); ``calendar`` reads
#: one feed only.
credentials = sa.Table(
    "credentials",
    metadata,
    sa.Column("token_id", sa.String(32), primary_key=True),
    sa.Column("secret_sha256", sa.String(64), nullable=False),
    sa.Column("audience", sa.String(16), nullable=False),
    sa.Column("label", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("revoked_at", sa.DateTime, nullable=True),
    sa.CheckConstraint(
        "audience IN ('agent', 'workbench', 'calendar')", name="ck_credentials_audience"
    ),
)

#: The projects a credential reaches; a credential with no row here reaches every project.
credential_projects = sa.Table(
    "credential_projects",
    metadata,
    sa.Column("token_id", sa.String(32), sa.ForeignKey("credentials.token_id"), primary_key=True),
    _project_key(),
)

#: Workbench page sessions: the SHA-256 of the session id (the cookie holds the id), the
#: credential it was opened with, and when it expires.
page_sessions = sa.Table(
    "page_sessions",
    metadata,
    sa.Column("session_sha256", sa.String(64), primary_key=True),
    sa.Column("token_id", sa.String(32), sa.ForeignKey("credentials.token_id"), nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_page_sessions_token_id", "token_id"),
    sa.Index("ix_page_sessions_expires_at", "expires_at"),
)

#: The store's own secrets, generated by their migration: ``cache`` keys the signature of what
#: a process keeps for the next in the state folder (a kept file it does not confirm is dropped).
store_secrets = sa.Table(
    "store_secrets",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.String(128), nullable=False),
)

#: Folded state of a projection as of ``position`` (e.g. the four memory files), written every
#: so many events; current state = newest snapshot + the few events after it, and an as-of
#: read replays from the nearest snapshot at or before the target.
snapshots = sa.Table(
    "snapshots",
    metadata,
    _project_key(),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("state", sa.LargeBinary, nullable=False),
)

#: Every distinct content Orbital wrote for a projected file, with the position it rendered:
#: a file on disk that matches one of them is that version (e.g. an older one brought back by
#: ``git checkout``), and a hand edit is merged against the version it most resembles.
projections_written = sa.Table(
    "projections_written",
    metadata,
    _project_key(),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
)

#: The positions a purge is changing, filled and emptied inside its transaction: the events'
#: triggers let an UPDATE of ``data`` through for these alone (``orbital purge``).
purging = sa.Table(
    "purging",
    metadata,
    sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
)

#: The search index's texts: an entry as it stands (``doc`` = ``entry:<id>``), each past version
#: of one (``entry:<id>@<version>``) and each ask (``ask:<id>``), with what a search filters
#: by. The full-text index over ``item`` and ``text`` is the database's own, ``search_fts``
#: (FTS5 on SQLite, ``tsvector`` on PostgreSQL), made by migration ``0013`` and left out of
#: these tables (:data:`ENGINE_TABLES`).
search_docs = sa.Table(
    "search_docs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("project_id", sa.String(64), sa.ForeignKey("projects.project_id"), nullable=False),
    sa.Column("doc", sa.String(240), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("item", sa.String(200), nullable=False),
    sa.Column("file", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("trust", sa.String(16), nullable=False),
    sa.Column("actor", sa.String(16), nullable=False),
    sa.Column("at", sa.DateTime, nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.UniqueConstraint("project_id", "doc", name="uq_search_docs_doc"),
    sa.Index("ix_search_docs_item", "project_id", "item"),
)

#: The position each project's search index was projected at.
search_positions = sa.Table(
    "search_positions",
    metadata,
    _project_key(),
    sa.Column("position", sa.BigInteger, nullable=False),
)

#: Text compared byte by byte on both databases (SQLite's default; PostgreSQL's ``C``).
_BYTEWISE = sa.Text().with_variant(sa.Text(collation="C"), "postgresql")

#: Streams filed by keys their states give, one ``family`` of keys per projection of a
#: category's states (``orbital/service/_stream_keys.py``): a keyed question reads the rows
#: under its key, or the first rows of a range in key order, never every state. Keys sort
#: byte by byte (collation ``C`` on PostgreSQL): a key's order is a view's order.
stream_keys = sa.Table(
    "stream_keys",
    metadata,
    _project_key(),
    sa.Column("family", sa.String(32), primary_key=True),
    sa.Column(
        "key", sa.Text().with_variant(sa.Text(collation="C"), "postgresql"), primary_key=True
    ),
    sa.Column("stream", sa.String(200), primary_key=True),
    sa.Index("ix_stream_keys_stream", "project_id", "family", "stream", "key"),
)

#: A family's lists, one per key (a meaning index: the dropped asks posted under a sense, a
#: stem or a slip, space-separated): a row per key, not one per key and stream.
key_lists = sa.Table(
    "key_lists",
    metadata,
    _project_key(),
    sa.Column("family", sa.String(32), primary_key=True),
    sa.Column("key", _BYTEWISE, primary_key=True),
    sa.Column("items", sa.Text, nullable=False),
    #: How many items (a lookup reads the shortest lists first).
    sa.Column("size", sa.Integer, nullable=False, server_default="0"),
)

#: The position each family of keys was projected at, and the stamp of the code that made
#: its keys (another code's keys are made again).
stream_key_positions = sa.Table(
    "stream_key_positions",
    metadata,
    _project_key(),
    sa.Column("family", sa.String(32), primary_key=True),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("stamp", sa.String(64), nullable=False),
    #: How many rows the family holds under each counted prefix: ``"<prefix>=<n> …"``.
    sa.Column("counts", sa.Text, nullable=False, server_default=""),
)

#: The full-text engine's own tables (``search_fts`` and, on SQLite, FTS5's shadow tables).
ENGINE_TABLES = "search_fts"
