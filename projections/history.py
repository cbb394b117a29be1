"""One-line summaries of events for history listings (pure)."""

from __future__ import annotations

import msgspec

from orbital.events import Event, event_type
from orbital.grammar.text import clipped

_KEY_FIELDS = ("ask_id", "entry_id", "file", "kind", "by", "due")
_TEXT_FIELDS = ("text", "note", "reason", "pointer", "root")
_CLIP = 80


def _show(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def summarize(event: Event) -> str:
    """``<type> <key fields>: <text>``, clipped to one readable line."""
    fields = msgspec.structs.asdict(event)
    keys = [_show(fields[name]) for name in _KEY_FIELDS if fields.get(name)]
    texts = [clipped(str(fields[name]), _CLIP) for name in _TEXT_FIELDS if fields.get(name)]
    head = " ".join([event_type(type(event)), *keys])
    return f"{head}: {texts[0]}" if texts else head
