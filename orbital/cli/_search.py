"""``orbital search``: the project's memory searched by the database's full-text engine."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

from orbital.cli._app import cli, project_of, project_option, reports_errors
from orbital.clock import parse_instant
from projections.search import DEFAULT_LIMIT, search_query


@cli.command("search")
@project_option
@click.argument("words", nargs=-1, required=True)
@click.option("--file", "file_name", default="", help="Only this memory file (DECISIONS.md…).")
@click.option("--trust", default="", help="Only entries in this trust state (held, disputed…).")
@click.option("--actor", default="", help="Only texts written by this actor (agent, user…).")
@click.option("--since", default=None, help="Only texts written at or after this time.")
@click.option("--until", default=None, help="Only texts written at or before this time.")
@click.option(
    "--all",
    "past",
    is_flag=True,
    help="Also superseded, retracted and retired entries, and the texts entries had before.",
)
@click.option("--limit", type=int, default=DEFAULT_LIMIT, help="At most this many hits.")
@click.option("--json", "as_json", is_flag=True, help="A JSON array of hits.")
@click.pass_context
@reports_errors
def search_command(
    ctx: click.Context,
    project_path: Path,
    words: tuple[str, ...],
    file_name: str,
    trust: str,
    actor: str,
    since: str | None,
    until: str | None,
    past: bool,
    limit: int,
    as_json: bool,
) -> None:
    """Search the project's memory: live entries, archives and asks (--all: the past too),
    best match first; each hit with its id (open it with `orbital show --ref`), its state
    and where it lives. Every word must match; what you type is taken as words only."""
    query = search_query(
        " ".join(words),
        file=file_name,
        trust=trust,
        actor=actor,
        since=parse_instant(since) if since else None,
        until=parse_instant(until) if until else None,
        past=past,
        limit=limit,
    )
    service, project = project_of(ctx, project_path)
    hits = service.search(project.project_id, query)
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(hits) + b"\n")
        return
    if not hits:
        click.echo("nothing found")
        return
    for hit in hits:
        click.echo(f"{hit.id}  [{hit.state}]  {hit.where}  {hit.at:%Y-%m-%d} {hit.actor}")
        click.echo(f"    {hit.title}")
