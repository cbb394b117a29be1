"""Localhost safety: an exact ``Host`` allowlist and a cross-site check on writes.

A page on another site can make a browser send requests to 127.0.0.1, and DNS rebinding can
make it look same-origin. The ``Host`` allowlist refuses any request addressed to a name we
do not serve under; it wraps the whole app, outside routing, so a path no route matches is
refused too rather than answered with a 404. The ``Origin`` / ``Sec-Fetch-Site`` check
refuses state-changing requests a browser sends on behalf of another site. Clients that are
not browsers (agents, curl) send neither header and pass. No CORS headers are ever sent, so
no other origin may read replies.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

import msgspec
from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.exceptions import PermissionDeniedException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from orbital.http._problems import PROBLEM_JSON, Problem, problem_type

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_SAME_SITE_FETCH = frozenset({"same-origin", "none"})
#: WebSocket close code for a policy violation.
_POLICY_VIOLATION = 1008


class HostAllowlist:
    """An ASGI wrapper that answers 403 to any request whose ``Host`` is not allowed."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self._app = app
        self._hosts = frozenset(host.lower() for host in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = Headers.from_scope(scope).get("host", "").lower()
        if host in self._hosts:
            await self._app(scope, receive, send)
            return
        if scope["type"] == ScopeType.WEBSOCKET:
            await send({"type": "websocket.close", "code": _POLICY_VIOLATION, "reason": ""})
            return
        detail = (
            f"requests addressed to host {host or '(none)'!r} are refused; "
            f"this server answers only as {', '.join(sorted(self._hosts))}"
        )
        body = msgspec.json.encode(Problem(problem_type("forbidden"), "Forbidden", 403, detail))
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", PROBLEM_JSON.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})


class CrossSiteGuard(ASGIMiddleware):
    """Refuses (403) state-changing requests a browser sends on behalf of another site."""

    def __init__(self, allowed_hosts: Iterable[str]) -> None:
        self._hosts = frozenset(host.lower() for host in allowed_hosts)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if scope.get("method", "GET") not in _SAFE_METHODS:
            refuse_cross_site(Headers.from_scope(scope), self._hosts)
        await next_app(scope, receive, send)


def refuse_cross_site(headers: Headers, hosts: frozenset[str]) -> None:
    """403 when a browser sends the request on behalf of another site: a cross-site
    ``Sec-Fetch-Site``, or an ``Origin`` that is not one of ``hosts`` (lower case)."""
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site.lower() not in _SAME_SITE_FETCH:
        raise PermissionDeniedException(
            f"a {fetch_site} request may not change anything here; "
            "use the Workbench page itself or a client that is not a browser"
        )
    origin = headers.get("origin")
    if origin is None:
        return
    parts = urlsplit(origin)
    if parts.scheme not in {"http", "https"} or parts.netloc.lower() not in hosts:
        raise PermissionDeniedException(
            f"requests from origin {origin!r} may not change anything here; "
            "only this server's own pages may"
        )
