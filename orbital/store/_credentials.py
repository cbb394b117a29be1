"""The credentials table beside the log: what a bearer token's id names (the SHA-256 of its
secret, its audience, label, the projects it reaches, when made and revoked), and the Workbench
page sessions opened with a credential. The rules (token format, hashing, audience → actor,
revocation, session expiry) are the service's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from orbital.store._base import Transaction, naive_utc
from orbital.store._schema import credential_projects, credentials, page_sessions


@dataclass(frozen=True, slots=True)
class StoredCredential:
    token_id: str
    secret_sha256: str
    audience: str
    #: The projects the credential reaches, by id; empty means every project.
    projects: tuple[str, ...]
    label: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None


_WITH_PROJECTS = sa.select(credentials, credential_projects.c.project_id).select_from(
    credentials.outerjoin(
        credential_projects, credential_projects.c.token_id == credentials.c.token_id
    )
)


def _stored(rows: list[sa.Row[Any]]) -> StoredCredential:
    """One credential from its rows (one per project it reaches, or one with no project)."""
    first = rows[0]
    revoked = first.revoked_at
    return StoredCredential(
        token_id=first.token_id,
        secret_sha256=first.secret_sha256,
        audience=first.audience,
        projects=tuple(r.project_id for r in rows if r.project_id is not None),
        label=first.label,
        created_at=first.created_at.replace(tzinfo=dt.UTC),
        revoked_at=None if revoked is None else revoked.replace(tzinfo=dt.UTC),
    )


@dataclass(frozen=True, slots=True)
class StoredPageSession:
    token_id: str
    expires_at: dt.datetime


class CredentialReads(Transaction):
    def page_session(self, session_sha256: str) -> StoredPageSession | None:
        row = self._conn.execute(
            sa.select(page_sessions.c.token_id, page_sessions.c.expires_at).where(
                page_sessions.c.session_sha256 == session_sha256
            )
        ).first()
        if row is None:
            return None
        return StoredPageSession(row.token_id, row.expires_at.replace(tzinfo=dt.UTC))

    def credential(self, token_id: str) -> StoredCredential | None:
        found = self._gathered(_WITH_PROJECTS.where(credentials.c.token_id == token_id))
        return found[0] if found else None

    def credentials(self) -> list[StoredCredential]:
        """Every credential, revoked ones included, oldest first."""
        return self._gathered(
            _WITH_PROJECTS.order_by(credentials.c.created_at, credentials.c.token_id)
        )

    def _gathered(self, query: sa.Select[Any]) -> list[StoredCredential]:
        """One query for credentials and their projects (a known id costs what an unknown
        one does)."""
        rows = self._conn.execute(query.order_by(credential_projects.c.project_id)).all()
        grouped: dict[str, list[sa.Row[Any]]] = {}
        for row in rows:
            grouped.setdefault(row.token_id, []).append(row)
        return [_stored(bound) for bound in grouped.values()]


class CredentialWrites(CredentialReads):
    def add_credential(
        self,
        token_id: str,
        secret_sha256: str,
        audience: str,
        projects: Sequence[str],
        *,
        label: str,
        created_at: dt.datetime,
    ) -> None:
        self._conn.execute(
            credentials.insert().values(
                token_id=token_id,
                secret_sha256=secret_sha256,
                audience=audience,
                label=label,
                created_at=naive_utc(created_at),
            )
        )
        if projects:
            self._conn.execute(
                credential_projects.insert(),
                [{"token_id": token_id, "project_id": p} for p in projects],
            )

    def revoke_credential(self, token_id: str, at: dt.datetime) -> None:
        self._conn.execute(
            credentials.update()
            .where(credentials.c.token_id == token_id)
            .values(revoked_at=naive_utc(at))
        )

    def add_page_session(
        self,
        session_sha256: str,
        token_id: str,
        *,
        created_at: dt.datetime,
        expires_at: dt.datetime,
    ) -> None:
        self._conn.execute(
            page_sessions.insert().values(
                session_sha256=session_sha256,
                token_id=token_id,
                created_at=naive_utc(created_at),
                expires_at=naive_utc(expires_at),
            )
        )

    def end_page_sessions(
        self,
        *,
        session_sha256: str | None = None,
        token_id: str | None = None,
        expired_at: dt.datetime | None = None,
    ) -> None:
        """Delete one session, every session of a credential, or those expired at an instant."""
        query = page_sessions.delete()
        if session_sha256 is not None:
            query = query.where(page_sessions.c.session_sha256 == session_sha256)
        if token_id is not None:
            query = query.where(page_sessions.c.token_id == token_id)
        if expired_at is not None:
            query = query.where(page_sessions.c.expires_at <= naive_utc(expired_at))
        self._conn.execute(query)
