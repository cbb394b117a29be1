"""The ``orbital`` command line. It parses arguments, calls the service, prints results;
rules live below it. Orbital's typed errors become one ``error:`` line and the exit status of
their family."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import logging
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

import click
import msgspec

from orbital import errors
from orbital.clock import parse_as_of, parse_instant
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.files import MEMORY_FILES, FileGateway, memory_file
from orbital.service import (
    Audience,
    EditorReport,
    HistoryQuery,
    Orbital,
    Revision,
    WriteOutcome,
)
from projections.history import summarize

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


#: Family -> exit status: the one place an Orbital error gets its exit status. Besides these:
#: 0 success, 2 a usage error (click's), 3 a sync that kept an edited file beside as a copy.
EXIT_STATUS: Mapping[type[errors.OrbitalError], int] = {
    errors.InvalidInput: 1,
    errors.NotFound: 1,
    errors.Internal: 1,
    errors.Refused: 4,
    errors.Conflict: 5,
    errors.Unavailable: 6,
}


def error_line(exc: errors.OrbitalError) -> str:
    """The one line an error prints: its message, then what to run about it (the ``hint``)."""
    return f"error: {exc}: {exc.hint}" if exc.hint else f"error: {exc}"


def _reports_errors(command: F) -> F:
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except errors.OrbitalError as exc:
            click.echo(error_line(exc), err=True)
            sys.exit(EXIT_STATUS[errors.family(type(exc))])

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


@cli.command()
@click.pass_context
@_reports_errors
def projects(ctx: click.Context) -> None:
    """List the registered projects: the id used in HTTP paths, the directory, the timezone."""
    service = _service(ctx)
    known = service.projects()
    for project in known:
        click.echo(f"{project.project_id}\t{project.root}\t{project.timezone or 'local'}")
    if not known:
        click.echo("no projects yet: run `orbital init` in a project directory")


@cli.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
@click.pass_context
@_reports_errors
def db_upgrade(ctx: click.Context) -> None:
    """Bring the schema to the newest migration (also done automatically at start)."""
    service = _service(ctx)
    click.echo(f"schema up to date ({service.store_backend})")


@cli.command()
@project_option
@click.option("--since", default=None, help="Only events recorded at or after this time.")
@click.option("--until", default=None, help="Only events recorded at or before this time.")
@click.option("--stream", default=None, help="Only this stream (ask:a1b2c3), or a prefix (ask:).")
@click.option("--file", "file_name", default=None, help="Only events of this memory file.")
@click.option("--entry", default=None, help="Only events of this entry id.")
@click.option("--ask", "ask_id", default=None, help="Only events of this ask id.")
@click.option("--diff", is_flag=True, help="With --entry: unified diffs between its revisions.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_context
@_reports_errors
def history(
    ctx: click.Context,
    project_path: Path,
    since: str | None,
    until: str | None,
    stream: str | None,
    file_name: str | None,
    entry: str | None,
    ask_id: str | None,
    diff: bool,
    as_json: bool,
) -> None:
    """List the project's events, oldest first, with actor, session and a summary."""
    service = _service(ctx)
    project = service.project(project_path)
    if diff:
        if entry is None:
            raise InvalidInput("--diff compares the revisions of one entry: add --entry ID")
        _print_revisions(service.revisions(project.project_id, entry))
        return
    query = HistoryQuery(
        since=parse_instant(since) if since else None,
        until=parse_instant(until) if until else None,
        stream=stream,
        exact_stream=stream is not None and not stream.endswith(":"),
        file=file_name,
        entry=entry,
        ask=ask_id,
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


def _print_revisions(revisions: list[Revision]) -> None:
    """Each revision as a unified diff against the one before (the first against nothing)."""
    previous = ""
    for revision in revisions:
        event = revision.event
        label = (
            f"@{event.position} {event.recorded_at:%Y-%m-%d %H:%M:%S} {event.actor.value} "
            f"{event.type}"
        )
        lines = difflib.unified_diff(
            previous.splitlines(keepends=True),
            revision.text.splitlines(keepends=True),
            fromfile="before",
            tofile=label,
        )
        click.echo("".join(lines).rstrip("\n"))
        previous = revision.text


@cli.command()
@project_option
@click.pass_context
@_reports_errors
def sync(ctx: click.Context, project_path: Path) -> None:
    """Take in memory files edited by hand and rewrite stale projections.

    Exit status 3 when an edit conflicted (the edited file is kept beside as a copy)."""
    service = _service(ctx)
    project = service.project(project_path)
    report = service.sync(project.project_id)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    for event in report.events:
        click.echo(f"{event.position} {event.stream} {event.summary}")
    if report.conflicts:
        sys.exit(3)


@cli.command()
@project_option
@click.pass_context
@_reports_errors
def conflicts(ctx: click.Context, project_path: Path) -> None:
    """List hand-edit conflict copies waiting to be settled (in the Workbench)."""
    service = _service(ctx)
    project = service.project(project_path)
    pending = service.conflicts(project.project_id)
    for conflict in pending:
        click.echo(
            f"orbital/{conflict.copy}\t{conflict.file}\t{conflict.recorded_at:%Y-%m-%d %H:%M}"
        )
    if not pending:
        click.echo("no conflict copies waiting")


@cli.command()
@project_option
@click.option("--force", is_flag=True, help="Keep unmerged hand edits beside, then rewrite.")
@click.pass_context
@_reports_errors
def regenerate(ctx: click.Context, project_path: Path, force: bool) -> None:
    """Rewrite every projected file from events."""
    service = _service(ctx)
    project = service.project(project_path)
    for copy in service.regenerate(project.project_id, force=force):
        click.echo(f"kept the edited file as orbital/{copy}", err=True)
    click.echo(f"regenerated the memory files of {project.project_id} from events")


def _print_outcome(outcome: WriteOutcome, as_json: bool) -> None:
    """Warnings on stderr; ``--json`` prints ``{content, warnings, events}`` on stdout."""
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(outcome.to_builtins()) + b"\n")
        return
    for warning in outcome.warnings:
        click.echo(f"warning: {warning}", err=True)
    for event in outcome.events:
        click.echo(f"{event.position} {event.stream} {event.summary}")


