"""Commands on asks: list them, open, close or reopen one (as the agent, or as the person with
their Workbench token), and bring legacy retractions in."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click
import msgspec

from orbital.cli import _run as run
from orbital.cli._app import (
    cli,
    project_of,
    project_option,
    reports_errors,
    transcript_option,
)
from orbital.cli._person import caller_actor, person_options, person_session


@cli.command("asks")
@project_option
@click.option(
    "--state",
    type=click.Choice(["open", "done", "dropped", "all"]),
    default="open",
    show_default=True,
)
@click.option("--json", "as_json", is_flag=True, help="A JSON array of asks.")
@click.pass_context
@reports_errors
def asks_command(ctx: click.Context, project_path: Path, state: str, as_json: bool) -> None:
    """List the project's asks."""
    service, project = project_of(ctx, project_path)
    chosen = service.asks(project.project_id, state)  # type: ignore[arg-type]
    if as_json:
        from orbital.domain.asks import ask_mark

        rows = [{**msgspec.structs.asdict(a), "quote": ask_mark(a)} for a in chosen]
        sys.stdout.buffer.write(msgspec.json.encode(rows) + b"\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("id", "state", "opened", "due", "updated", "by", "text", box=None)
    for ask in chosen:
        table.add_row(
            ask.id,
            ask.state,
            ask.opened.isoformat(),
            ask.due or "",
            ask.updated.isoformat(),
            ask.closed_by or "",
            ask.text,
        )
    Console(soft_wrap=not sys.stdout.isatty()).print(table)


@cli.group()
@person_options
def ask() -> None:
    """Open, close or reopen one ask: as the agent, or as the person with --as-user."""


@ask.command("open")
@project_option
@click.argument("text")
@click.option("--due", default=None, help="YYYY-MM-DD or YYYY-MM-DDTHH:MM.")
@click.option(
    "--distinct-from",
    "distinct_from",
    multiple=True,
    metavar="ID",
    help="A dropped ask this one resembles but is not (it was held naming it); repeatable.",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@reports_errors
def ask_open(
    ctx: click.Context,
    project_path: Path,
    text: str,
    due: str | None,
    distinct_from: tuple[str, ...],
    as_json: bool,
) -> None:
    """Open an ask (the agent is refused a repeat of an open or dropped ask, and held on one
    that resembles a dropped ask until it names it with --distinct-from)."""
    service, project = project_of(ctx, project_path)
    pid = project.project_id
    actor = caller_actor(ctx, service, pid)
    run.ask_open(service, pid, text, due, actor, as_json, distinct_from)


_CHANGE_HELP = {
    "done": "Mark an ask done (as the agent: stamped by:agent; quote the user's words).",
    "drop": "Drop an ask (as the agent: stamped by:agent; quote the user's words).",
    "reopen": "Reopen a closed ask.",
}


def _change(command: str) -> Callable[..., None]:
    @project_option
    @click.argument("ask_id")
    @click.option("--quote", default=None, help="The user's own words (quoted in the log).")
    @click.option("--session", default=None, help="The agent session this change belongs to.")
    @transcript_option
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    @reports_errors
    def change(
        ctx: click.Context,
        project_path: Path,
        ask_id: str,
        quote: str | None,
        session: str | None,
        transcript: Path | None,
        as_json: bool,
    ) -> None:
        service, project = project_of(ctx, project_path)
        pid = project.project_id
        actor = caller_actor(ctx, service, pid)
        run.ask_change(
            service,
            pid,
            command,
            ask_id,
            quote,
            actor,
            session=person_session(actor, session),
            transcript=transcript,
            as_json=as_json,
        )

    change.__doc__ = _CHANGE_HELP[command]
    return change


for _command in _CHANGE_HELP:
    ask.command(_command)(_change(_command))


@cli.command("migrate-retractions")
@project_option
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the plan; append nothing.")
@click.pass_context
@reports_errors
def migrate_retractions(
    ctx: click.Context, project_path: Path, path: Path | None, dry_run: bool
) -> None:
    """Bring a legacy retractions.md and [user] lines of PROJECT_STATE.md into ask events."""
    service, project = project_of(ctx, project_path)
    report = service.migrate_retractions(
        project.project_id, path, dry_run=dry_run, progress=sys.stderr.isatty()
    )
    for bad in report.unparsed:
        click.echo(
            f"warning: line {bad.line} is not a retraction, left as is: {bad.text}", err=True
        )
    if report.already_migrated:
        if report.found:
            click.echo("nothing to migrate: every legacy item is already an ask")
        else:
            click.echo(
                "nothing to migrate: no retraction lines and no [user] lines in PROJECT_STATE.md"
            )
        return
    if dry_run:
        for line in report.plan:
            click.echo(line)
        click.echo(
            f"dry run: would open {report.opened} ask(s), {report.dropped} dropped "
            "(an item without a usable 6-hex legacy id gets a new id when it really runs)"
        )
        return
    click.echo(
        f"migrated: opened {report.opened} ask(s), {report.dropped} of them dropped "
        f"({report.appended_events} events)"
    )
