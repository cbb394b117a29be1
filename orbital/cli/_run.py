"""What a command does once its line is parsed, without click: the service opened, and the
agent's writes called and printed.

A plain ``ask open|done|drop|reopen`` or ``write FILE`` line is parsed by
:mod:`orbital.cli._quick_writes`, any other by click; both then call these, so a default, a
value's validation (``--base``), the quote kept as the note, what prints and the exit status
are each decided in one place, whichever lane parsed the line (a test holds them to the same
bytes).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from orbital import errors
from orbital.cli._output import print_outcome

if TYPE_CHECKING:
    from orbital.events import Actor
    from orbital.service import Orbital

#: ``--project``'s default: the directory the command runs in (or one inside the project).
PROJECT_DEFAULT = "."
#: The close kind of each ``ask`` subcommand that closes.
CLOSES: dict[str, Literal["done", "dropped"]] = {"done": "done", "drop": "dropped"}


def open_service(db: str | None, *, create: bool = False, server: bool = False) -> Orbital:
    """The service of one process on store ``db`` (``create``: make the store if missing).

    A command is a new process: what the last one computed is kept for the next. A server
    keeps its caches in memory and would only pay for the writes; it keeps token counts for
    its next start.
    """
    from orbital.service import Orbital
    from orbital.service._sessions import state_dir

    service = Orbital.open(db, create=create, damaged_ok=server)
    if server:
        service.keep_counts(state_dir() / "cache")
    else:
        service.keep_caches(state_dir() / "cache")
    return service


def write(
    service: Orbital,
    pid: str,
    file: str,
    *,
    session: str | None,
    transcript: Path | None,
    base: str | None,
    remove: Collection[str] = (),
    as_json: bool = False,
) -> None:
    """``orbital write FILE``: the agent's proposed content, read from stdin."""
    from orbital.events import Actor

    content = sys.stdin.buffer.read()
    outcome = service.write_file(
        pid,
        file,
        content,
        actor=Actor.AGENT,
        session=session,
        transcript=transcript,
        base=base_version(base),
        remove=remove,
    )
    print_outcome(outcome, as_json)


def ask_open(
    service: Orbital,
    pid: str,
    text: str,
    due: str | None,
    actor: Actor,
    as_json: bool = False,
    distinct_from: Sequence[str] = (),
) -> None:
    """``orbital ask open TEXT`` (the service checks ``--due``)."""
    from orbital.catalogue import PERSON_CLI_SESSION
    from orbital.events import Actor

    session = PERSON_CLI_SESSION if actor is Actor.USER else None
    outcome = service.ask_open(
        pid, text, due, actor=actor, session=session, distinct_from=distinct_from
    )
    print_outcome(outcome, as_json)


def ask_change(
    service: Orbital,
    pid: str,
    command: str,
    ask_id: str,
    quote: str | None,
    actor: Actor,
    *,
    session: str | None,
    transcript: Path | None,
    as_json: bool = False,
) -> None:
    """``orbital ask done|drop|reopen ID`` (``command``): the agent's ``--quote`` is kept as
    its note in quotation marks, the person's as typed (none given: no note)."""
    from orbital.domain.asks import agent_note
    from orbital.events import Actor

    quote = quote or ""
    note = agent_note(quote) if actor is Actor.AGENT else quote
    if command == "reopen":
        outcome = service.ask_reopen(
            pid, ask_id, note, actor=actor, session=session, transcript=transcript
        )
    else:
        outcome = service.ask_close(
            pid, ask_id, CLOSES[command], note, actor=actor, session=session, transcript=transcript
        )
    print_outcome(outcome, as_json)


def base_version(base: str | None) -> int | None:
    """A ``--base`` as a position (``42``, ``@42`` or an ETag ``"42"``)."""
    if base is None:
        return None
    tag = base.strip().removeprefix("@").strip('"')
    if not tag.isdigit():
        raise errors.InvalidInput(
            f"--base {base!r} is not a version: pass the `version` that "
            "`orbital show FILE --json` printed"
        )
    return int(tag)