@cli.command()
@project_option
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print {content, warnings, events}.")
@click.option("--session", default=None, help="The agent session this write belongs to.")
@click.pass_context
@_reports_errors
def write(
    ctx: click.Context, project_path: Path, file: str, as_json: bool, session: str | None
) -> None:
    """Apply the agent's proposed full content of orbital/FILE, read from stdin."""
    service = _service(ctx)
    project = service.project(project_path)
    content = sys.stdin.buffer.read()
    outcome = service.write_file(
        project.project_id, file, content, actor=Actor.AGENT, session=session
    )
    _print_outcome(outcome, as_json)


@cli.command()
@project_option
@click.argument("files", nargs=-1)
@click.option(
    "--as",
    "as_actor",
    type=click.Choice(["agent", "file"]),
    default="agent",
    show_default=True,
    help="agent: an agent's tool wrote the file; file: a hand edit of unknown author.",
)
@click.option("--json", "as_json", is_flag=True, help="One {content, warnings, events} per file.")
@click.pass_context
@_reports_errors
def ingest(
    ctx: click.Context, project_path: Path, files: tuple[str, ...], as_actor: str, as_json: bool
) -> None:
    """Process memory files changed outside Orbital as writes (all of them by default)."""
    service = _service(ctx)
    project = service.project(project_path)
    gateway = FileGateway(project.root)
    actor = Actor.FILE if as_actor == "file" else Actor.AGENT
    for name in files or tuple(MEMORY_FILES.values()):
        content = gateway.read_bytes(name)
        if content is None:
            if files:
                raise InvalidInput(f"orbital/{memory_file(name).name} does not exist")
            continue
        outcome = service.write_file(project.project_id, name, content, actor=actor)
        _print_outcome(outcome, as_json)


@cli.command()
@project_option
@click.option("--window", type=int, default=None, help="The model's context window in tokens.")
@click.option(
    "--audience", type=click.Choice(["agent", "subagent"]), default="agent", show_default=True
)
@click.option("--as-of", "as_of", default=None, help="An ISO 8601 time, or @N for position N.")
@click.pass_context
@_reports_errors
def context(
    ctx: click.Context, project_path: Path, window: int | None, audience: str, as_of: str | None
) -> None:
    """Print the per-turn injection view (as it stood at a past time with --as-of)."""
    service = _service(ctx)
    project = service.project(project_path)
    view = service.context_view(
        project.project_id, window=window, audience=audience, as_of=parse_as_of(as_of)
    )
    click.echo(view)


