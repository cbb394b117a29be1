"""The MCP server over the service: its tools, one resource per projected file, and the stdio
transport. The HTTP transport is mounted by :mod:`orbital.http`."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FunctionResource

import orbital
from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES
from orbital.errors import OrbitalError, error_line
from orbital.mcp._caller import BindCaller, ProjectOf, caller
from orbital.mcp._tools import register_tools
from orbital.service import Orbital

#: The scheme of the resources' URIs: ``orbital://memory/DECISIONS.md``.
RESOURCE_PREFIX = "orbital://memory/"

INSTRUCTIONS = (
    "Orbital is this project's memory, shared with the user and other agents. Read "
    "memory_context at the start of a task. Record what lasts with memory_write (read the file "
    "first) and what the user asks for with ask_open; close or reopen an ask only on the "
    "user's own words, quoted. A refusal is final for that call: do not retry it reworded."
)


def _reader(service: Orbital, name: str) -> FunctionResource:
    def read() -> str:
        try:
            return service.read_file(caller().project, name)
        except OrbitalError as exc:
            raise ResourceError(error_line(exc)) from exc

    archive = name in ARCHIVE_FILES.values()
    return FunctionResource.from_function(
        read,
        uri=RESOURCE_PREFIX + name,
        name=name,
        description=("What was archived from " if archive else "The memory file ")
        + f"{name.replace('_ARCHIVE', '')}, as Orbital renders it from events.",
        mime_type="text/markdown",
    )


def build_server(service: Orbital, project_of: ProjectOf) -> MCPServer:
    """The MCP server acting as the agent on the project ``project_of`` names per request."""
    server = MCPServer(
        "orbital",
        title="Orbital project memory",
        instructions=INSTRUCTIONS,
        version=orbital.__version__,
        log_level="WARNING",
        middleware=[BindCaller(project_of)],
    )
    register_tools(server, service)
    for name in (*MEMORY_FILES.values(), *ARCHIVE_FILES.values()):
        server.add_resource(_reader(service, name))
    return server


def serve_stdio(service: Orbital, project: str) -> None:
    """Serve ``project`` on stdin/stdout until the client closes the pipe."""
    server = build_server(service, lambda _ctx: project)
    anyio.run(server.run_stdio_async)
