"""``orbital mcp``: the stdio MCP server for one project. The MCP SDK is imported only when
the command runs, so other commands do not pay for loading it."""

from __future__ import annotations

from pathlib import Path

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors


@cli.command("mcp")
@project_option
@click.pass_context
@reports_errors
def mcp_command(ctx: click.Context, project_path: Path) -> None:
    """Serve the project's memory to an agent over MCP on stdin/stdout (acting as the agent).

    Register it with the agent, e.g. `claude mcp add orbital -- orbital mcp --project .`."""
    service, project = project_of(ctx, project_path)
    from orbital.mcp import serve_stdio

    serve_stdio(service, project.project_id)
