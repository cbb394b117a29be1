"""Commands on the memory files: write and take in, read (now or as of), history, sync and
regenerate, and the session-end backstop."""

from __future__ import annotations

import difflib
import sys
from contextlib import closing
from pathlib import Path

import click
import msgspec

from orbital.catalogue import LAYER1_KEYS, MEMORY_FILES
from orbital.cli import _run as run
from orbital.cli._app import (
    cli,
    project_of,
    project_option,
    reports_errors,
    service_of,
    transcript_option,
)
from orbital.cli._output import REFUSED, print_events, print_outcome, reader_may_stop
from orbital.cli._person import caller_actor, person_options
from orbital.clock import parse_as_of
from orbital.domain.injection import LEVELS
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.files import FileGateway, memory_file, projected_file
from orbital.service import HistoryQuery, Revision, referenced_text
from projections.history import summarize


@cli.command()
@project_option
@click.option("--since", default=None, help="Only events recorded at or after this time.")
@click.option("--until", default=None, help="Only events recorded at or before this time.")
@click.option("--stream", default=None, help="Only this stream (ask:a1b2c3), or a prefix (ask:).")
@click.option("--file", "file_name", default=None, help="Only events of this memory file.")
@click.option("--entry", default=None, help="Only events of this entry id.")
@click.option("--ask", "ask_id", default=None, help="Only events of this ask id.")
@click.option("--diff", is_flag=True, help="With --entry: unified diffs between its revisions.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many events.")
@click.option(
    "--newest-first", is_flag=True, help="The newest event first (with --limit: the last N)."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_context
@reports_errors
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
    limit: int | None,
    newest_first: bool,
    as_json: bool,
) -> None:
    """List the project's events, oldest first (or newest first), with actor, session and a
    summary; each line is printed as it is read, so a long log starts at once and ``| head``
    stops it."""
    service, project = project_of(ctx, project_path)
    if diff:
        if entry is None:
            raise InvalidInput("--diff compares the revisions of one entry: add --entry ID")
        _print_revisions(service.revisions(project.project_id, entry))
        return
    query = HistoryQuery.from_filters(
        since=since,
        until=until,
        stream=stream,
        file=file_name,
        entry=entry,
        ask=ask_id,
        newest_first=newest_first,
        limit=limit,
    )
    out = sys.stdout.buffer
    with reader_may_stop(), closing(service.history(project.project_id, query)) as events:
        if as_json:
            encoder = msgspec.json.Encoder()
            for event in events:
                out.write(encoder.encode(event) + b"\n")
            return
        out.write(
            f"{'pos':>7}  {'recorded (UTC)':<19}  {'actor':<6}  stream  event  (session)\n".encode()
        )
        for event in events:
            session = f"  ({event.session})" if event.session else ""
            line = (
                f"{event.position:>7}  {event.recorded_at:%Y-%m-%d %H:%M:%S}  "
                f"{event.actor.value:<6}  {event.stream}  {summarize(event.event)}{session}\n"
            )
            out.write(line.encode())


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
@reports_errors
def sync(ctx: click.Context, project_path: Path) -> None:
    """Take in memory files edited by hand and rewrite stale projections.

    Exit status 3 when an edit conflicted (the edited file is kept beside as a copy)."""
    service, project = project_of(ctx, project_path)
    report = service.sync(project.project_id)
    print_events(report.events, report.warnings)
    if report.conflicts:
        sys.exit(3)


@cli.command()
@project_option
@click.pass_context
@reports_errors
def conflicts(ctx: click.Context, project_path: Path) -> None:
    """List hand-edit conflict copies waiting to be settled (in the Workbench)."""
    service, project = project_of(ctx, project_path)
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
@reports_errors
def regenerate(ctx: click.Context, project_path: Path, force: bool) -> None:
    """Rewrite every projected file from events."""
    service, project = project_of(ctx, project_path)
    for copy in service.regenerate(project.project_id, force=force):
        click.echo(f"kept the edited file as orbital/{copy}", err=True)
    click.echo(f"regenerated the memory files of {project.project_id} from events")


