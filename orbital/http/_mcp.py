"""``/mcp``: the MCP server over streamable HTTP, behind an agent token.

Each request is admitted here before the SDK sees it: the ``Origin`` is checked on every
method (the MCP spec asks servers to refuse foreign origins, reads included), the bearer must
be a live agent token, and the project is the ``project`` query parameter, or the one project
the token reaches. Refusals are problem details like the rest of the API; the ``Host``
allowlist wraps the whole app already. The SDK runs stateless with JSON answers: the
token is checked on every request, so no server-side MCP session is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

from litestar import Litestar, asgi
from litestar.connection import ASGIConnection
from litestar.datastructures import Headers
from litestar.handlers import ASGIRouteHandler
from litestar.types import ASGIApp, Receive, Scope, Send
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings

from orbital.errors import InvalidInput, UnknownProject
from orbital.http._auth import verified_caller
from orbital.http._safety import refuse_cross_site
from orbital.http._settings import HttpSettings
from orbital.mcp import build_server
from orbital.service import Audience, Orbital

#: Where the admitted project waits for the MCP server, in the request scope's ``state``.
_PROJECT = "orbital.mcp.project"


def _project_of(ctx: ServerRequestContext[Any, Any]) -> str:
    assert ctx.request is not None, "an HTTP request carries its Starlette request"
    project: str = ctx.request.scope["state"][_PROJECT]
    return project


def mcp_mount(
    service: Orbital, settings: HttpSettings
) -> tuple[ASGIRouteHandler, Callable[[Litestar], AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route and the lifespan the SDK's request handling needs."""
    server = build_server(service, _project_of)
    # The SDK's own Host/Origin check is off: the app's allowlist and the check below do it
    # once, with the same hosts and the same problem details as every other route.
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    # Litestar and Starlette type the same ASGI callables differently.
    handle = cast(ASGIApp, server.session_manager.handle_request)
    hosts = frozenset(host.lower() for host in settings.allowed_hosts)

    @asgi("/mcp", is_mount=True, copy_scope=True)
    async def mcp(scope: Scope, receive: Receive, send: Send) -> None:
        connection: ASGIConnection[Any, Any, Any, Any] = ASGIConnection(scope)
        refuse_cross_site(Headers.from_scope(scope), hosts)
        credential = verified_caller(connection, service.credentials, Audience.AGENT)
        project = connection.query_params.get("project") or (
            credential.projects[0] if len(credential.projects) == 1 else None
        )
        if project is None:
            raise InvalidInput(
                "this agent token reaches more than one project: name one as /mcp?project=<id>"
            )
        if not credential.reaches(project):
            raise UnknownProject(project)
        service.project_by_id(project)
        scope.setdefault("state", {})[_PROJECT] = project
        await handle(scope, receive, send)

    def lifespan(_app: Litestar) -> AbstractAsyncContextManager[None]:
        return server.session_manager.run()

    return mcp, lifespan
