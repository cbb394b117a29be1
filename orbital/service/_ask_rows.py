"""How asks are stored: the materialised state of an ``ask:<id>`` stream and the asks
snapshots hold each ask as a JSON array (:class:`AskRow`: no field names, dates as day
numbers, the state as an index), not as an object. Tens of thousands of asks are stored at
100k events, and the names were a third of each state's bytes.

Rows stored as objects (every state and snapshot written before) decode the same: the
decoders accept either form, so nothing stored has to be rewritten.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable

import msgspec

from orbital.domain.asks import Ask, AskState

#: ``AskRow.state`` indexes this.
STATES: tuple[AskState, ...] = ("open", "done", "dropped")
_STATE_INDEX = {state: n for n, state in enumerate(STATES)}
_EPOCH = dt.date(1970, 1, 1).toordinal()


class AskRow(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One ask as stored. The fields most often at their default come last, and trailing
    defaults are left out of the array (:func:`row_of`; msgspec's ``omit_defaults`` does not
    apply to arrays)."""

    id: str
    text: str
    #: Days since 1970-01-01.
    opened: int
    #: Index in :data:`STATES`.
    state: int
    #: Days after ``opened``.
    updated: int
    seq: int
    note: str = ""
    closed_by: str | None = None
    due: str | None = None
    verified: bool = False
    proposal: str | None = None
    reopened_by: str | None = None
    distinct_from: tuple[str, ...] = ()


#: Of note, closed_by, due, verified, proposal, reopened_by, distinct_from.
_DEFAULTS = ("", None, None, False, None, None, ())


@functools.lru_cache(maxsize=1 << 14)
def _day(number: int) -> dt.date:
    """The date of a day number (shared: thousands of asks fall on one day)."""
    return dt.date.fromordinal(_EPOCH + number)


def row_of(ask: Ask) -> list[object]:
    """``ask`` as an :class:`AskRow`'s array, without its trailing defaults."""
    opened = ask.opened.toordinal() - _EPOCH
    updated = ask.updated.toordinal() - _EPOCH - opened
    row: list[object] = [ask.id, ask.text, opened, _STATE_INDEX[ask.state], updated, ask.seq]
    rest = [
        ask.note,
        ask.closed_by,
        ask.due,
        ask.verified,
        ask.proposal,
        ask.reopened_by,
        ask.distinct_from,
    ]
    while rest and rest[-1] == _DEFAULTS[len(rest) - 1]:
        rest.pop()
    row += rest
    return row


def ask_of(row: AskRow) -> Ask:
    opened = row.opened
    return Ask(
        row.id,
        row.text,
        row.due,
        _day(opened),
        STATES[row.state],
        _day(opened + row.updated),
        row.closed_by,
        row.note,
        row.seq,
        row.verified,
        row.proposal,
        row.reopened_by,
        row.distinct_from,
    )


_ENCODER = msgspec.json.Encoder()
_ROW = msgspec.json.Decoder(AskRow)
_ROWS = msgspec.json.Decoder(list[AskRow])
#: The forms stored before rows: an ask as an object, a snapshot as asks by id.
_OBJECT = msgspec.json.Decoder(Ask)
_OBJECTS = msgspec.json.Decoder(dict[str, Ask])


def encode_ask(ask: Ask) -> str:
    """The stored state of one ask stream."""
    return _ENCODER.encode(row_of(ask)).decode()


def decode_ask(raw: str) -> Ask:
    """A stored ask stream state, in either form."""
    if raw.startswith("["):
        return ask_of(_ROW.decode(raw))
    return _OBJECT.decode(raw)


def encode_asks(asks: Iterable[Ask]) -> bytes:
    """An asks snapshot (every ask, or the asks changed since the previous one)."""
    return _ENCODER.encode([row_of(ask) for ask in asks])


def decode_asks(raw: bytes) -> dict[str, Ask]:
    """An asks snapshot, in either form (a list of rows, or asks by id)."""
    if raw.startswith(b"["):
        return {row.id: ask_of(row) for row in _ROWS.decode(raw)}
    return _OBJECTS.decode(raw)