@cli.command()
@project_option
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print {content, warnings, events, version}.")
@click.option("--session", default=None, help="The agent session this write belongs to.")
@transcript_option
@click.option(
    "--base",
    default=None,
    help="The version the content was made from (`orbital show FILE --json` prints it): "
    "changes made since are kept, an overlapping one is refused (exit 5). Without it, the "
    "write removes only the entries named with --remove (any other it leaves out is kept).",
)
@click.option(
    "--remove",
    "remove",
    multiple=True,
    metavar="ID",
    help="An entry this write removes on purpose (repeat it): without --base, the only "
    "entries it removes; with it, needed when a write would empty the file or remove most of "
    "it at once.",
)
@click.pass_context
@reports_errors
def write(
    ctx: click.Context,
    project_path: Path,
    file: str,
    as_json: bool,
    session: str | None,
    transcript: Path | None,
    base: str | None,
    remove: tuple[str, ...],
) -> None:
    """Apply the agent's proposed full content of orbital/FILE, read from stdin."""
    service, project = project_of(ctx, project_path)
    run.write(
        service,
        project.project_id,
        file,
        session=session,
        transcript=transcript,
        base=base,
        remove=remove,
        as_json=as_json,
    )


@cli.command()
@project_option
@click.argument("entry_id")
@click.pass_context
@reports_errors
def restore(ctx: click.Context, project_path: Path, entry_id: str) -> None:
    """Put an archived entry, or one a write removed (retired), back in its file."""
    service, project = project_of(ctx, project_path)
    outcome = service.entry_action(project.project_id, entry_id, "restore", actor=Actor.AGENT)
    print_outcome(outcome, as_json=False)
    if not outcome.events:
        click.echo(f"{entry_id} is already in its file", err=True)


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
@click.option("--session", default=None, help="The agent session these writes belong to.")
@transcript_option
@click.pass_context
@reports_errors
def ingest(
    ctx: click.Context,
    project_path: Path,
    files: tuple[str, ...],
    as_actor: str,
    as_json: bool,
    session: str | None,
    transcript: Path | None,
) -> None:
    """Process memory files changed outside Orbital as writes (all of them by default)."""
    service, project = project_of(ctx, project_path)
    gateway = FileGateway(project.root)
    actor = Actor.FILE if as_actor == "file" else Actor.AGENT
    refused = False
    for name in files or tuple(MEMORY_FILES.values()):
        content = gateway.read_bytes(name)
        if content is None:
            if files:
                raise InvalidInput(f"orbital/{memory_file(name).name} does not exist")
            continue
        outcome = service.write_file(
            project.project_id,
            name,
            content,
            actor=actor,
            session=session,
            transcript=transcript,
        )
        print_outcome(outcome, as_json, exit_if_refused=False)
        refused |= outcome.refused
    if refused:
        sys.exit(REFUSED)


@cli.command()
@project_option
@click.option("--window", type=int, default=None, help="The model's context window in tokens.")
@click.option(
    "--audience", type=click.Choice(["agent", "subagent"]), default="agent", show_default=True
)
@click.option(
    "--as-of",
    "as_of",
    default=None,
    help="An ISO 8601 time (naive is UTC), a date (the end of that day in the project's "
    "timezone), or @N for position N.",
)
@click.option(
    "--cost",
    is_flag=True,
    help="Print what memory costs this project's sessions in tokens: a session start now, "
    "and the medians of the last sessions' starts and per-turn additions.",
)
@click.option(
    "--inject",
    type=click.Choice(LEVELS),
    default=None,
    help="Set how much the hooks inject in this project: full (the view, and each turn's "
    "changes), asks (today's line and the asks) or off. One session: ORBITAL_INJECT=LEVEL "
    "in the agent's environment.",
)
@person_options
@click.pass_context
@reports_errors
def context(
    ctx: click.Context,
    project_path: Path,
    window: int | None,
    audience: str,
    as_of: str | None,
    cost: bool,
    inject: str | None,
) -> None:
    """Print the per-turn injection view (as it stood at a past time with --as-of); what
    memory costs (--cost); or set how much the hooks inject (--inject)."""
    service, project = project_of(ctx, project_path)
    if inject is not None:
        actor = caller_actor(ctx, service, project.project_id)
        done = service.set_injection(project.project_id, inject, actor=actor)
        click.echo(f"injection: {inject}" + ("" if done.events else " (already)"))
    if cost:
        click.echo("\n".join(service.injection_cost(project.project_id).lines()))
    if inject is not None or cost:
        return
    view = service.context_view(
        project.project_id, window=window, audience=audience, as_of=parse_as_of(as_of)
    )
    click.echo(view)


