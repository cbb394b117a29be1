"""One-line summaries of events for history listings (pure)."""

from __future__ import annotations

import msgspec

from orbital.domain.asks import QuoteMark, quote_mark
from orbital.events import Event, event_type
from orbital.events.asks import AskClosed, AskReopened
from orbital.grammar.text import clipped

_KEY_FIELDS = (
    "ask_id",
    "entry_id",
    "file",
    "kind",
    "by",
    "due",
    "level",
    "agent",
    "from_session",
    "path",
    "lines",
)
_TEXT_FIELDS = ("text", "note", "reason", "pointer", "root", "plan", "name")
_CLIP = 80


def _show(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def marked(mark: QuoteMark | None) -> str:
    """A close's or reopen's quote mark as listings show it ("" for the person's own)."""
    if mark is None:
        return ""
    return "[no quote]" if mark == "no quote" else f"[quote {mark}]"


def event_mark(event: Event) -> QuoteMark | None:
    """The quote mark of an ask close or reopen by anyone but the person or the editor."""
    if isinstance(event, AskClosed | AskReopened):
        return quote_mark(event.by or "agent", event.note, event.verified)
    return None


def summarize(event: Event) -> str:
    """``<type> <key fields>: <text>``, clipped to one readable line; an agent's close or
    reopen says whether its quote was verified."""
    fields = msgspec.structs.asdict(event)
    keys = [_show(fields[name]) for name in _KEY_FIELDS if fields.get(name)]
    mark = marked(event_mark(event))
    if mark:
        keys.append(mark)
    texts = [clipped(str(fields[name]), _CLIP) for name in _TEXT_FIELDS if fields.get(name)]
    meta = fields.get("meta")
    if isinstance(meta, dict) and meta:  # an entry's fields (where an imported fact came from)
        texts.append(clipped(" ".join(f"{k}:{v}" for k, v in meta.items()), _CLIP))
    head = " ".join([event_type(type(event)), *keys])
    return f"{head}: {texts[0]}" if texts else head
