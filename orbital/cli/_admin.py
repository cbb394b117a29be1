"""Commands that set Orbital up and run it: registering projects, the schema, the HTTP server,
and its credentials."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import sys
from pathlib import Path

import click

from orbital.cli._app import cli, project_of, project_option, reports_errors, service_of
from orbital.cli._person import caller_actor, person_options
from orbital.errors import StoreCorrupt
from orbital.service import Audience


@cli.command()
@project_option
@click.option("--timezone", default="", help="IANA timezone for dates (default: local).")
@click.option("--workspace", default=None, help="Join this workspace (`orbital workspace create`).")
@click.option(
    "--new-project",
    is_flag=True,
    help="A checkout of a project this store does not know becomes a new, separate project "
    "(its orbital/project-id is replaced) instead of being refused.",
)
@click.option(
    "--name",
    default="",
    help="A new project's display name (default: the folder's name); its id is random.",
)
@click.pass_context
@reports_errors
def init(
    ctx: click.Context,
    project_path: Path,
    timezone: str,
    workspace: str | None,
    new_project: bool,
    name: str,
) -> None:
    """Register the project and create its orbital/ directory (memory files already there
    are imported; one that cannot be read is kept beside, with a warning); --workspace: and
    join that workspace (a project belongs to at most one). A clone of a project kept in
    another store is refused: point --db / ORBITAL_DB at that store to join it."""
    from orbital.events import Actor

    service = service_of(ctx)
    report = service.init(project_path, timezone=timezone, new_project=new_project, name=name)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    pid = report.project.project_id
    called = service.names.of(pid)
    if name.strip() and " ".join(name.split()) != called:
        click.echo(
            f"warning: the project is called {called} already: "
            "`orbital project rename NAME` renames it",
            err=True,
        )
    click.echo(f"project {called} at {report.project.root} (id {pid})")
    if workspace is not None:
        pid = report.project.project_id
        joined = service.workspaces.join(pid, workspace, actor=Actor.AGENT)
        click.echo(f"{'joined' if joined else 'already in'} workspace {workspace}")


@cli.command()
@click.pass_context
@reports_errors
def projects(ctx: click.Context) -> None:
    """List the registered projects: the id used in HTTP paths, the display name, the
    directory, the timezone."""
    service = service_of(ctx)
    known = service.projects()
    names = service.names.all()
    for p in known:
        click.echo(f"{p.project_id}\t{names[p.project_id]}\t{p.root}\t{p.timezone or 'local'}")
    if not known:
        click.echo("no projects yet: run `orbital init` in a project directory")


@cli.group("project")
def project_group() -> None:
    """The project's display name (its id, in orbital/project-id, never changes)."""


@project_group.command("rename")
@click.argument("name")
@project_option
@person_options
@click.pass_context
@reports_errors
def project_rename(ctx: click.Context, name: str, project_path: Path) -> None:
    """Call the project NAME in every list (the Workbench, `orbital projects`, HTTP)."""
    service, project = project_of(ctx, project_path)
    pid = project.project_id
    renamed = service.names.rename(pid, name, actor=caller_actor(ctx, service, pid))
    called = service.names.of(pid)
    click.echo(f"project {pid} is {'now' if renamed else 'already'} called {called}")


@cli.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
@click.pass_context
@reports_errors
def db_upgrade(ctx: click.Context) -> None:
    """Bring the schema to the newest migration (also done automatically at start), and
    file every project's asks by the keys this version reads them by (else the first write
    that needs them does: minutes for a log of a million events)."""
    service = service_of(ctx)
    click.echo(f"schema up to date ({service.store_backend})")
    made = service.make_keys()
    click.echo(f"asks filed by their keys for {len(made)} project{'' if len(made) == 1 else 's'}")


@db.command("rescue")
@click.option(
    "--to",
    "to",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save the store as this new file (default: beside it, named for the moment).",
)
@click.pass_context
@reports_errors
def db_rescue(ctx: click.Context, to: Path | None) -> None:
    """Save a SQLite store deleted while a process (`orbital serve`) still holds it open: its
    data is copied from that process (Linux /proc) before it stops and takes the data with it."""
    from orbital.clock import clock_from_env
    from orbital.service import rescue

    done = rescue(ctx.obj["db"], to, clock_from_env())
    held = done.held
    click.echo(
        f"rescued the store ({done.events} events) from process {held.pid} ({held.command}) "
        f"as {done.saved}"
    )
    click.echo(
        f"to use it: stop that process, remove {done.store}-wal and {done.store}-shm (the "
        f"saved store holds what they had), then `mv {done.saved} {done.store}`"
    )


