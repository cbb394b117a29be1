"""``orbital purge``: the person takes a text out of the project's history for good (a leaked
secret), with the reason kept; the one removal the log allows (``orbital/service/_purge.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors
from orbital.cli._output import echo
from orbital.cli._person import caller_actor
from orbital.errors import InvalidInput


@cli.command("purge")
@project_option
@click.option("--text", default="", help="The text to take out, wherever it is.")
@click.option("--entry", "entry_id", default="", help="Every text an entry ever had (its id).")
@click.option("--event", default="", help="The texts of one event (its position or event id).")
@click.option("--reason", default="", help="Why it must go (required; kept in the audit).")
@click.option("--token", default=None, envvar="ORBITAL_TOKEN", help="The person's Workbench token.")
@click.pass_context
@reports_errors
def purge_command(
    ctx: click.Context,
    project_path: Path,
    text: str,
    entry_id: str,
    event: str,
    reason: str,
    token: str | None,
) -> None:
    """Remove a text from every event, snapshot, projected file, conflict copy and cache of
    this project, and compact the store; an audit event keeps its SHA-256 and your reason.
    The person's alone: needs their Workbench token (ORBITAL_TOKEN or --token)."""
    if not token:
        raise InvalidInput(
            "a purge is the person's alone: give their Workbench token in ORBITAL_TOKEN or "
            "--token (`orbital token create --audience workbench`)"
        )
    ctx.obj.update(as_user=True, token=token)
    service, project = project_of(ctx, project_path)
    actor = caller_actor(ctx, service, project.project_id)
    report = service.purges.purge(
        project.project_id,
        text=text,
        entry=entry_id,
        event=event,
        reason=reason,
        actor=actor,
    )
    for copy in report.conflicts:
        echo(f"warning: a hand edit not taken in was kept as orbital/{copy} first", err=True)
    n = len(report.positions)
    echo(f"purged: {n} event{'' if n == 1 else 's'} ({', '.join(map(str, report.positions))})")
    for path in report.files:
        echo(f"scrubbed: {path}")
    if report.ids:
        echo(
            f"warning: entry ids made from the text keep part of it: {', '.join(report.ids)} "
            "(ids are never rewritten)",
            err=True,
        )
    if report.compacted:
        echo("compacted: the store's files no longer hold the text")
    else:
        echo(
            "warning: another process was reading the store, so SQLite could not cut its -wal "
            "file: old pages may stay there until a checkpoint when no Orbital process is "
            "running (stop `orbital serve`, `follow` and `mcp` first next time)",
            err=True,
        )
