"""Commands over a project's whole log: ``export`` and ``import`` of it as one file, and the
person's ``revert`` of the memory files to an earlier place in it."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors, service_of
from orbital.cli._person import caller_actor, person_options
from orbital.errors import InvalidInput

_CHUNK = 1 << 16


@cli.command("export")
@project_option
@click.option(
    "--output",
    "-o",
    default="-",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="The file to write (default: standard output).",
)
@click.option("--all", "whole_store", is_flag=True, help="Every project of the store.")
@click.pass_context
@reports_errors
def export(ctx: click.Context, project_path: Path, output: Path, whole_store: bool) -> None:
    """Write the project's whole log (or, with --all, the store's) as one gzip-compressed
    JSON Lines file: events with their ids, actors, sessions and times, in order; the
    projects' timezones; credentials' names, never their tokens."""
    if whole_store:
        service, pid = service_of(ctx), None
    else:
        service, project = project_of(ctx, project_path)
        pid = project.project_id
    chunks = service.export_log(pid)
    if str(output) == "-":
        if sys.stdout.isatty():
            raise InvalidInput("the export is compressed bytes: pass --output FILE or redirect")
        for chunk in chunks:
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
        return
    temp = output.with_name(f".{output.name}.part")
    with temp.open("wb") as out:
        for chunk in chunks:
            out.write(chunk)
    temp.replace(output)
    click.echo(f"exported to {output}", err=True)


def _read(path: Path) -> Iterator[bytes]:
    with sys.stdin.buffer if str(path) == "-" else path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            yield chunk


@cli.command("import")
@project_option
@click.argument(
    "file", type=click.Path(dir_okay=False, allow_dash=True, exists=True, path_type=Path)
)
@click.pass_context
@reports_errors
def import_(ctx: click.Context, project_path: Path, file: Path) -> None:
    """Import this checkout's project from an exported FILE: registered with its id,
    timezone and whole history, its files written. Run it in a checkout of the project
    (its committed orbital/project-id names it); importing again changes nothing."""
    service = service_of(ctx)
    report = service.import_log(project_path, _read(file))
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    if report.credentials:
        n = len(report.credentials)
        came = "a credential came without its token" if n == 1 else f"{n} credentials came"
        names = ", ".join(
            " ".join(filter(None, (c.token_id, c.label, f"({c.audience})")))
            for c in report.credentials
        )
        click.echo(
            f"{came} (tokens never travel): {'it is' if n == 1 else 'each is'} listed, and no "
            f"token verifies it; make new ones with `orbital token create` for: {names}",
            err=True,
        )
    project = report.project
    click.echo(
        f"project {service.names.of(project.project_id)} at {project.root}: "
        f"{report.imported} events imported, {report.present} already here"
    )


@cli.command()
@project_option
@person_options
@click.argument("target")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@reports_errors
def revert(ctx: click.Context, project_path: Path, target: str, as_json: bool) -> None:
    """Bring the memory files back to how they stood at TARGET: a position (@1200) or an
    event id (just after that event). Appends the changes that undo what came since;
    nothing is rewritten, and a revert is reverted the same way. The person's alone."""
    import msgspec

    service, project = project_of(ctx, project_path)
    pid = project.project_id
    report = service.revert(pid, target, actor=caller_actor(ctx, service, pid))
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
        return
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    changes = Counter(event.type for event in report.events[1:])
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(changes.items()))
    after = f" (just after event {report.event_id})" if report.event_id else ""
    click.echo(f"reverted to @{report.position}{after}: {changes.total()} changes: {kinds}")
