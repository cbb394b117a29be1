"""Who a request is for: the project it reaches and the client's session.

The stdio server serves the one project it was started for; the HTTP mount has already
checked the agent token and chosen the project before the SDK sees the request. Both bind a
:class:`Caller` to a context variable around each request, so the tools (which the SDK calls
without its request context) read the same answer. No MCP SDK here: the stdio server answers
without loading it.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

#: ``_meta`` keys under which clients send their own session (or conversation) id on a call:
#: OpenCode sends ``sessionID``, VS Code ``vscode.conversationId``; ``sessionId`` is the
#: spelling Orbital documents.
SESSION_META_KEYS = ("sessionId", "sessionID", "vscode.conversationId")
#: Longer ids are cut: the session is a label in the log, not a payload.
_SESSION_MAX = 200


@dataclass(frozen=True, slots=True)
class Caller:
    project: str
    session: str | None


CALLER: ContextVar[Caller] = ContextVar("orbital_mcp_caller")


def caller() -> Caller:
    """The caller of the request being served."""
    return CALLER.get()


def session_of(meta: Mapping[str, Any] | None) -> str | None:
    """The session id a client put in the request's ``_meta``, if any."""
    for key in SESSION_META_KEYS:
        value = (meta or {}).get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:_SESSION_MAX]
    return None
