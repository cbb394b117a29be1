"""The ``orbital`` command line. It parses arguments, calls the service, prints results;
rules live below it. Orbital's typed errors become one ``error:`` line and exit status 1."""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import msgspec

from orbital.clock import parse_instant
from orbital.errors import OrbitalError
from orbital.service import Audience, Credentials, HistoryQuery, Orbital

F = TypeVar("F", bound=Callable[..., Any])

project_option = click.option(
    "--project",
    "project_path",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The project directory (or any directory inside it).",
)


def _service(ctx: click.Context) -> Orbital:
    service = ctx.obj.get("service")
    if service is None:
        service = Orbital.open(ctx.obj["db"])
        ctx.obj["service"] = service
        ctx.call_on_close(service.close)
    assert isinstance(service, Orbital)
    return service


def _reports_errors(command: F) -> F:
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except OrbitalError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


@click.group()
@click.option(
    "--db",
    envvar="ORBITAL_DB",
    default=None,
    help="SQLAlchemy URL of the store (default: a SQLite file in the user data directory).",
)
@click.version_option(package_name="orbital-memory")
@click.pass_context
def cli(ctx: click.Context, db: str | None) -> None:
    """Orbital: event-sourced project memory for AI coding agents."""
    ctx.ensure_object(dict)
    ctx.obj["db"] = db


@cli.command()
@project_option
@click.option("--timezone", default="", help="IANA timezone for dates (default: local).")
@click.pass_context
@_reports_errors
def init(ctx: click.Context, project_path: Path, timezone: str) -> None:
    """Register the project and create its orbital/ directory."""
    project = _service(ctx).init_project(project_path, timezone=timezone)
    click.echo(f"project {project.project_id} at {project.root}")


@cli.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
@click.pass_context
@_reports_errors
def db_upgrade(ctx: click.Context) -> None:
    """Bring the schema to the newest migration (also done automatically at start)."""
    service = _service(ctx)
    click.echo(f"schema up to date ({service.store.backend})")


@cli.command()
@project_option
@click.option("--since", default=None, help="Only events recorded at or after this time.")
@click.option("--until", default=None, help="Only events recorded at or before this time.")
@click.option("--stream", default=None, help="Only this stream (e.g. ask:a1b2c3).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_context
@_reports_errors
def history(
    ctx: click.Context,
    project_path: Path,
    since: str | None,
    until: str | None,
    stream: str | None,
    as_json: bool,
) -> None:
    """List the project's events, oldest first."""
    from projections.history import summarize

    service = _service(ctx)
    project = service.project(project_path)
    query = HistoryQuery(
        since=parse_instant(since) if since else None,
        until=parse_instant(until) if until else None,
        stream=stream,
        exact_stream=stream is not None,
    )
    events = service.history(project.project_id, query)
    if as_json:
        encoder = msgspec.json.Encoder()
        for event in events:
            sys.stdout.buffer.write(encoder.encode(event) + b"\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("pos", "recorded (UTC)", "actor", "session", "stream", "event", box=None)
    for event in events:
        table.add_row(
            str(event.position),
            event.recorded_at.strftime("%Y-%m-%d %H:%M:%S"),
            event.actor.value,
            event.session or "",
            event.stream,
            summarize(event.event),
        )
    Console(soft_wrap=not sys.stdout.isatty()).print(table)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--allow-host",
    "extra_hosts",
    multiple=True,
    help="Another exact Host header value to answer to (name:port); repeatable.",
)
@click.option(
    "--max-body-bytes",
    default=None,
    type=click.IntRange(min=1),
    help="Largest request body accepted, larger is refused with 413 (default: 8 MiB).",
)
@click.pass_context
@_reports_errors
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    extra_hosts: tuple[str, ...],
    max_body_bytes: int | None,
) -> None:
    """Serve the HTTP API (loopback only unless --host says otherwise)."""
    import uvicorn

    from orbital.http import HttpSettings, create_app, loopback_hosts

    service = _service(ctx)
    settings = HttpSettings(allowed_hosts=(*loopback_hosts(port, host), *extra_hosts))
    if max_body_bytes is not None:
        settings = dataclasses.replace(settings, max_body_bytes=max_body_bytes)
    click.echo(f"Orbital serving on http://{host}:{port} (store: {service.store.backend})")
    uvicorn.run(create_app(service, settings), host=host, port=port, log_level="warning")


@cli.group()
def token() -> None:
    """HTTP credentials: an agent token or the person's Workbench token."""


@token.command("create")
@click.option(
    "--audience",
    type=click.Choice([a.value for a in Audience]),
    required=True,
    help="agent: the agent API; workbench: the person's routes (acts as the user).",
)
@click.option(
    "--project",
    "projects",
    multiple=True,
    help="Bind the token to this project (id or directory); repeatable. Default: every project.",
)
@click.option("--label", default="", help="A note to recognise the token by in `token list`.")
@click.pass_context
@_reports_errors
def token_create(ctx: click.Context, audience: str, projects: tuple[str, ...], label: str) -> None:
    """Create a token and print it once (only its hash is stored), alone on the last line."""
    service = _service(ctx)
    project_ids = [service.project(ref).project_id for ref in projects]
    issued = Credentials(service.store, service.clock).create(audience, project_ids, label=label)
    reach = ", ".join(issued.credential.projects) or "every project"
    click.echo(f"token {issued.credential.token_id} ({audience}; {reach}); shown only now:")
    click.echo(issued.token)


@token.command("revoke")
@click.argument("token_id")
@click.pass_context
@_reports_errors
def token_revoke(ctx: click.Context, token_id: str) -> None:
    """Revoke a token at once: requests with it get 401 from then on."""
    service = _service(ctx)
    revoked = Credentials(service.store, service.clock).revoke(token_id)
    assert revoked.revoked_at is not None
    click.echo(f"token {revoked.token_id} revoked at {revoked.revoked_at:%Y-%m-%d %H:%M:%S} UTC")


@token.command("list")
@click.pass_context
@_reports_errors
def token_list(ctx: click.Context) -> None:
    """Every token (never the secret): id, audience, projects, label, created, revoked."""
    from rich.console import Console
    from rich.table import Table

    service = _service(ctx)
    table = Table("id", "audience", "projects", "label", "created", "revoked", box=None)
    for credential in Credentials(service.store, service.clock).list():
        revoked = credential.revoked_at
        table.add_row(
            credential.token_id,
            credential.audience.value,
            ", ".join(credential.projects) or "(all)",
            credential.label,
            credential.created_at.strftime("%Y-%m-%dT%H:%MZ"),
            revoked.strftime("%Y-%m-%dT%H:%MZ") if revoked else "",
        )
    Console(soft_wrap=not sys.stdout.isatty()).print(table)


def main() -> None:
    cli(obj={})
