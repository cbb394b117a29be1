"""The credentials table beside the log: what a bearer token's id names (the SHA-256 of its
secret, its audience, label, the projects it reaches, when made and revoked), and the Workbench
page sessions opened with a credential. The rules (token format, hashing, audience → actor,
revocation, session expiry) are the service's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import msgspec

from orbital.store._base import Transaction, naive_utc
from orbital.store._db import instant


class StoredCredential(msgspec.Struct, frozen=True):
    token_id: str
    secret_sha256: str
    audience: str
    #: The projects the credential reaches, by id; empty means every project.
    projects: tuple[str, ...]
    label: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None


_WITH_PROJECTS = (
    "SELECT c.token_id, c.secret_sha256, c.audience, c.label, c.created_at, c.revoked_at,"
    " p.project_id FROM credentials AS c"
    " LEFT OUTER JOIN credential_projects AS p ON p.token_id = c.token_id"
)


def _stored(rows: list[Sequence[Any]]) -> StoredCredential:
    """One credential from its rows (one per project it reaches, or one with no project)."""
    token_id, secret_sha256, audience, label, created_at, revoked_at, _ = rows[0]
    return StoredCredential(
        token_id=token_id,
        secret_sha256=secret_sha256,
        audience=audience,
        projects=tuple(r[6] for r in rows if r[6] is not None),
        label=label,
        created_at=instant(created_at),
        revoked_at=None if revoked_at is None else instant(revoked_at),
    )


class StoredPageSession(msgspec.Struct, frozen=True):
    token_id: str
    expires_at: dt.datetime


class CredentialReads(Transaction):
    def page_session(self, session_sha256: str) -> StoredPageSession | None:
        row = self._conn.first(
            "SELECT token_id, expires_at FROM page_sessions WHERE session_sha256 = :s",
            {"s": session_sha256},
        )
        if row is None:
            return None
        return StoredPageSession(row[0], instant(row[1]))

    def credential(self, token_id: str) -> StoredCredential | None:
        found = self._gathered(
            f"{_WITH_PROJECTS} WHERE c.token_id = :t ORDER BY p.project_id", {"t": token_id}
        )
        return found[0] if found else None

    def credentials(self) -> list[StoredCredential]:
        """Every credential, revoked ones included, oldest first."""
        return self._gathered(
            f"{_WITH_PROJECTS} ORDER BY c.created_at, c.token_id, p.project_id", {}
        )

    def _gathered(self, sql: str, params: dict[str, Any]) -> list[StoredCredential]:
        """One query for credentials and their projects (a known id costs what an unknown
        one does)."""
        grouped: dict[str, list[Sequence[Any]]] = {}
        for row in self._conn.execute(sql, params):
            grouped.setdefault(row[0], []).append(row)
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
        self._conn.run(
            "INSERT INTO credentials (token_id, secret_sha256, audience, label, created_at)"
            " VALUES (:t, :secret, :audience, :label, :at)",
            {
                "t": token_id,
                "secret": secret_sha256,
                "audience": audience,
                "label": label,
                "at": naive_utc(created_at),
            },
        )
        if projects:
            self._conn.executemany(
                "INSERT INTO credential_projects (token_id, project_id) VALUES (:t, :p)",
                [{"t": token_id, "p": p} for p in projects],
            )

    def carry_credential(
        self,
        token_id: str,
        audience: str,
        projects: Sequence[str],
        *,
        label: str,
        created_at: dt.datetime,
        revoked_at: dt.datetime | None,
    ) -> bool:
        """A credential of an imported log, without its secret (no token verifies against
        it: it is listed, and revocable, so the person knows what to make anew). Bound to
        those of its projects this store has; one bound only to projects it has not yet is
        left for their import. True when anything was added."""
        names = ", ".join(f":p{i}" for i in range(len(projects)))
        params = {f"p{i}": p for i, p in enumerate(projects)}
        here = (
            list(
                self._conn.scalars(
                    f"SELECT project_id FROM projects WHERE project_id IN ({names})", params
                )
            )
            if projects
            else []
        )
        if projects and not here:
            return False
        found = self.credential(token_id)
        if found is None:
            self.add_credential(token_id, "", audience, here, label=label, created_at=created_at)
            if revoked_at is not None:
                self.revoke_credential(token_id, revoked_at)
            return True
        missing = [p for p in here if p not in found.projects]
        if missing and found.projects:
            self._conn.executemany(
                "INSERT INTO credential_projects (token_id, project_id) VALUES (:t, :p)",
                [{"t": token_id, "p": p} for p in missing],
            )
        return bool(missing and found.projects)

    def revoke_credential(self, token_id: str, at: dt.datetime) -> None:
        self._conn.run(
            "UPDATE credentials SET revoked_at = :at WHERE token_id = :t",
            {"at": naive_utc(at), "t": token_id},
        )

    def add_page_session(
        self,
        session_sha256: str,
        token_id: str,
        *,
        created_at: dt.datetime,
        expires_at: dt.datetime,
    ) -> None:
        self._conn.run(
            "INSERT INTO page_sessions (session_sha256, token_id, created_at, expires_at)"
            " VALUES (:s, :t, :created, :expires)",
            {
                "s": session_sha256,
                "t": token_id,
                "created": naive_utc(created_at),
                "expires": naive_utc(expires_at),
            },
        )

    def end_page_sessions(
        self,
        *,
        session_sha256: str | None = None,
        token_id: str | None = None,
        expired_at: dt.datetime | None = None,
    ) -> None:
        """Delete one session, every session of a credential, or those expired at an instant."""
        where, params = ["1 = 1"], dict[str, Any]()
        if session_sha256 is not None:
            where.append("session_sha256 = :s")
            params["s"] = session_sha256
        if token_id is not None:
            where.append("token_id = :t")
            params["t"] = token_id
        if expired_at is not None:
            where.append("expires_at <= :at")
            params["at"] = naive_utc(expired_at)
        self._conn.run(f"DELETE FROM page_sessions WHERE {' AND '.join(where)}", params)
