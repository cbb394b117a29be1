"""The agent's hot writes without click: ``orbital ask open TEXT``, ``orbital ask
done|drop|reopen ID`` and ``orbital write FILE`` (the content on stdin), each a new process
where importing click costs more than parsing the line.

Only the plainest command lines are taken (the options below, each once with a value); any
other (``--json``, ``--as-user``, ``--remove``, ``--help``, an extra argument…) goes to click.
Both paths parse apart and then call the same functions (:mod:`orbital.cli._run`), so a
line prints the same bytes and exits the same way whichever takes it (a test holds them equal).
"""

from __future__ import annotations

import codecs
import sys
from pathlib import Path

from orbital.cli._quick import plain_line
from orbital.cli._run import PROJECT_DEFAULT

_CHANGE_OPTIONS = ("--project", "--quote", "--session", "--transcript")
#: Each command taken (``write`` and the ``ask`` subcommands) and the options it takes here.
_OPTIONS: dict[str, tuple[str, ...]] = {
    "write": ("--project", "--session", "--transcript", "--base"),
    "open": ("--project", "--due"),
    **dict.fromkeys(("done", "drop", "reopen"), _CHANGE_OPTIONS),
}


def quick_write(args: list[str]) -> bool:
    """Run a plain ``ask …`` or ``write FILE`` line (it may exit with its status); False:
    not a line this path takes."""
    line = _plain(args)
    if line is None or not _utf8_streams():
        return False
    command, options, argument = line
    project = Path(options.get("--project", PROJECT_DEFAULT))
    transcript = options.get("--transcript")
    if not project.is_dir() or (transcript is not None and Path(transcript).is_dir()):
        return False  # click's usage error (or its path to the service's error)
    _run(command, options, argument, project)
    return True


def _plain(args: list[str]) -> tuple[str, dict[str, str], str] | None:
    """The command (``write`` or an ``ask`` subcommand), its options and its one argument."""
    if args[:1] == ["write"]:
        command, words = "write", args[1:]
    elif args[:1] == ["ask"] and len(args) > 1 and args[1] in _OPTIONS.keys() - {"write"}:
        command, words = args[1], args[2:]
    else:
        return None
    parsed = plain_line(words, _OPTIONS[command])
    if parsed is None or len(parsed[1]) != 1:
        return None
    return command, parsed[0], parsed[1][0]


def _utf8_streams() -> bool:
    """click writes through a wrapper of its own to a stream it finds misconfigured (ASCII):
    then let it."""
    return all(
        codecs.lookup(getattr(s, "encoding", None) or "ascii").name != "ascii"
        for s in (sys.stdout, sys.stderr)
    )


def _run(command: str, options: dict[str, str], argument: str, project_path: Path) -> None:
    from orbital import errors
    from orbital.cli import _run as run
    from orbital.cli._output import exit_with
    from orbital.events import Actor
    from orbital.project import store_for

    session, transcript = options.get("--session"), options.get("--transcript")
    path = None if transcript is None else Path(transcript)
    try:
        with run.open_service(store_for(project_path)) as service:
            pid = service.project(project_path).project_id
            if command == "write":
                run.write(
                    service,
                    pid,
                    argument,
                    session=session,
                    transcript=path,
                    base=options.get("--base"),
                )
            elif command == "open":
                run.ask_open(service, pid, argument, options.get("--due"), Actor.AGENT)
            else:
                run.ask_change(
                    service,
                    pid,
                    command,
                    argument,
                    options.get("--quote"),
                    Actor.AGENT,
                    session=session,
                    transcript=path,
                )
    except errors.OrbitalError as exc:
        exit_with(exc)
