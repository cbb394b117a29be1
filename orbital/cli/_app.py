"""The root ``orbital`` group and what every command shares: the ``--project`` option, the
service opened once per invocation, how a write's outcome prints, and the one table that turns
an Orbital error's family into an exit status.

Commands load lazily (:class:`LazyGroup`): a process imports the module of the command it runs
and nothing else, and the service (SQLAlchemy, the tokenizer…) only when the command opens it.
A Claude Code hook is a new process per event, so this is most of what a hook costs.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from orbital import errors
from orbital.cli._output import exit_with
from orbital.cli._run import PROJECT_DEFAULT
from orbital.project import store_for

if TYPE_CHECKING:
    from orbital.project import Project
    from orbital.service import Orbital

F = TypeVar("F", bound=Callable[..., Any])

project_option = click.option(
    "--project",
    "project_path",
    default=PROJECT_DEFAULT,
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The project directory (or any directory inside it).",
)

#: The agent's session transcript (Claude Code's ``transcript_path``), to verify quotes.
transcript_option = click.option(
    "--transcript",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The agent session's transcript (JSONL): quoted user words are checked against it.",
)


#: The long-running commands (they keep nothing on disk for a next process).
SERVERS = frozenset({"serve", "mcp"})


def service_of(ctx: click.Context) -> Orbital:
    """The service of this invocation: opened on first use, closed when the command ends."""
    from orbital.cli._run import open_service
    from orbital.service import Orbital

    service = ctx.obj.get("service")
    if service is None:
        # Only these create a store where there is none; elsewhere a missing store is an error.
        creates = ctx.command.name in {"init", "upgrade", "import"} or ctx.command_path.endswith(
            "workspace create"
        )
        db = store_for(_folder_of(ctx), ctx.obj["db"])
        service = open_service(db, create=creates, server=ctx.command.name in SERVERS)
        ctx.obj["service"] = service
        ctx.call_on_close(service.close)
    assert isinstance(service, Orbital)
    return service


def _folder_of(ctx: click.Context) -> Path:
    """The folder whose project names the store when none is given: ``--project`` (the
    first, for ``follow``), else the working directory."""
    given = ctx.params.get("project_path") or next(iter(ctx.params.get("projects") or ()), None)
    return Path(given) if isinstance(given, (str, Path)) else Path()


def project_of(ctx: click.Context, project_path: Path) -> tuple[Orbital, Project]:
    """The service of this invocation and the registered project ``--project`` is inside."""
    service = service_of(ctx)
    return service, service.project(project_path)


def reports_errors(command: F) -> F:
    """An Orbital error becomes its ``error:`` line and its family's exit status
    (:func:`~orbital.cli._output.exit_with`)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except errors.OrbitalError as exc:
            exit_with(exc, bool(kwargs.get("as_json")))

    return wrapper  # type: ignore[return-value]


#: Each top-level command and the module that defines it (``orbital.cli.<module>``).
COMMAND_MODULES: Mapping[str, str] = {
    **dict.fromkeys(("init", "projects", "project", "db", "serve", "follow", "token"), "_admin"),
    **dict.fromkeys(("install", "uninstall", "hook"), "_agents"),
    **dict.fromkeys(("asks", "ask", "migrate-retractions"), "_asks"),
    "calendar": "_calendar",
    "doctor": "_doctor",
    "import-from": "_import_from",
    **dict.fromkeys(("editor", "checkpoint"), "_editor"),
    **dict.fromkeys(("entry", "beliefs"), "_entries"),
    "mcp": "_mcp",
    **dict.fromkeys(("export", "import", "revert"), "_log"),
    "purge": "_purge",
    "search": "_search",
    **dict.fromkeys(("workspace", "describe"), "_workspaces"),
    **dict.fromkeys(
        (
            "history",
            "sync",
            "conflicts",
            "regenerate",
            "write",
            "ingest",
            "context",
            "handoff",
            "show",
            "session-end",
            "restore",
        ),
        "_memory",
    ),
}


class LazyGroup(click.Group):
    """A group whose commands are imported when looked up (their modules register them)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMAND_MODULES, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if cmd_name not in self.commands and module is not None:
            importlib.import_module(f"orbital.cli.{module}")
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup)
@click.option(
    "--db",
    envvar="ORBITAL_DB",
    default=None,
    help="SQLAlchemy URL of the store (default: the store `orbital init` recorded for this "
    "folder's project, else a SQLite file in the user data directory).",
)
@click.version_option(package_name="orbital-memory")
@click.pass_context
def cli(ctx: click.Context, db: str | None) -> None:
    """Orbital: event-sourced project memory for AI coding agents."""
    ctx.ensure_object(dict)
    ctx.obj["db"] = db


def main() -> None:
    cli(obj={})