@cli.command()
@project_option
@click.argument("file")
@click.option("--as-of", "as_of", default=None, help="An ISO 8601 time, or @N for position N.")
@click.pass_context
@_reports_errors
def show(ctx: click.Context, project_path: Path, file: str, as_of: str | None) -> None:
    """Print a memory file (or an archive) as Orbital renders it from events, now or as it
    stood at a past time."""
    service = _service(ctx)
    project = service.project(project_path)
    text = service.read_file(project.project_id, file, as_of=parse_as_of(as_of))
    click.echo(text, nl=False)


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
@_reports_errors
def asks_command(ctx: click.Context, project_path: Path, state: str, as_json: bool) -> None:
    """List the project's asks."""
    service = _service(ctx)
    project = service.project(project_path)
    chosen = service.asks(project.project_id, state)  # type: ignore[arg-type]
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(chosen) + b"\n")
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
@click.option(
    "--as-user",
    is_flag=True,
    help="Act as the person: needs their Workbench token in ORBITAL_TOKEN (or --token).",
)
@click.option("--token", default=None, envvar="ORBITAL_TOKEN", help="A Workbench token.")
@click.pass_context
def ask(ctx: click.Context, as_user: bool, token: str | None) -> None:
    """Open, close or reopen one ask: as the agent, or as the person with --as-user."""
    ctx.obj["as_user"] = as_user
    ctx.obj["token"] = token


def _ask_actor(ctx: click.Context, service: Orbital, project: str) -> Actor:
    """The agent, unless --as-user and a live Workbench token reaching the project are given:
    the actor comes from the credential, never from what is typed."""
    if not ctx.obj.get("as_user"):
        return Actor.AGENT
    token = ctx.obj.get("token")
    if not token:
        raise InvalidInput("--as-user needs the person's Workbench token in ORBITAL_TOKEN")
    credential = service.credentials.verify(token)
    if credential is None or credential.audience is not Audience.WORKBENCH:
        raise InvalidInput("--as-user needs a live Workbench token; this one is not")
    if not credential.reaches(project):
        raise InvalidInput(f"this Workbench token does not reach project {project!r}")
    return credential.actor


