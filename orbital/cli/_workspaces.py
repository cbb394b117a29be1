"""Workspaces and the texts the agent sees first: ``orbital workspace create|list|lessons``
and ``orbital describe`` (the project description, or ``--workspace`` its workspace's
context). A text comes on stdin; with ``--show``, or with nothing piped in (stdin a
terminal), the command prints the text instead. Over its limit the text is refused (exit 1,
the ``error:`` line says how many characters to cut) and nothing is saved."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors, service_of
from orbital.cli._person import caller_actor, person_options
from orbital.clock import parse_as_of

_AS_OF = click.option(
    "--as-of",
    "as_of",
    default=None,
    help="With --show: the text as it stood then (an ISO 8601 time, a date, or @N).",
)
_SHOW = click.option("--show", is_flag=True, help="Print the text instead of setting it.")


def _stdin_text() -> str | None:
    """The text piped in; None when stdin is a terminal (nothing was piped)."""
    if sys.stdin.isatty():
        return None
    return sys.stdin.buffer.read().decode("utf-8", errors="strict")


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


@cli.group()
def workspace() -> None:
    """Workspaces: a named set of projects sharing a context, a time zone and lessons."""


@workspace.command("create")
@click.argument("name")
@click.option(
    "--timezone", default="", help="IANA zone for the view's dates (default: each project's)."
)
@click.pass_context
@reports_errors
def create(ctx: click.Context, name: str, timezone: str) -> None:
    """Create workspace NAME (lowercase letters, digits, hyphens); projects join it with
    `orbital init --workspace NAME`."""
    from orbital.events import Actor

    created = service_of(ctx).workspaces.create(name, timezone=timezone, actor=Actor.AGENT)
    click.echo(f"workspace {created.name} ({created.timezone or 'the time zone of each project'})")


@workspace.command("list")
@click.pass_context
@reports_errors
def listing(ctx: click.Context) -> None:
    """The workspaces: name, time zone, member projects (by name)."""
    service = service_of(ctx)
    labels = service.names.labels()
    for found in service.workspaces.workspaces():
        members = ", ".join(labels.get(m, m) for m in found.members) or "-"
        click.echo(f"{found.name}\t{found.timezone or 'project'}\t{members}")


@workspace.command("lessons")
@project_option
@_SHOW
@_AS_OF
@click.option("--base", type=int, default=None, help="The version read (--show --json).")
@click.option("--json", "as_json", is_flag=True, help="With --show: {text, version, workspace}.")
@person_options
@click.pass_context
@reports_errors
def lessons(
    ctx: click.Context,
    project_path: Path,
    show: bool,
    as_of: str | None,
    base: int | None,
    as_json: bool,
) -> None:
    """The lessons of this project's workspace (LESSONS.md's format), kept once for all its
    projects and shown in each one's view: stdin replaces them; --show prints them."""
    service, project = project_of(ctx, project_path)
    text = None if show else _stdin_text()
    if text is None:
        _print(service.workspaces.read(project.project_id, "lessons", parse_as_of(as_of)), as_json)
        return
    actor = caller_actor(ctx, service, project.project_id)
    saved = service.workspaces.set_lessons(project.project_id, text, actor=actor, base=base)
    _warn(saved.warnings)
    click.echo(f"workspace lessons saved (version {saved.version})")


@cli.command()
@project_option
@click.option("--workspace", "of_workspace", is_flag=True, help="The workspace context instead.")
@_SHOW
@_AS_OF
@click.option("--json", "as_json", is_flag=True, help="With --show: {text, version, workspace}.")
@person_options
@click.pass_context
@reports_errors
def describe(
    ctx: click.Context,
    project_path: Path,
    of_workspace: bool,
    show: bool,
    as_of: str | None,
    as_json: bool,
) -> None:
    """Set the project description (at most 2,000 characters) from stdin, or with
    --workspace the context of its workspace (at most 4,000); --show prints it."""
    service, project = project_of(ctx, project_path)
    part = "context" if of_workspace else "description"
    text = None if show else _stdin_text()
    if text is None:
        _print(service.workspaces.read(project.project_id, part, parse_as_of(as_of)), as_json)
        return
    actor = caller_actor(ctx, service, project.project_id)
    pid = project.project_id
    if of_workspace:
        _warn(service.workspaces.set_context(pid, text, actor=actor).warnings)
    else:
        _warn(service.workspaces.describe(pid, text, actor=actor).warnings)
    click.echo(f"{'workspace context' if of_workspace else 'project description'} saved")


def _print(found: object, as_json: bool) -> None:
    import msgspec

    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(found) + b"\n")
        return
    text = getattr(found, "text", "")
    click.echo(text, nl=not text.endswith("\n") and bool(text))
