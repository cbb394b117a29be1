"""The memory editor's commands: a model pass, or a choices document applied without a model;
an agent's checkpoint (a pass now, in the background); and the view file's refresh, which a
hook starts detached as it starts the editor's pass."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

import click
import msgspec

from orbital.agents.claude_code import VIEW_FILE
from orbital.cli._app import cli, project_of, project_option, reports_errors
from orbital.cli._output import EXIT_STATUS, print_events
from orbital.errors import Unavailable
from orbital.service import EditorReport


@cli.group()
def editor() -> None:
    """The memory editor: a model pass, or a choices document applied without a model."""


sessions_option = click.option(
    "--sessions",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of session transcripts (default: orbital/sessions).",
)


#: What each outcome of ``editor run`` means, after its code on the first line.
OUTCOME_WORDS = {
    "edited": "the pass changed the memory (below)",
    "no_change": "the pass ran and changed nothing",
    "failed": "the pass did not finish; nothing it chose was written",
    "not_needed": "no pass ran: every memory file is within its soft budget "
    "(`orbital editor run --force` runs one anyway)",
    "no_delta": "no pass ran: nothing changed since the last one "
    "(`orbital editor run --force` runs one anyway)",
    "too_soon": "no pass ran: the last one was less than 30 minutes ago "
    "(`orbital editor run --force` runs one anyway)",
    "debounced": "no pass ran: one started less than 5 minutes ago "
    "(`orbital editor run --force` runs one anyway)",
    "in_flight": "no pass ran: one is running for this project now",
}


def _print_editor(report: EditorReport, as_json: bool) -> None:
    """``--json``: the whole report; else its outcome in words, then one line per
    applied/rejected/skipped item. A failed run exits as the model's family does
    (Unavailable, 6; its error on stderr)."""
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        head = report.outcome
        if report.run_id:
            head += (
                f" (run {report.run_id}; backup: position {report.backup_position}, "
                f"see `orbital show FILE --as-of @{report.backup_position}`; "
                f"{report.calls} model call(s))"
            )
        words = OUTCOME_WORDS.get(report.outcome)
        click.echo(f"{head}: {words}" if words else head)
        for item in report.applied:
            what = item.file or item.session
            ids = ",".join(item.ids) + " -> " if item.ids else ""
            click.echo(f"applied {item.kind} {what} {ids}{item.id}".rstrip())
        for reason in report.rejected:
            click.echo(f"rejected {reason}")
        for name in report.skipped_files:
            click.echo(f"skipped {name}: changed during the run (nothing written to it)")
        print_events(report.backstop, prefix="backstop ")
        if report.error:
            click.echo(f"error: {report.error}", err=True)
    if report.outcome == "failed":
        sys.exit(EXIT_STATUS[Unavailable])


@editor.command("run")
@project_option
@click.option("--force", is_flag=True, help="Run now whatever the budget and interval gates say.")
@sessions_option
@click.option(
    "--session",
    default="",
    help="The session that just ended: the person's corrections in it may become lessons.",
)
@click.option(
    "--checkpoint",
    "reason",
    default="",
    help="Run the pass an agent asked for (`orbital checkpoint`), with its reason.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run report as JSON.")
@click.pass_context
@reports_errors
def editor_run(
    ctx: click.Context,
    project_path: Path,
    force: bool,
    sessions: Path | None,
    session: str,
    reason: str,
    as_json: bool,
) -> None:
    """One editor pass (the model: ORBITAL_EDITOR_PROVIDER…), then the backstop."""
    service, project = project_of(ctx, project_path)
    report = service.editor_run(
        project.project_id, force=force, sessions=sessions, session=session, reason=reason
    )
    _print_editor(report, as_json)


@cli.command("checkpoint")
@project_option
@click.argument("reason")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_context
@reports_errors
def checkpoint(ctx: click.Context, project_path: Path, reason: str, as_json: bool) -> None:
    """Ask the memory editor for a consolidation now, saying why: prints its status at once;
    the pass runs in the background and its result comes with the next reminder."""
    service, project = project_of(ctx, project_path)
    report = service.editor.checkpoint(project.project_id, reason)
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        click.echo(report.line())


@editor.command("apply")
@project_option
@click.argument("choices", type=click.File("r", encoding="utf-8"))
@sessions_option
@click.option("--json", "as_json", is_flag=True, help="Print applied and rejected as JSON.")
@click.pass_context
@reports_errors
def editor_apply(
    ctx: click.Context,
    project_path: Path,
    choices: IO[str],
    sessions: Path | None,
    as_json: bool,
) -> None:
    """Apply a choices document (CHOICES.json, or - for stdin) as the editor would."""
    service, project = project_of(ctx, project_path)
    report = service.editor_apply(project.project_id, choices.read(), sessions=sessions)
    _print_editor(report, as_json)


@editor.command("view-file", hidden=True)
@project_option
@click.pass_context
@reports_errors
def editor_view_file(ctx: click.Context, project_path: Path) -> None:
    """Bring Claude Code's imported view file up to date: what a session-start hook leaves
    to a detached process (rendering the view counts tokens, so no one should wait for it)."""
    service, project = project_of(ctx, project_path)
    service.agents.refresh_view(project, Path(project.root) / VIEW_FILE)
