"""The MCP interface: Orbital's memory as tools and resources for any agent that speaks the
Model Context Protocol, always acting as the agent (never as the user). It calls the service
only. Public API: :func:`build_server` (the SDK server the HTTP mount serves) and
:func:`serve_stdio` (``orbital mcp``, which answers without loading the SDK); both load on
first use."""

from typing import TYPE_CHECKING

from orbital.lazy import lazy_names
from orbital.mcp._caller import SESSION_META_KEYS
from orbital.mcp._manifest import RESOURCE_PREFIX

if TYPE_CHECKING:
    from orbital.mcp._server import build_server
    from orbital.mcp._stdio import serve_stdio

__all__ = ["RESOURCE_PREFIX", "SESSION_META_KEYS", "build_server", "serve_stdio"]

__getattr__ = lazy_names(
    __name__, {"build_server": "orbital.mcp._server", "serve_stdio": "orbital.mcp._stdio"}
)
