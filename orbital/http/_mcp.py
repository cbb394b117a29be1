"""``/mcp``: the MCP server over streamable HTTP, behind an agent token.

Each request is admitted here before the SDK sees it: the ``Origin`` is checked on every
method (the MCP spec asks servers to refuse foreign origins, reads included), the bearer must
be a live agent token, and the project is the ``project`` query parameter, or the one project
the token reaches. Refusals are problem details like the rest of the API; the ``Host``
allowlist wraps the whole app already. The SDK runs stateless with JSON answers: the
token is checked on every request, so no server-side MCP session is needed.

The SDK (with pydantic and its Starlette stack, about half of a server's memory) is loaded by
the first admitted ``/mcp`` request, not at start: a server no agent talks MCP to never pays
for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from litestar import Litestar, asgi
from litestar.connection import ASGIConnection
from litestar.datastructures import Headers
from litestar.handlers import ASGIRouteHandler
from litestar.types import ASGIApp, Receive, Scope, Send

from orbital.errors import InvalidInput, UnknownProject
from orbital.http._auth import verified_caller
from orbital.http._safety import refuse_cross_site
from orbital.http._settings import HttpSettings
from orbital.service import Audience, Orbital

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import MCPServer

#: Where the admitted project waits for the MCP server, in the request scope's ``state``.
_PROJECT = "orbital.mcp.project"


def _project_of(ctx: ServerRequestContext[Any, Any]) -> str:
    assert ctx.request is not None, "an HTTP request carries its Starlette request"
    project: str = ctx.request.scope["state"][_PROJECT]
    return project


def _sdk_server(service: Orbital, settings: HttpSettings) -> MCPServer:
    """The SDK server with its streamable HTTP transport set up (imports the SDK)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from orbital.mcp import build_server

    server = build_server(service, _project_of)
    # The SDK's own Host/Origin check is off: the app's allowlist and the check in the route
    # do it once, with the same hosts and the same problem details as every other route.
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return server


class _LazySdk:
    """The SDK's request handler, built by the first request that needs it. Its session
    manager runs in a task of its own (its task group must be left by the task that entered
    it) until the app shuts down."""

    def __init__(self, build: Callable[[], MCPServer]) -> None:
        self._build = build
        self._handle: ASGIApp | None = None
        self._lock: asyncio.Lock | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def handle(self) -> ASGIApp:
        if self._handle is None:
            self._lock = self._lock or asyncio.Lock()
            async with self._lock:
                if self._handle is None:
                    self._handle = await self._start()
        return self._handle

    async def _start(self) -> ASGIApp:
        server = await asyncio.to_thread(self._build)  # seconds of imports, off the loop
        ready, stop = asyncio.Event(), asyncio.Event()

        async def run() -> None:
            async with server.session_manager.run():
                ready.set()
                await stop.wait()

        task = asyncio.create_task(run())
        waiting = asyncio.create_task(ready.wait())
        await asyncio.wait((task, waiting), return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if task.done():
            task.result()  # the manager failed to start: its error, to this request
        self._stop, self._task = stop, task
        # Litestar and Starlette type the same ASGI callables differently.
        return cast(ASGIApp, server.session_manager.handle_request)

    @asynccontextmanager
    async def running(self, _app: Litestar) -> AsyncIterator[None]:
        """The app's lifespan: stops the session manager if a request started it."""
        try:
            yield
        finally:
            if self._stop is not None and self._task is not None:
                self._stop.set()
                await self._task
            self._handle = self._lock = self._stop = self._task = None


def mcp_mount(
    service: Orbital, settings: HttpSettings
) -> tuple[ASGIRouteHandler, Callable[[Litestar], AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` route and the lifespan that stops the SDK's request handling."""
    sdk = _LazySdk(lambda: _sdk_server(service, settings))
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
        handle = await sdk.handle()
        await handle(scope, receive, send)

    return mcp, sdk.running
