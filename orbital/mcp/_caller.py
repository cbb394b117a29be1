"""Who a request is for: the project it reaches and the client's session, bound per request.

The stdio server serves the one project it was started for; the HTTP mount has already
checked the agent token and chosen the project before the SDK sees the request. A middleware
binds both to a context variable around each request, so tools and resources (which the SDK
calls without its request context) read the same answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

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


ProjectOf = Callable[[ServerRequestContext[Any, Any]], str]

_CALLER: ContextVar[Caller] = ContextVar("orbital_mcp_caller")


def caller() -> Caller:
    """The caller of the request being served."""
    return _CALLER.get()


def session_of(meta: Mapping[str, Any] | None) -> str | None:
    """The session id a client put in the request's ``_meta``, if any."""
    for key in SESSION_META_KEYS:
        value = (meta or {}).get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:_SESSION_MAX]
    return None


class BindCaller:
    """Server middleware: binds the request's :class:`Caller` while it is handled."""

    def __init__(self, project_of: ProjectOf) -> None:
        self._project_of = project_of

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        token = _CALLER.set(Caller(self._project_of(ctx), session_of(ctx.meta)))
        try:
            return await call_next(ctx)
        finally:
            _CALLER.reset(token)
