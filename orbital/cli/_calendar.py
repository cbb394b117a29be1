"""``orbital calendar``: the address a calendar app subscribes to, or the feed itself."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors


@cli.command("calendar")
@project_option
@click.option(
    "--url",
    "base_url",
    default="http://127.0.0.1:8765",
    show_default=True,
    help="Where `orbital serve` answers, as the calendar app will reach it.",
)
@click.option("--feed", is_flag=True, help="Print the feed (iCalendar) instead; makes no token.")
@click.option("--label", default="calendar", show_default=True, help="The token's note.")
@click.pass_context
@reports_errors
def calendar_command(
    ctx: click.Context, project_path: Path, base_url: str, feed: bool, label: str
) -> None:
    """Make a read-only calendar token for this project and print the feed's address (shown
    only now; `orbital token revoke ID` ends it). The feed holds the open asks' dues and
    PROJECT_STATE's [due:…] facts; a closed ask leaves it."""
    service, project = project_of(ctx, project_path)
    if feed:
        sys.stdout.write(service.calendar_feed(project.project_id))
        return
    issued = service.credentials.create("calendar", [project.project_id], label=label)
    click.echo(
        f"calendar token {issued.credential.token_id} for {service.names.of(project.project_id)}; "
        "subscribe to "
        "this address (shown only now; it reads this project's dated asks and facts, nothing "
        "else):"
    )
    click.echo(
        f"{base_url.rstrip('/')}/api/v1/calendar/{project.project_id}/feed.ics?token={issued.token}"
    )
