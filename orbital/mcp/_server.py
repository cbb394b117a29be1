"""The MCP server over the service on the official SDK: its tools, one resource per projected
file. The HTTP transport mounts it (:mod:`orbital.http`); the stdio server lists what it
describes (:mod:`._manifest`, written from this server by a test). A call's arguments are checked
by :mod:`._schema` here as on stdio, before the SDK's own model sees them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FunctionResource

import orbital
from orbital.errors import OrbitalError, error_line
from orbital.mcp._answer import error
from orbital.mcp._caller import CALLER, Caller, caller, session_of
from orbital.mcp._calls import Calls
from orbital.mcp._manifest import INSTRUCTIONS, resources
from orbital.mcp._schema import argument_error
from orbital.mcp._tools import register_tools, result
from orbital.service import Orbital

ProjectOf = Callable[[ServerRequestContext[Any, Any]], str]


class BindCaller:
    """Server middleware: binds the request's :class:`Caller` while it is handled."""

    def __init__(self, project_of: ProjectOf) -> None:
        self._project_of = project_of

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        token = CALLER.set(Caller(self._project_of(ctx), session_of(ctx.meta)))
        try:
            return await call_next(ctx)
        finally:
            CALLER.reset(token)


async def check_arguments(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Server middleware: a tool call whose arguments do not fit the tool's schema is the
    tool error :func:`._schema.argument_error` words, as on stdio; anything else (an unknown
    tool, arguments that are not an object) is left to the SDK, which words it."""
    params = ctx.params or {}
    arguments = params.get("arguments") or {}
    if ctx.method == "tools/call" and isinstance(arguments, dict):
        problem = argument_error(str(params.get("name", "")), arguments)
        if problem is not None:
            return result(error(problem))
    return await call_next(ctx)


def _reader(service: Orbital, listed: dict[str, str]) -> FunctionResource:
    name = listed["name"]

    def read() -> str:
        try:
            return service.read_file(caller().project, name)
        except OrbitalError as exc:
            raise ResourceError(error_line(exc)) from exc

    return FunctionResource.from_function(
        read,
        uri=listed["uri"],
        name=name,
        description=listed["description"],
        mime_type=listed["mimeType"],
    )


def build_server(service: Orbital, project_of: ProjectOf) -> MCPServer:
    """The MCP server acting as the agent on the project ``project_of`` names per request."""
    server = MCPServer(
        "orbital",
        title="Orbital project memory",
        instructions=INSTRUCTIONS,
        version=orbital.__version__,
        log_level="WARNING",
        middleware=[BindCaller(project_of), check_arguments],
    )
    register_tools(server, Calls(service))
    for listed in resources():
        server.add_resource(_reader(service, listed))
    return server
