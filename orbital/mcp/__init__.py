"""The MCP interface: Orbital's memory as tools and resources for any agent that speaks the
Model Context Protocol, always acting as the agent (never as the user). It calls the service
only. Public API: :func:`build_server` (used by the HTTP mount) and :func:`serve_stdio`
(``orbital mcp``)."""

from orbital.mcp._caller import SESSION_META_KEYS
from orbital.mcp._server import RESOURCE_PREFIX, build_server, serve_stdio

__all__ = ["RESOURCE_PREFIX", "SESSION_META_KEYS", "build_server", "serve_stdio"]