@ask.command("open")
@project_option
@click.argument("text")
@click.option("--due", default=None, help="YYYY-MM-DD or YYYY-MM-DDTHH:MM.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@_reports_errors
def ask_open(
    ctx: click.Context, project_path: Path, text: str, due: str | None, as_json: bool
) -> None:
    """Open an ask (the agent is refused a repeat of an open or dropped ask)."""
    service = _service(ctx)
    pid = service.project(project_path).project_id
    actor = _ask_actor(ctx, service, pid)
    _print_outcome(service.ask_open(pid, text, due, actor=actor), as_json)


_CHANGE_HELP = {
    "done": "Mark an ask done (as the agent: stamped by:agent; quote the user's words).",
    "dropped": "Drop an ask (as the agent: stamped by:agent; quote the user's words).",
    "reopen": "Reopen a closed ask.",
}


def _change(kind: str) -> Callable[..., None]:
    @project_option
    @click.argument("ask_id")
    @click.option("--quote", default="", help="The user's own words (quoted in the log).")
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    @_reports_errors
    def change(
        ctx: click.Context, project_path: Path, ask_id: str, quote: str, as_json: bool
    ) -> None:
        service = _service(ctx)
        pid = service.project(project_path).project_id
        actor = _ask_actor(ctx, service, pid)
        note = f'"{quote}"' if quote and actor is Actor.AGENT else quote
        if kind == "reopen":
            outcome = service.ask_reopen(pid, ask_id, note, actor=actor)
        else:
            outcome = service.ask_close(pid, ask_id, kind, note, actor=actor)
        _print_outcome(outcome, as_json)

    change.__doc__ = _CHANGE_HELP[kind]
    return change


ask.command("done")(_change("done"))
ask.command("drop")(_change("dropped"))
ask.command("reopen")(_change("reopen"))


@cli.command("session-end")
@project_option
@click.pass_context
@_reports_errors
def session_end(ctx: click.Context, project_path: Path) -> None:
    """Run the deterministic backstop: demote the coldest entries of files over budget."""
    service = _service(ctx)
    project = service.project(project_path)
    report = service.session_end(project.project_id)
    if report.editor:
        click.echo(f"memory editor: {report.editor}", err=True)
    for event in report.events:
        click.echo(f"{event.position} {event.stream} {event.summary}")
    for note in report.notes:
        click.echo(note, err=True)
    if not report.events:
        click.echo("nothing to do: every file is within its soft budget or protected")


@cli.group()
def editor() -> None:
    """The memory editor: a model pass, or a choices document applied without a model."""


sessions_option = click.option(
    "--sessions",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of session transcripts (default: orbital/sessions).",
)


def _print_editor(report: EditorReport, as_json: bool) -> None:
    """``--json``: the whole report; else one line per applied/rejected/skipped item.
    A failed run exits 1 (its error on stderr)."""
    if as_json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        head = f"{report.outcome}"
        if report.run_id:
            head += (
                f" (run {report.run_id}; backup: position {report.backup_position}, "
                f"see `orbital show FILE --as-of @{report.backup_position}`; "
                f"{report.calls} model call(s))"
            )
        click.echo(head)
        for item in report.applied:
            what = item.file or item.session
            ids = ",".join(item.ids) + " -> " if item.ids else ""
            click.echo(f"applied {item.kind} {what} {ids}{item.id}".rstrip())
        for reason in report.rejected:
            click.echo(f"rejected {reason}")
        for name in report.skipped_files:
            click.echo(f"skipped {name}: changed during the run (nothing written to it)")
        for event in report.backstop:
            click.echo(f"backstop {event.position} {event.stream} {event.summary}")
        if report.error:
            click.echo(f"error: {report.error}", err=True)
    if report.outcome == "failed":
        sys.exit(1)


@editor.command("run")
@project_option
@click.option("--force", is_flag=True, help="Run now whatever the budget and interval gates say.")
@sessions_option
@click.option("--json", "as_json", is_flag=True, help="Print the run report as JSON.")
@click.pass_context
@_reports_errors
def editor_run(
    ctx: click.Context, project_path: Path, force: bool, sessions: Path | None, as_json: bool
) -> None:
    """One editor pass (ORBITAL_EDITOR_URL/_MODEL/_KEY), then the backstop."""
    service = _service(ctx)
    project = service.project(project_path)
    report = service.editor_run(project.project_id, force=force, sessions=sessions)
    _print_editor(report, as_json)


@editor.command("apply")
@project_option
@click.argument("choices", type=click.File("r", encoding="utf-8"))
@sessions_option
@click.option("--json", "as_json", is_flag=True, help="Print applied and rejected as JSON.")
@click.pass_context
@_reports_errors
def editor_apply(
    ctx: click.Context,
    project_path: Path,
    choices: IO[str],
    sessions: Path | None,
    as_json: bool,
) -> None:
    """Apply a choices document (CHOICES.json, or - for stdin) as the editor would."""
    service = _service(ctx)
    project = service.project(project_path)
    report = service.editor_apply(project.project_id, choices.read(), sessions=sessions)
    _print_editor(report, as_json)


@cli.command("migrate-retractions")
@project_option
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the plan; append nothing.")
@click.pass_context
@_reports_errors
def migrate_retractions(
    ctx: click.Context, project_path: Path, path: Path | None, dry_run: bool
) -> None:
    """Bring a legacy retractions.md and [user] lines of PROJECT_STATE.md into ask events."""
    service = _service(ctx)
    project = service.project(project_path)
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
    from orbital.watcher import Watcher, sync_all

    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # not every change it sees

    def report(message: str) -> None:
        click.echo(f"watch: {message}", err=True)

    sync_all(service, report)
    watcher = Watcher(service, report)
    watcher.start()
    click.echo(f"Orbital serving on http://{host}:{port} (store: {service.store_backend})")
    try:
        uvicorn.run(create_app(service, settings), host=host, port=port, log_level="warning")
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
@_reports_errors
def token_create(ctx: click.Context, audience: str, projects: tuple[str, ...], label: str) -> None:
    """Create a token and print it once (only its hash is stored), alone on the last line."""
    service = _service(ctx)
    project_ids = [service.project(ref).project_id for ref in projects]
    issued = service.credentials.create(audience, project_ids, label=label)
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
    revoked = service.credentials.revoke(token_id)
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
    for credential in service.credentials.list():
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
