"""The event vocabulary: every event type, the actors, and the stored-event envelope.

All payloads form one msgspec tagged union (tag field ``type``), so one decoder validates any
stored event, and older stored shapes are upcast on decode (``_upcast.py``). Below it are only
the catalogue and the errors.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Union

import msgspec

from orbital.errors import MalformedEvent
from orbital.events._base import Actor, Event, event_type
from orbital.events._rows import ROW_OF, ROWS
from orbital.events._upcast import upcast
from orbital.events.asks import ASK_EVENTS, AskClosed, AskOpened, AskOpenRefused, AskReopened
from orbital.events.citations import CITATION_EVENTS
from orbital.events.editor import EDITOR_EVENTS
from orbital.events.entries import ENTRY_EVENTS
from orbital.events.files import FILE_EVENTS
from orbital.events.handoff import HANDOFF_EVENTS
from orbital.events.migration import MIGRATION_EVENTS
from orbital.events.project import PROJECT_EVENTS, ProjectRegistered
from orbital.events.trust import TRUST_EVENTS
from orbital.events.workspaces import WORKSPACE_EVENTS

EVENT_TYPES: tuple[type[Event], ...] = (
    PROJECT_EVENTS
    + ASK_EVENTS
    + ENTRY_EVENTS
    + TRUST_EVENTS
    + CITATION_EVENTS
    + FILE_EVENTS
    + MIGRATION_EVENTS
    + EDITOR_EVENTS
    + WORKSPACE_EVENTS
    + HANDOFF_EVENTS
)
#: The runtime union used for decoding; statically, decoded values are ``Event``.
AnyEvent: Any = Union[EVENT_TYPES]  # noqa: UP007 - built from a tuple at runtime

_decoder = msgspec.json.Decoder(AnyEvent)
_encoder = msgspec.json.Encoder()


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event as stored: payload plus its place in the log."""

    position: int
    project: str
    stream: str
    version: int
    event: Event
    actor: Actor
    session: str | None
    recorded_at: dt.datetime
    event_id: str

    @property
    def type(self) -> str:
        return event_type(type(self.event))


def encode_event(event: Event) -> bytes:
    """JSON bytes of a payload, including its ``type`` tag."""
    if not isinstance(event, EVENT_TYPES):
        raise MalformedEvent(f"{type(event).__name__} is not in the event catalogue")
    return _encoder.encode(event)


#: Per type: the decoder, and how its JSON starts (the tag, which the encoder writes first).
_decoders: dict[str, msgspec.json.Decoder[Any]] = {
    event_type(cls): msgspec.json.Decoder(cls) for cls in EVENT_TYPES
}
_tag_lengths: dict[type[Event], int] = {
    cls: len(b'{"type":' + _encoder.encode(event_type(cls))) for cls in EVENT_TYPES
}


def encode_payload(event: Event) -> bytes:
    """The stored ``data`` of an event: its JSON without the ``type`` tag, which the row's
    ``type`` column already holds (rows stored with the tag still decode); an ask event's is
    the array of its fields (``_rows.py``)."""
    row = ROW_OF.get(type(event))
    if row is not None:
        return row.encode(event)
    raw = encode_event(event)
    rest = raw[_tag_lengths[type(event)] :]
    return b"{" + rest[1:] if rest.startswith(b",") else b"{}"


def decode_event(
    data: bytes | str, *, type: str | None = None, position: int | None = None
) -> Event:
    """Decode and validate stored JSON into its event type, in today's shape. ``type`` is
    the row's type column: then the payload may leave its tag out."""
    decoder = _decoder if type is None else _decoders.get(type, _decoder)
    try:
        if type is not None and type in ROWS and data[:1] in ("[", b"["):
            return upcast(ROWS[type].decode(data), data)
        event: Event = decoder.decode(data)
        return upcast(event, data)
    except msgspec.ValidationError as exc:
        raise MalformedEvent(str(exc), position=position) from None
    except msgspec.DecodeError as exc:
        raise MalformedEvent(f"not JSON: {exc}", position=position) from None


__all__ = [
    "EVENT_TYPES",
    "Actor",
    "AnyEvent",
    "AskClosed",
    "AskOpenRefused",
    "AskOpened",
    "AskReopened",
    "Event",
    "ProjectRegistered",
    "RecordedEvent",
    "decode_event",
    "encode_event",
    "encode_payload",
    "event_type",
]
