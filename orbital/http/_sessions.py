"""What the Workbench page keeps beside its sessions: the cookie names, the sign-in form's
double-submit secret, and each session's notices.

The sessions themselves are the service's (:mod:`orbital.service._page_sessions`): stored
hashed, so they survive a restart. Notices (what the last action did, shown on the next page
view) stay in this process: a restart loses at most one message.
"""

from __future__ import annotations

import hmac
import secrets
import threading

SESSION_COOKIE = "orbital_session"
#: Double-submit cookie for the login form (there is no session yet to hold a token).
LOGIN_COOKIE = "orbital_login"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def same_secret(expected: str, given: str | None) -> bool:
    """Constant-time comparison; a missing value never matches."""
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


class Notices:
    """Messages for a session's next page view (thread-safe: handlers run in a pool)."""

    def __init__(self) -> None:
        self._waiting: dict[str, list[tuple[str, str]]] = {}
        self._lock = threading.Lock()

    def add(self, session_id: str, kind: str, message: str) -> None:
        with self._lock:
            self._waiting.setdefault(session_id, []).append((kind, message))

    def take(self, session_id: str) -> list[tuple[str, str]]:
        with self._lock:
            return self._waiting.pop(session_id, [])
