"""The ask events stored as arrays: the field names left out of ``data``.

Ask events are most of a long log (about 98 in 100 rows of a 100k-event project), and their
field names were a third of each payload. Each is stored as the array of its fields in
declaration order, its trailing defaults left out; a row stored as an object (every one
written before) decodes as ever. Fields are only ever appended (new fields have defaults), so
a shorter array reads with the defaults of the fields it lacks.
"""

from __future__ import annotations

from typing import Any

import msgspec

from orbital.events._base import Event, event_type
from orbital.events.asks import AskClosed, AskOpened, AskReopened

ROW_TYPES: tuple[type[Event], ...] = (AskOpened, AskClosed, AskReopened)


#: Stands for "no default" among the defaults (equal to no value).
_REQUIRED = object()


class _Row:
    """One event type's array form: its decoder and its fields' defaults."""

    def __init__(self, cls: type[Event]) -> None:
        self.cls = cls
        fields = msgspec.structs.fields(cls)
        spec: list[Any] = []
        self.defaults: list[Any] = []
        for f in fields:
            if f.default is not msgspec.NODEFAULT:
                spec.append((f.name, f.type, f.default))
                self.defaults.append(f.default)
            elif f.default_factory is not msgspec.NODEFAULT:
                spec.append((f.name, f.type, msgspec.field(default_factory=f.default_factory)))
                self.defaults.append(f.default_factory())
            else:
                spec.append((f.name, f.type))
                self.defaults.append(_REQUIRED)
        row = msgspec.defstruct(f"{cls.__name__}Row", spec, array_like=True, frozen=True)
        self.decoder = msgspec.json.Decoder(row)

    def encode(self, event: Event) -> bytes:
        values = list(msgspec.structs.astuple(event))
        while values and values[-1] == self.defaults[len(values) - 1]:
            values.pop()
        return _ENCODER.encode(values)

    def decode(self, data: bytes | str) -> Event:
        row = self.decoder.decode(data)
        return self.cls(**msgspec.structs.asdict(row))


_ENCODER = msgspec.json.Encoder()
ROWS: dict[str, _Row] = {event_type(cls): _Row(cls) for cls in ROW_TYPES}
ROW_OF: dict[type[Event], _Row] = {row.cls: row for row in ROWS.values()}
