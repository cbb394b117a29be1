"""``orbital import-from``: bring another tool's memory in as entries, or take an import back."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

from orbital.cli._app import cli, project_of, project_option, reports_errors
from orbital.cli._person import caller_actor, person_options, person_session


@cli.command("import-from")
@project_option
@person_options
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Show what would be added; change nothing.")
@click.option(
    "--undo", "undo", default=None, metavar="BATCH", help="Remove what import BATCH added."
)
@click.option(
    "--auto-memory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Claude Code's auto-memory folder (default: found from this checkout's path).",
)
@click.option("--json", "as_json", is_flag=True, help="The report as JSON.")
@click.pass_context
@reports_errors
def import_from(
    ctx: click.Context,
    project_path: Path,
    paths: tuple[Path, ...],
    dry_run: bool,
    undo: str | None,
    auto_memory: Path | None,
    as_json: bool,
) -> None:
    """Import CLAUDE.md, CLAUDE.local.md, .claude/rules/, Claude Code's auto memory, AGENTS.md,
    Cursor rules and a Cline memory bank (or only the files PATHS) as entries: each fact goes
    to DECISIONS, LESSONS or PROJECT_STATE with the file and line it came from, all in one
    batch. The source files are only read; importing again adds nothing."""
    service, project = project_of(ctx, project_path)
    pid = project.project_id
    actor = caller_actor(ctx, service, pid)
    session = person_session(actor)
    if undo is not None:
        if dry_run or paths:
            raise click.UsageError(
                "--undo takes a batch back: it goes with no file and no --dry-run"
            )
        events = service.undo_import(pid, undo, actor=actor, session=session)
        removed = sum(e.type == "entry.retired" for e in events)
        click.echo(f"import {undo} taken back: {_count(removed, 'entry', 'entries')} removed")
        return
    report = service.import_from(
        pid, paths, actor=actor, session=session, dry_run=dry_run, auto_memory=auto_memory
    )
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if not report.sources:
        click.echo(
            "nothing to import: no CLAUDE.md, AGENTS.md, Cursor rules, auto memory "
            "or memory bank found"
        )
        return
    table = Table("from", "to", "entry", "text", box=None)
    for fact in report.facts:
        outcome = fact.skipped or fact.entry or "(new)"
        cells = (fact.source, fact.file, outcome, fact.text.split("\n", 1)[0][:70])
        table.add_row(*(Text(cell) for cell in cells))  # the words as written: no markup
    Console(soft_wrap=not sys.stdout.isatty(), emoji=False).print(table)
    added = sum(1 for f in report.facts if not f.skipped)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    entries, files = _count(added, "entry", "entries"), _count(len(report.sources), "file")
    if report.dry_run:
        click.echo(f"dry run: {entries} would be added from {files}")
    elif added:
        click.echo(
            f"import {report.batch}: {entries} added from {files}; "
            f"`orbital import-from --undo {report.batch}` takes them back"
        )
    else:
        click.echo("nothing new: every fact is in memory already, or left out")


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
