"""Workbench page sessions, kept in the store so they survive a server restart.

The cookie carries a random session id; the store keeps only its SHA-256, the credential it
was opened with and when it expires, so a copy of the database opens no session. The
credential is checked again on every request: a revoked token (revoking also deletes its
sessions) or an expired session reads as no session. The CSRF token is derived from the
session id (an HMAC), so nothing more is stored and only the holder of the cookie can know it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from orbital.clock import Clock
from orbital.service._credentials import Audience, Credential, Credentials
from orbital.store import EventStore

SESSION_SECONDS = 12 * 60 * 60


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def _csrf(session_id: str) -> str:
    return hmac.new(session_id.encode(), b"orbital page csrf", hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class PageSession:
    #: The cookie's value; never stored.
    session_id: str
    credential: Credential
    #: The synchronizer token every state-changing form sends back.
    csrf: str
    expires_at: dt.datetime


class PageSessions:
    """Start, find and end page sessions (the rules; the table is the store's)."""

    def __init__(
        self,
        store: EventStore,
        clock: Clock,
        credentials: Credentials,
        seconds: int = SESSION_SECONDS,
    ) -> None:
        self._store = store
        self._clock = clock
        self._credentials = credentials
        self.seconds = seconds

    def start(self, credential: Credential) -> PageSession:
        """A fresh session for a verified Workbench credential (a new id on every sign-in,
        so an id is never reused); sessions expired by now are deleted on the way."""
        if credential.audience is not Audience.WORKBENCH:
            raise ValueError("a page session needs a Workbench credential")
        session_id = secrets.token_urlsafe(32)
        now = self._clock.now()
        expires = now + dt.timedelta(seconds=self.seconds)
        with self._store.writing() as w:
            w.end_page_sessions(expired_at=now)
            w.add_page_session(
                _hash(session_id), credential.token_id, created_at=now, expires_at=expires
            )
        return PageSession(session_id, credential, _csrf(session_id), expires.astimezone(dt.UTC))

    def get(self, session_id: str | None) -> PageSession | None:
        """The live session of this id: None when unknown, expired, or its credential is
        revoked (an expired session is deleted)."""
        if not session_id:
            return None
        key = _hash(session_id)
        with self._store.reader() as r:
            stored = r.page_session(key)
        if stored is None:
            return None
        if stored.expires_at <= self._clock.now():
            self.end(session_id)
            return None
        credential = self._credentials.by_id(stored.token_id)
        if credential is None or credential.audience is not Audience.WORKBENCH:
            self.end(session_id)
            return None
        return PageSession(session_id, credential, _csrf(session_id), stored.expires_at)

    def end(self, session_id: str) -> None:
        with self._store.writing() as w:
            w.end_page_sessions(session_sha256=_hash(session_id))
