"""What every command prints and exits with, without click: the quick paths
(:mod:`orbital.cli._quick_writes`) print through the same functions as the click commands, so a
command line prints the same bytes and exits the same way whichever path takes it."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

from orbital import errors

if TYPE_CHECKING:
    from orbital.service import EventSummary, WriteOutcome

#: Family -> exit status: the one place an Orbital error gets its exit status. Besides these:
#: 0 success, 2 a usage error (click's), 3 a sync that kept an edited file beside as a copy.
#: A write refused with warnings only (it changed nothing) exits as a raised refusal does.
EXIT_STATUS: Mapping[type[errors.OrbitalError], int] = {
    errors.InvalidInput: 1,
    errors.NotFound: 1,
    errors.Internal: 1,
    errors.Refused: 4,
    errors.Conflict: 5,
    errors.Unavailable: 6,
}

#: The exit status of a refusal, raised or only warned about (a write that kept nothing).
REFUSED = EXIT_STATUS[errors.Refused]

#: The escape sequences ``click.echo`` strips off a stream that is not a terminal.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")


def echo(message: str, err: bool = False) -> None:
    """One line on stdout (stderr with ``err``), as ``click.echo`` prints it: escape sequences
    stripped when the stream is not a terminal, flushed."""
    stream = sys.stderr if err else sys.stdout
    out = message + "\n"
    if "\x1b" in out and not stream.isatty():
        out = _ANSI.sub("", out)
    stream.write(out)
    stream.flush()


def exit_with(exc: errors.OrbitalError, as_json: bool = False) -> NoReturn:
    """An Orbital error's ``error:`` line and its family's exit status; under ``--json`` a
    refusal also prints ``{"refused": true, "error": …}`` on stdout, as a write refused with
    warnings prints ``"refused": true``."""
    line = errors.error_line(exc)
    status = EXIT_STATUS[errors.family(type(exc))]
    if as_json and status == REFUSED:
        import msgspec

        answer = {"refused": True, "error": line.removeprefix("error: ")}
        sys.stdout.buffer.write(msgspec.json.encode(answer) + b"\n")
    echo(line, err=True)
    sys.exit(status)


def print_outcome(outcome: WriteOutcome, as_json: bool, *, exit_if_refused: bool = True) -> None:
    """Warnings on stderr; ``--json`` prints ``{content, warnings, events, refused}`` on
    stdout. A refused write (it changed nothing, the warnings say why) then exits 4
    (``exit_if_refused=False``: the caller does, after its other writes)."""
    if as_json:
        import msgspec

        sys.stdout.buffer.write(msgspec.json.encode(outcome.to_builtins()) + b"\n")
    else:
        print_events(outcome.events, outcome.warnings)
    if outcome.refused and exit_if_refused:
        sys.exit(REFUSED)


@contextmanager
def reader_may_stop() -> Iterator[None]:
    """Output for a reader that may stop early (``| head``): a pipe closed under it ends the
    command quietly with exit 0, as ``head`` has all it asked for. Whatever is still
    buffered goes nowhere (stdout is pointed at the null device, so the final flush at exit
    cannot fail either)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def print_events(
    events: Iterable[EventSummary], warnings: Iterable[str] = (), prefix: str = ""
) -> None:
    """Each warning on stderr, then one ``<position> <stream> <summary>`` line per event."""
    for warning in warnings:
        echo(f"warning: {warning}", err=True)
    for event in events:
        echo(f"{prefix}{event.position} {event.stream} {event.summary}")
