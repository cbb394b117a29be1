"""Workbench page sessions, kept server-side: the cookie carries only a random id.

The person pastes a Workbench token once; the session remembers it in this process's memory
(never on disk, never in the cookie) and the token is verified again on every request, so
revoking it ends the session at once. Each session has its own CSRF token (a synchronizer
token) that every state-changing form must send back. Sessions end on logout, after
:data:`SESSION_SECONDS`, or when the server stops.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field

SESSION_COOKIE = "orbital_session"
#: Double-submit cookie for the login form (there is no session yet to hold a token).
LOGIN_COOKIE = "orbital_login"
SESSION_SECONDS = 12 * 60 * 60


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def same_secret(expected: str, given: str | None) -> bool:
    """Constant-time comparison; a missing value never matches."""
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


@dataclass
class PageSession:
    session_id: str
    #: The Workbench token the person pasted; verified again on each request.
    token: str
    csrf: str
    expires: float
    #: Messages for the next page view (what an action did, or why it was refused).
    notices: list[tuple[str, str]] = field(default_factory=list)

    def notify(self, kind: str, message: str) -> None:
        self.notices.append((kind, message))

    def take_notices(self) -> list[tuple[str, str]]:
        taken, self.notices = self.notices, []
        return taken


class PageSessions:
    """The live sessions of one app instance (thread-safe: handlers run in a thread pool)."""

    def __init__(self, seconds: int = SESSION_SECONDS) -> None:
        self._seconds = seconds
        self._sessions: dict[str, PageSession] = {}
        self._lock = threading.Lock()

    def start(self, token: str) -> PageSession:
        """A fresh session (a new id on every login, so an id is never reused)."""
        now = time.monotonic()
        session = PageSession(new_secret(), token, new_secret(), now + self._seconds)
        with self._lock:
            expired = [k for k, s in self._sessions.items() if s.expires <= now]
            for key in expired:
                del self._sessions[key]
            self._sessions[session.session_id] = session
        return session

    def get(self, session_id: str | None) -> PageSession | None:
        if not session_id:
            return None
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and session.expires <= time.monotonic():
                del self._sessions[session_id]
                return None
            return session

    def end(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)
