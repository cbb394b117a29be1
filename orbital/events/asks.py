"""Ask events.

Streams:

* ``ask:<id>`` — :class:`AskOpened`, :class:`AskClosed`, :class:`AskReopened`: the life of one
  ask. Its state is its last event. :class:`AskReopenProposed` and :class:`AskReopenDeclined`
  (an agent's reopen of an ask the person dropped, waiting on the person; the person's no)
  leave its state as it was and set or clear the proposal beside it.
* ``asks`` — log-level events that belong to no single ask: :class:`AskOpenRefused` (audit of
  an agent's refused open; changes no state), :class:`AskFileLine` (a line of a hand-written
  ASKS.md that is not an ask event, kept so the file round-trips) and
  :class:`AskBytesReplaced` (audit: undecodable bytes of an imported ASKS.md, kept verbatim).

:func:`stream_of` says which stream an event goes to. ``date`` is the project-local calendar
day the event carries in ASKS.md (it can differ from ``recorded_at``, e.g. for migrated lines).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

import msgspec

from orbital.catalogue import ASKS_STREAM, ask_stream
from orbital.events._base import Event


class LegacyRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a migrated legacy record said, verbatim, so history shows where an ask came from."""

    legacy_id: str = ""
    #: The date as written in the legacy source (it may not be a valid date).
    date: str = ""
    title: str = ""
    reason: str = ""
    line: int = 0


class AskOpened(Event, frozen=True, tag="ask.opened"):
    ask_id: str
    text: str
    date: dt.date
    due: str | None = None
    #: Where the ask came from when it was not typed as an ``- open`` line (legacy migration).
    provenance: str | None = None
    legacy: LegacyRecord | None = None
    #: The dropped asks the agent said this one differs from (it resembled them and was
    #: held; the agent wrote it again naming them): the agent's claim, for the person.
    distinct_from: tuple[str, ...] = ()


class AskClosed(Event, frozen=True, tag="ask.closed"):
    ask_id: str
    kind: Literal["done", "dropped"]
    date: dt.date
    #: The ``by:`` written in ASKS.md (user/agent/editor); derived from the actor on new writes.
    #: Empty means unattributed and folds as "agent" (a close nobody signed stays undoable).
    by: str
    note: str = ""
    legacy: LegacyRecord | None = None
    #: The quoted words of ``note`` are in the user's messages of the session's transcript
    #: (an agent's close or reopen checked by :mod:`orbital.domain.quotes`). A close stays
    #: ``by:agent`` and undoable either way; rows stored before the field read ``False``.
    verified: bool = False
    #: An imported line without a date: ``date`` is the ask's previous day (when it was last
    #: known to change), and the line is rendered without one, as it was written.
    undated: bool = False


class AskReopened(Event, frozen=True, tag="ask.reopened"):
    ask_id: str
    date: dt.date
    by: str
    note: str = ""
    #: The quoted words of ``note`` are in the user's messages of the session's transcript
    #: (an agent's close or reopen checked by :mod:`orbital.domain.quotes`). A close stays
    #: ``by:agent`` and undoable either way; rows stored before the field read ``False``.
    verified: bool = False
    #: As :attr:`AskClosed.undated`.
    undated: bool = False


class AskReopenProposed(Event, frozen=True, tag="ask.reopen_proposed"):
    """An agent (or a file edit) reopened an ask the person dropped without words of theirs
    verified in the agent's own session: held, the ask stays dropped until the person
    confirms (an :class:`AskReopened` by ``user``) or declines (:class:`AskReopenDeclined`)."""

    ask_id: str
    date: dt.date
    #: ``agent`` or ``file`` (a change on disk of unknown authorship).
    by: str
    #: The proposer's words, as written (quotes included).
    note: str = ""


class AskReopenDeclined(Event, frozen=True, tag="ask.reopen_declined"):
    """The person declined a proposed reopen: the ask stays dropped."""

    ask_id: str
    date: dt.date
    note: str = ""


class AskOpenRefused(Event, frozen=True, tag="ask.open_refused"):
    """Audit: an agent tried to open an ask and was refused (nothing else changed)."""

    text: str
    #: ``duplicate_open``, ``dropped`` or ``reworded``; ``held`` when it possibly repeats the
    #: dropped ask ``ask_id`` (not appended, the agent may write it again naming that ask).
    reason: str
    message: str
    #: The ask the refusal names (the open duplicate, the dropped ask, the reworded id).
    ask_id: str | None = None
    due: str | None = None


class AskFileLine(Event, frozen=True, tag="ask.file_line"):
    """A non-event line of ASKS.md (prose, heading, blank, unresolvable event), kept verbatim."""

    text: str


class AskBytesReplaced(Event, frozen=True, tag="ask.bytes_replaced"):
    """Audit: line ``line`` (1-based) of an imported ASKS.md held bytes that are not UTF-8.

    The projection carries U+FFFD in their place; ``raw_hex`` keeps the original line's bytes.
    """

    line: int
    raw_hex: str


ASK_EVENTS: tuple[type[Event], ...] = (
    AskOpened,
    AskClosed,
    AskReopened,
    AskReopenProposed,
    AskReopenDeclined,
    AskOpenRefused,
    AskFileLine,
    AskBytesReplaced,
)


def stream_of(event: Event) -> str:
    """The stream an ask event is appended to."""
    if isinstance(
        event, AskOpened | AskClosed | AskReopened | AskReopenProposed | AskReopenDeclined
    ):
        return ask_stream(event.ask_id)
    if isinstance(event, AskOpenRefused | AskFileLine | AskBytesReplaced):
        return ASKS_STREAM
    raise TypeError(f"{type(event).__name__} is not an ask event")