@db.command("status")
@click.pass_context
@reports_errors
def db_status(ctx: click.Context) -> None:
    """Whether the store takes writes, where it is, and the database underneath it."""
    service = service_of(ctx)
    status = service.store_status()
    click.echo(f"store: {status.state}{f' ({status.detail})' if status.detail else ''}")
    click.echo(f"location: {service.store_location}")
    click.echo(f"backend: {service.store_backend}\ndatabase: {status.database}")


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
@reports_errors
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    extra_hosts: tuple[str, ...],
    max_body_bytes: int | None,
) -> None:
    """Serve the HTTP API (loopback only unless --host says otherwise)."""
    _give_back_large_blocks()
    import uvicorn

    from orbital.http import HttpSettings, create_app, loopback_hosts

    service = service_of(ctx)
    settings = HttpSettings(
        allowed_hosts=(*loopback_hosts(port, host), *extra_hosts), own_process=True
    )
    if max_body_bytes is not None:
        settings = dataclasses.replace(settings, max_body_bytes=max_body_bytes)
    from orbital.watcher import Watcher, sync_all

    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # not every change it sees

    def report(message: str) -> None:
        click.echo(f"watch: {message}", err=True)

    from orbital.follower import Follower

    watching: list[Watcher | Follower] = []
    synced: list[str] = []  # said once the store is known not to be damaged
    if service.store_status().state != "store-corrupt":
        with contextlib.suppress(StoreCorrupt):  # said below, once
            sync_all(service, synced.append)
            watching = [Watcher(service, report), Follower(service, report)]
    status = service.store_status()
    if status.state == "store-corrupt":  # one line, then the reads that still work
        click.echo(f"error: {status.detail}", err=True)
        synced, watching = [], []
    else:  # found while serving: the same line, once
        service.when_damaged(
            lambda: click.echo(f"error: {service.store_status().detail}", err=True)
        )
    for message in synced:
        report(message)
    for started in watching:
        started.start()
    mode = f"; {status.state}: {status.detail}" if status.state == "read-only" else ""
    click.echo(f"Orbital serving on http://{host}:{port} (store: {service.store_backend}{mode})")
    click.echo(
        f"Workbench: http://{host}:{port}/workbench (sign in with a token from "
        "`orbital token create --audience workbench`)"
    )
    try:
        uvicorn.run(create_app(service, settings), host=host, port=port, log_level="warning")
    finally:
        for started in reversed(watching):
            started.stop()


@cli.command()
@click.option(
    "--project",
    "projects",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A checkout to follow (repeatable; default: every checkout on this machine).",
)
@click.pass_context
@reports_errors
def follow(ctx: click.Context, projects: tuple[Path, ...]) -> None:
    """Keep local checkouts' memory files current as the shared store moves (no server):
    other machines' writes are written here, hand edits here taken in."""
    from orbital.follower import Follower
    from orbital.watcher import Watcher

    service = service_of(ctx)
    checkouts = [service.project(p) for p in projects] or service.local.all()
    logging.getLogger("watchfiles").setLevel(logging.WARNING)

    def report(message: str) -> None:
        click.echo(f"follow: {message}", err=True)

    watcher = Watcher(service, report, checkouts=checkouts)
    follower = Follower(service, report, checkouts=checkouts)
    watcher.start()
    names = ", ".join(f"{c.checkout} ({c.root})" for c in checkouts) or "none"
    click.echo(f"Orbital following {names} (store: {service.store_backend})", err=True)
    try:
        follower.run()
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()


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
@reports_errors
def token_create(ctx: click.Context, audience: str, projects: tuple[str, ...], label: str) -> None:
    """Create a token and print it once (only its hash is stored), alone on the last line."""
    service = service_of(ctx)
    project_ids = [service.project(ref).project_id for ref in projects]
    issued = service.credentials.create(audience, project_ids, label=label)
    labels = service.names.labels()
    reach = ", ".join(labels[p] for p in issued.credential.projects) or "every project"
    click.echo(f"token {issued.credential.token_id} ({audience}; {reach}); shown only now:")
    click.echo(issued.token)


@token.command("revoke")
@click.argument("token_id")
@click.pass_context
@reports_errors
def token_revoke(ctx: click.Context, token_id: str) -> None:
    """Revoke a token at once: requests with it get 401 from then on."""
    service = service_of(ctx)
    revoked = service.credentials.revoke(token_id)
    assert revoked.revoked_at is not None
    click.echo(f"token {revoked.token_id} revoked at {revoked.revoked_at:%Y-%m-%d %H:%M:%S} UTC")


@token.command("list")
@click.pass_context
@reports_errors
def token_list(ctx: click.Context) -> None:
    """Every token (never the secret): id, audience, projects (by name), label, created,
    revoked."""
    from rich.console import Console
    from rich.table import Table

    service = service_of(ctx)
    labels = service.names.labels()
    table = Table("id", "audience", "projects", "label", "created", "revoked", box=None)
    for credential in service.credentials.list():
        revoked = credential.revoked_at
        table.add_row(
            credential.token_id,
            credential.audience.value,
            ", ".join(labels.get(p, p) for p in credential.projects) or "(all)",
            credential.label,
            credential.created_at.strftime("%Y-%m-%dT%H:%MZ"),
            revoked.strftime("%Y-%m-%dT%H:%MZ") if revoked else "",
        )
    Console(soft_wrap=not sys.stdout.isatty()).print(table)


def _give_back_large_blocks() -> None:
    """A long-running server's malloc tuning (glibc only; elsewhere nothing): blocks of
    128 KiB and more always mapped, so freeing one gives its memory back (glibc raises that
    threshold after the first big free, and a Workbench page of megabytes, rendered by a
    worker thread, then stays in the heap), and two arenas rather than one per thread.
    Measured by ``bench/serve_memory.py``: about 30 MiB less after 100 requests."""
    import ctypes
    import ctypes.util

    m_mmap_threshold, m_arena_max = -3, -8
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallopt(m_mmap_threshold, 128 * 1024)
        libc.mallopt(m_arena_max, 2)
    except (OSError, AttributeError):
        pass