@cli.command()
@project_option
@click.option("--keep", "keep", default=None, hidden=True, help="A Stop hook's session.")
@click.option("--agent", default="claude-code", hidden=True)
@click.option("--transcript", default="", hidden=True)
@click.option("--said", default="", hidden=True)
@click.pass_context
@reports_errors
def handoff(
    ctx: click.Context,
    project_path: Path,
    keep: str | None,
    agent: str,
    transcript: str,
    said: str,
) -> None:
    """Print the hand-off the last session left: what the next session of any agent gets at
    its start (once), and which session took it."""
    if keep is not None:  # what a Stop hook leaves to a detached process (``_hook.py``)
        service = service_of(ctx)
        found = service.agents.project_at(str(project_path))
        if found is not None:
            service.agents.stopped(found, keep, agent, "stop", transcript, said)
        return
    service, project = project_of(ctx, project_path)
    text = service.agents.handoffs.latest(project)
    click.echo(text or "No hand-off yet: one is kept when an agent's session stops.")


@cli.command()
@project_option
@click.argument("file", required=False)
@click.option(
    "--ref",
    default=None,
    help="What a mention points at instead of a file: @decision.<id>, @lesson.<id>, "
    "@state.<id>, @ask.<id>, @file.<path>, or a bare id.",
)
@click.option(
    "--as-of",
    "as_of",
    default=None,
    help="An ISO 8601 time (naive is UTC), a date (the end of that day in the project's "
    "timezone), or @N for position N.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {name, content, version}: the version to pass as `orbital write --base`.",
)
@click.pass_context
@reports_errors
def show(
    ctx: click.Context,
    project_path: Path,
    file: str | None,
    ref: str | None,
    as_of: str | None,
    as_json: bool,
) -> None:
    """Print a memory file (or an archive) as Orbital renders it from events, now or as it
    stood at a past time; or, with --ref, what a mention points at."""
    service, project = project_of(ctx, project_path)
    if (file is None) == (ref is None):
        raise InvalidInput("name a FILE or a --ref, one of the two")
    if ref is not None:
        found = service.mentions.resolve(project.project_id, ref)
        if as_json:
            sys.stdout.buffer.write(msgspec.json.encode(found) + b"\n")
        else:
            click.echo(referenced_text(found), nl=False)
        return
    assert file is not None
    if not as_json:
        text = service.read_file(project.project_id, file, as_of=parse_as_of(as_of))
        click.echo(text, nl=False)
        return
    name = projected_file(file)
    version: int | None = None
    if as_of is None and name.key in LAYER1_KEYS:
        text, version = service.read_versioned(project.project_id, file)
    else:
        text = service.read_file(project.project_id, file, as_of=parse_as_of(as_of))
    shown = {"name": name.name, "content": text, "version": version}
    sys.stdout.buffer.write(msgspec.json.encode(shown) + b"\n")


@cli.command("session-end")
@project_option
@click.pass_context
@reports_errors
def session_end(ctx: click.Context, project_path: Path) -> None:
    """Run the deterministic backstop: demote the coldest entries of files over budget."""
    service, project = project_of(ctx, project_path)
    report = service.session_end(project.project_id)
    if report.editor:
        click.echo(f"memory editor: {report.editor}", err=True)
    print_events(report.events)
    for note in report.notes:  # what each file over its soft budget became, and why
        click.echo(note)
    if not report.events and not report.notes:
        click.echo("nothing to do: every file is within its soft budget")
