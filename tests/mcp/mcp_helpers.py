"""Shared by the MCP tests."""

from __future__ import annotations

from typing import cast

from mcp.types import RequestParamsMeta


def session_meta(session: str) -> RequestParamsMeta:
    """A call's ``_meta`` naming the client's session (an open map the type checker cannot
    see through)."""
    return cast(RequestParamsMeta, {"sessionId": session})
