"""Commands on the trust state of durable entries: the person's dispute, retract and reaffirm
(``orbital entry … --as-user``), and ``orbital beliefs`` (now, as of, or in force at a day)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click
import msgspec

from orbital.cli._app import cli, project_of, project_option, reports_errors
from orbital.cli._output import print_outcome
from orbital.cli._person import caller_actor, person_options, person_session
from orbital.clock import parse_as_of
from orbital.domain.trust import TRUST_ACTIONS, TrustAction
from projections.beliefs import TRUST_STATES, Belief, parse_day


@cli.group()
@person_options
def entry() -> None:
    """Dispute, retract or reaffirm a durable entry: the person's alone (--as-user); confirm
    the files it cites (the agent or the person)."""


_HELP: dict[TrustAction, str] = {
    "dispute": "Mark an entry disputed, with your reason (shown beside it in the view).",
    "retract": "Retract an entry: it is wrong; it leaves the view and moves to the archive.",
    "reaffirm": "Hold an entry true again (after a dispute, a retraction or a supersession).",
}


def _action(action: TrustAction) -> Callable[..., None]:
    @project_option
    @click.argument("entry_id")
    @click.option("--reason", default="", help="Why (required to dispute).")
    @click.option("--as-user", "as_user", is_flag=True, help="As the person (see `entry`).")
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    @reports_errors
    def change(
        ctx: click.Context,
        project_path: Path,
        entry_id: str,
        reason: str,
        as_user: bool,
        as_json: bool,
    ) -> None:
        ctx.obj["as_user"] = ctx.obj.get("as_user") or as_user
        service, project = project_of(ctx, project_path)
        pid = project.project_id
        actor = caller_actor(ctx, service, pid)
        done = service.trust.act(
            pid, entry_id, action, reason, actor=actor, session=person_session(actor)
        )
        print_outcome(done, as_json)

    change.__doc__ = _HELP[action]
    return change


for _name in TRUST_ACTIONS:
    entry.command(_name)(_action(_name))


@entry.command("confirm")
@project_option
@click.argument("entry_id")
@click.option("--as-user", "as_user", is_flag=True, help="As the person (see `entry`).")
@click.pass_context
@reports_errors
def confirm_command(ctx: click.Context, project_path: Path, entry_id: str, as_user: bool) -> None:
    """Confirm that an entry still holds with the files it cites as they are now (it needed
    a check: a cited file changed or is gone); as the agent, or the person with --as-user."""
    ctx.obj["as_user"] = ctx.obj.get("as_user") or as_user
    service, project = project_of(ctx, project_path)
    actor = caller_actor(ctx, service, project.project_id)
    done = service.citations.confirm(
        project.project_id, entry_id, actor=actor, session=person_session(actor)
    )
    if not done.events:
        click.echo(f"{entry_id}: every citation matches the files as they are; nothing to do")
    for event in done.events:
        click.echo(event.summary)


def _detail(b: Belief) -> str:
    if b.moved:
        return "; ".join(b.moved)
    if b.state == "superseded":
        since = f" since {b.since.isoformat()}" if b.since else ""
        return f"by {', '.join(b.by)}{since}"
    parts = [b.reason] if b.reason else []
    if b.restates:
        parts.append(f"restates {b.restates}")
    return "; ".join(parts)


@cli.command("beliefs")
@project_option
@click.option("--as-of", default=None, help="What was believed then: a time or @N.")
@click.option(
    "--in-force-at",
    default=None,
    help="What was in force on this day (YYYY-MM-DD), knowing what is known now.",
)
@click.option(
    "--state", "states", multiple=True, type=click.Choice(TRUST_STATES), help="Only these."
)
@click.option("--json", "as_json", is_flag=True, help="A JSON array of entries.")
@click.pass_context
@reports_errors
def beliefs_command(
    ctx: click.Context,
    project_path: Path,
    as_of: str | None,
    in_force_at: str | None,
    states: tuple[str, ...],
    as_json: bool,
) -> None:
    """List the durable entries with their trust state (held, needs-check, disputed,
    superseded, retracted)."""
    service, project = project_of(ctx, project_path)
    rows = service.trust.beliefs(
        project.project_id, states, as_of=parse_as_of(as_of), in_force_at=parse_day(in_force_at)
    )
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(rows) + b"\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("id", "file", "state", "status", "title", "detail", box=None)
    for b in rows:
        table.add_row(b.id, b.file, b.state, b.status, b.title, _detail(b))
    Console(soft_wrap=not sys.stdout.isatty()).print(table)
