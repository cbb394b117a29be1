"""``orbital mcp``: the stdio MCP server for one project. It answers the handshake while a
thread opens the store (:mod:`orbital.mcp._stdio`); an unknown project is each tool call's
error and then the command's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors

if TYPE_CHECKING:
    from orbital.service import Orbital


@cli.command("mcp")
@project_option
@click.pass_context
@reports_errors
def mcp_command(ctx: click.Context, project_path: Path) -> None:
    """Serve the project's memory to an agent over MCP on stdin/stdout (acting as the agent).

    Register it with the agent, e.g. `claude mcp add orbital -- orbital mcp --project .`."""
    from orbital.mcp import serve_stdio

    def opener() -> tuple[Orbital, str]:
        service, project = project_of(ctx, project_path)
        return service, project.project_id

    serve_stdio(opener)
