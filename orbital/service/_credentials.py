"""HTTP credentials: bearer tokens that decide who is acting and which projects they reach.

A token is ``orbital_<id>_<secret>``. The id is public (listing, revoking); only the SHA-256
of the secret is stored, so the token is shown once, at creation. The secret carries 256 bits
of randomness, which makes a plain hash enough (no slow KDF needed). The actor comes from the
credential's audience, never from what a request says about itself (DESIGN.md §4).
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from orbital.clock import Clock
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.store import EventStore, credential_projects, credentials

TOKEN_PREFIX = "orbital"
_ID_BYTES = 6
_SECRET_BYTES = 32
#: Compared against when a token id is unknown, so a miss costs the same as a wrong secret.
_DUMMY_HASH = hashlib.sha256(b"no such credential").hexdigest()


class Audience(enum.StrEnum):
    """Which surface a credential opens: the agent API or the person's Workbench."""

    AGENT = "agent"
    WORKBENCH = "workbench"


@dataclass(frozen=True, slots=True)
class Credential:
    token_id: str
    audience: Audience
    #: The projects this credential reaches; empty means every project.
    projects: tuple[str, ...]
    label: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None

    @property
    def actor(self) -> Actor:
        """Who acts with this credential: the Workbench credential is the person's."""
        return Actor.USER if self.audience is Audience.WORKBENCH else Actor.AGENT

    def reaches(self, project: str) -> bool:
        return not self.projects or project in self.projects


@dataclass(frozen=True, slots=True)
class IssuedToken:
    credential: Credential
    #: The bearer token; not stored anywhere, so this is the only time it can be shown.
    token: str


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    return None if value is None else value.replace(tzinfo=dt.UTC)


def _naive_utc(value: dt.datetime) -> dt.datetime:
    return value.astimezone(dt.UTC).replace(tzinfo=None)


class Credentials:
    """Create, verify, revoke and list credentials in the store beside the event log."""

    def __init__(self, store: EventStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def create(
        self, audience: str, projects: Iterable[str] = (), *, label: str = ""
    ) -> IssuedToken:
        """A new credential; the returned token is the only copy of its secret."""
        try:
            kind = Audience(audience)
        except ValueError:
            raise InvalidInput(
                f"unknown audience {audience!r}: use 'agent' or 'workbench'"
            ) from None
        bound = tuple(dict.fromkeys(projects))
        token_id = secrets.token_hex(_ID_BYTES)
        secret = secrets.token_urlsafe(_SECRET_BYTES)
        now = self._clock.now()
        with self._store.writing() as writer:
            for project in bound:
                writer.project(project)  # raises UnknownProject
            conn = writer.connection
            conn.execute(
                credentials.insert().values(
                    token_id=token_id,
                    secret_sha256=_hash(secret),
                    audience=kind.value,
                    label=label,
                    created_at=_naive_utc(now),
                )
            )
            if bound:
                conn.execute(
                    credential_projects.insert(),
                    [{"token_id": token_id, "project_id": p} for p in bound],
                )
        credential = Credential(token_id, kind, bound, label, now.astimezone(dt.UTC), None)
        return IssuedToken(credential, f"{TOKEN_PREFIX}_{token_id}_{secret}")

    def verify(self, token: str) -> Credential | None:
        """The live credential for ``token``; None when it is malformed, unknown or revoked."""
        prefix, _, rest = token.partition("_")
        token_id, _, secret = rest.partition("_")
        if prefix != TOKEN_PREFIX or not token_id or not secret:
            return None
        with self._store.reading() as conn:
            row = conn.execute(
                sa.select(credentials).where(credentials.c.token_id == token_id)
            ).first()
            stored = row.secret_sha256 if row is not None else _DUMMY_HASH
            matches = hmac.compare_digest(stored, _hash(secret))
            if row is None or not matches or row.revoked_at is not None:
                return None
            return self._credential(conn, row)

    def revoke(self, token_id: str) -> Credential:
        """Revoke at once (idempotent: revoking twice keeps the first time)."""
        with self._store.writing() as writer:
            conn = writer.connection
            row = conn.execute(
                sa.select(credentials).where(credentials.c.token_id == token_id)
            ).first()
            if row is None:
                raise InvalidInput(f"no token with id {token_id!r}: see `orbital token list`")
            if row.revoked_at is None:
                conn.execute(
                    credentials.update()
                    .where(credentials.c.token_id == token_id)
                    .values(revoked_at=_naive_utc(self._clock.now()))
                )
                row = conn.execute(
                    sa.select(credentials).where(credentials.c.token_id == token_id)
                ).one()
            return self._credential(conn, row)

    def list(self) -> list[Credential]:
        """Every credential, revoked ones included, oldest first."""
        with self._store.reading() as conn:
            rows = conn.execute(
                sa.select(credentials).order_by(credentials.c.created_at, credentials.c.token_id)
            ).all()
            return [self._credential(conn, row) for row in rows]

    @staticmethod
    def _credential(conn: sa.Connection, row: sa.Row[Any]) -> Credential:
        bound = conn.scalars(
            sa.select(credential_projects.c.project_id)
            .where(credential_projects.c.token_id == row.token_id)
            .order_by(credential_projects.c.project_id)
        ).all()
        return Credential(
            token_id=row.token_id,
            audience=Audience(row.audience),
            projects=tuple(bound),
            label=row.label,
            created_at=row.created_at.replace(tzinfo=dt.UTC),
            revoked_at=_utc(row.revoked_at),
        )
