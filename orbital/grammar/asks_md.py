"""ASKS.md: the line grammar, the file projection and the import of a hand-written file.

The file is one event per line, oldest first, under a code-owned format header (line 1):

    - open <id> <YYYY-MM-DD> [due:YYYY-MM-DD[THH:MM]] <text>
    - done|dropped <id> <YYYY-MM-DD> by:<writer> [<note>]
    - reopen <id> <YYYY-MM-DD> by:<writer> [<note>]

Parsing is lenient (``*`` bullets, leading spaces, bracketed or upper-case ids, the due token
anywhere, date and ``by:`` in either order); rendering is canonical. Lines that are not ask
events are kept verbatim as :class:`AskFileLine` events so a hand-written file round-trips.

Bytes: ASKS.md is UTF-8 with ``\\n`` line ends. :func:`decode_asks_bytes` turns ``\\r\\n`` and
lone ``\\r`` into ``\\n`` and replaces undecodable bytes with U+FFFD, returning one
:class:`AskBytesReplaced` audit event per affected line with that line's original bytes, so the
shell records them and nothing is silently dropped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable
from typing import Literal

import msgspec

from orbital.clock import day_or_none
from orbital.events import Event
from orbital.events.asks import (
    AskBytesReplaced,
    AskClosed,
    AskFileLine,
    AskOpened,
    AskReopened,
)
from orbital.grammar.text import norm, one_line

LineKind = Literal["open", "done", "dropped", "reopen"]

#: When to open an ask (reference §6.8: the same words in ASKS.md's header and in every
#: agent's instructions, :mod:`orbital.agents.instructions`).
OPEN_AN_ASK_WHEN = (
    "Open an ask only for something that must outlive this conversation: a date to keep, "
    "something the user will do, or a decision the user put off for later (\"I'll decide "
    'after …") while you carry on. A TBD note in a file or in chat is not an ask — only '
    "ASKS.md reaches the user's Workbench."
)
FORMAT_HEADER = (
    "<!--format ASKS is an append-only log of what waits on the user: one event per line, "
    f"oldest first, and Orbital puts back any line you change or delete. {OPEN_AN_ASK_WHEN} "
    "Open with `- open <text>` or `- open due:YYYY-MM-DD <text>`; Orbital adds the "
    "id and date. Close only with the user's own words in quotes: `- done <id> \"<the user's "
    'words>"` or `- dropped <id> "<their words>"`; without them, leave it open. Never '
    "re-propose a dropped ask. An ask's state is its last line.-->"
)

_EVENT = re.compile(r"\s*[-*]\s+(open|done|dropped|reopen)(?=\s|$)(.*)")
_OPEN_ID = re.compile(r"\s*\[?([0-9a-fA-F]{6})\]?\s+(\d{4}-\d{2}-\d{2})(?=\s|$)")
_DUE = re.compile(r"(?<!\S)\[?due:(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2})?)\]?(?!\S)")
#: A due token that is not a date: first after ``- open`` (where the header puts the due) or
#: bracketed anywhere. It is dropped from the text, and the writer told (:func:`due_warning`).
_LEAD_DUE = re.compile(r"\s*\[?due:([^\s\]]*)\]?(?=\s|$)")
_BRACKET_DUE = re.compile(r"(?<!\S)\[due:([^\s\]]*)\](?!\S)")
_DUE_VALUE = re.compile(r"(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2})?")
_CLOSE_ID = re.compile(r"\s*\[?([0-9a-fA-F]{6})\]?(?=\s|$)")
_DATE = re.compile(r"\s*(\d{4}-\d{2}-\d{2})(?=\s|$)")
_BY = re.compile(r"\s*by:(\S+)")
#: An open's claim that it differs from dropped asks it resembles, at the end of its line:
#: ``(distinct from 4f2a1c)``, several ids separated by commas or "and".
_DISTINCT = re.compile(
    r"\(?\s*\bdistinct from\s+((?:\[?[0-9a-fA-F]{6}\]?(?:\s*,\s*|\s+and\s+|\s*))+)\)?\s*$",
    re.IGNORECASE,
)
_HEX = re.compile(r"[0-9a-fA-F]{6}")


class AskLine(msgspec.Struct, frozen=True):
    """One parsed event line. ``text`` is the ask text for ``open``, else the note."""

    kind: LineKind
    ask_id: str | None
    date: dt.date | None
    text: str
    due: str | None = None
    by: str | None = None
    #: A due token of an ``open`` that is not a real date (dropped: the ask has no due).
    bad_due: str | None = None
    #: The dropped asks an ``open`` says it differs from (``distinct from <id>``).
    distinct_from: tuple[str, ...] = ()


def due_value(value: str) -> dt.date | dt.datetime | None:
    """The day (or the local time of a day) ``value`` names when it is a due a line can
    carry: a real ``YYYY-MM-DD`` day, optionally with ``THH:MM``; else None."""
    found = _DUE_VALUE.fullmatch(value)
    if found is None:
        return None
    try:
        day = dt.date.fromisoformat(found[1])
        if not found[2]:
            return day
        return dt.datetime.combine(day, dt.time.fromisoformat(found[2][1:]))
    except ValueError:
        return None


def valid_due(value: str) -> bool:
    """Whether ``value`` is a due an ask can carry (:func:`due_value`; views compare dues as
    dates, so anything else would be read as text)."""
    return due_value(value) is not None


def due_warning(value: str, text: str, where: str = "ASKS.md") -> str:
    """The warning for a due that is not a date, dropped from the ask ``text``."""
    return (
        f'{where}: dropped "due:{value}" from the ask "{text[:60]}" — not a date; write '
        "due:YYYY-MM-DD or due:YYYY-MM-DDTHH:MM (a real day)."
    )


def parse_line(line: str) -> AskLine | None:
    """Parse one line leniently; ``None`` when it is not an ask event."""
    match = _EVENT.fullmatch(line)
    if match is None:
        return None
    kind: LineKind = match[1]  # type: ignore[assignment]
    rest = match[2]
    date: dt.date | None = None
    if kind == "open":
        ask_id = None
        head = _OPEN_ID.match(rest)
        if head is not None:
            ask_id, date, rest = head[1].lower(), day_or_none(head[2]), rest[head.end() :]
        token = _DUE.search(rest) or _LEAD_DUE.match(rest) or _BRACKET_DUE.search(rest)
        due = bad = None
        if token is not None:
            rest = rest[: token.start()] + " " + rest[token.end() :]
            due, bad = (token[1], None) if valid_due(token[1]) else (None, token[1])
        claim = _DISTINCT.search(rest)
        distinct: tuple[str, ...] = ()
        if claim is not None:
            rest = rest[: claim.start()]
            distinct = tuple(dict.fromkeys(i.lower() for i in _HEX.findall(claim[1])))
        return AskLine(kind, ask_id, date, one_line(rest), due, None, bad, distinct)
    id_match = _CLOSE_ID.match(rest)
    if id_match is None:
        return AskLine(kind, None, None, one_line(rest))
    ask_id, rest = id_match[1].lower(), rest[id_match.end() :]
    by: str | None = None
    seen_date = False
    while True:
        if not seen_date and (m := _DATE.match(rest)):
            seen_date, date, rest = True, day_or_none(m[1]), rest[m.end() :]
        elif by is None and (m := _BY.match(rest)):
            by, rest = m[1].lower(), rest[m.end() :]
        else:
            break
    return AskLine(kind, ask_id, date, one_line(rest), by=by)


def render_event(event: Event) -> str | None:
    """The canonical ASKS.md line of one event (no newline); ``None`` for audit events."""
    if isinstance(event, AskOpened):
        due = f"due:{event.due}" if event.due else ""
        claim = f"(distinct from {', '.join(event.distinct_from)})" if event.distinct_from else ""
        parts = ["- open", event.ask_id, event.date.isoformat(), due, one_line(event.text), claim]
    elif isinstance(event, AskClosed | AskReopened):
        kind = event.kind if isinstance(event, AskClosed) else "reopen"
        by = f"by:{event.by or 'agent'}"
        date = "" if event.undated else event.date.isoformat()
        parts = [f"- {kind}", event.ask_id, date, by, one_line(event.note)]
    elif isinstance(event, AskFileLine):
        return event.text
    else:
        return None
    return " ".join(p for p in parts if p)


def render_lines(events: Iterable[Event]) -> list[str]:
    """The ASKS.md lines of ``events`` in order (audit events have none)."""
    return [line for line in map(render_event, events) if line is not None]


def render_file(events: Iterable[Event]) -> str:
    """The whole ASKS.md for events in log order: the header, then one line per event."""
    return "\n".join([FORMAT_HEADER, *render_lines(events)]) + "\n"


def line_block(lines: Iterable[str]) -> str:
    """``lines`` as ASKS.md holds them: each ended by a newline (what an append adds after a
    file that ends with one)."""
    return "".join(line + "\n" for line in lines)


def append_lines(text: str, lines: Iterable[str]) -> str:
    """``text`` with ``lines`` appended, one per line (a missing final newline is added first).

    Empty ``text`` (no file yet) gets the format header first.
    """
    new = line_block(lines)
    if not new:
        return text
    if not text:
        return FORMAT_HEADER + "\n" + new
    return text + new if text.endswith("\n") else text + "\n" + new


def normalize_newlines(text: str) -> tuple[str, bool]:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``; the flag says whether anything changed."""
    if "\r" not in text:
        return text, False
    fixed = text.replace("\r\n", "\n").replace("\r", "\n")
    return fixed, True


def decode_asks_bytes(raw: bytes) -> tuple[str, list[AskBytesReplaced]]:
    """Decode ASKS.md bytes: newlines normalised, bad bytes replaced, each bad line audited."""
    audits: list[AskBytesReplaced] = []
    lines = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    for number, line in enumerate(lines, start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            audits.append(AskBytesReplaced(line=number, raw_hex=line.hex()))
    return b"\n".join(lines).decode("utf-8", errors="replace"), audits


def synthetic_id(text: str, taken: set[str]) -> str:
    """The deterministic id of an id-less open: ``sha1("ask:" + norm(text))[:6]``.

    On a collision with ``taken`` the seeds ``norm(text) + "#1"``, ``"#2"``, … are tried.
    """
    seed, attempt = norm(text), 0
    while True:
        candidate = hashlib.sha1(f"ask:{seed}".encode()).hexdigest()[:6]
        if candidate not in taken:
            return candidate
        attempt += 1
        seed = f"{norm(text)}#{attempt}"


class ParsedFile(msgspec.Struct, frozen=True):
    """What a hand-written ASKS.md stands for, and what the writer is told about it."""

    events: list[Event]
    warnings: list[str]


def parse_file(text: str, today: dt.date) -> list[Event]:
    """The events of :func:`read_file`."""
    return read_file(text, today).events


def read_file(text: str, today: dt.date) -> ParsedFile:
    """The events a (possibly hand-written) ASKS.md stands for, in file order.

    A format header on line 1 is code-owned and dropped. Id-less opens get their synthetic id,
    an undated open ``today``, closes without ``by:`` count as ``agent`` (not the user's
    consent). An undated close or reopen is not dated with the import day (it would show as
    closed just now): it keeps the ask's previous day, marked ``undated`` (upstream's fold:
    ``updated = date or previous``). A due that is not a date is dropped with a warning.
    Lines the fold could not use — prose, blanks, opens without text, closes of an id not
    opened above them — become :class:`AskFileLine` so :func:`render_file` keeps them.
    """
    text, _ = normalize_newlines(text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and lines[0].lstrip().startswith("<!--format"):
        lines.pop(0)
    parsed = [parse_line(line) for line in lines]
    taken = {p.ask_id for p in parsed if p and p.kind == "open" and p.ask_id}
    #: Each ask's day so far (its last dated event), by id.
    known: dict[str, dt.date] = {}
    events: list[Event] = []
    warnings: list[str] = []
    for line, item in zip(lines, parsed, strict=True):
        event = _event_of(item, today, taken, known)
        events.append(event if event is not None else AskFileLine(text=line))
        if isinstance(event, AskOpened) and item is not None and item.bad_due is not None:
            warnings.append(due_warning(item.bad_due, item.text))
    return ParsedFile(events, warnings)


def _event_of(
    item: AskLine | None, today: dt.date, taken: set[str], known: dict[str, dt.date]
) -> Event | None:
    if item is None:
        return None
    if item.kind == "open":
        if not item.text:
            return None
        ask_id = item.ask_id
        if ask_id is None:
            ask_id = synthetic_id(item.text, taken)
            taken.add(ask_id)
        date = known[ask_id] = item.date or today
        return AskOpened(
            ask_id=ask_id, text=item.text, date=date, due=item.due, distinct_from=item.distinct_from
        )
    if item.ask_id is None or item.ask_id not in known:
        return None
    by, undated = item.by or "agent", item.date is None
    date = known[item.ask_id] = item.date or known[item.ask_id]
    if item.kind == "reopen":
        return AskReopened(ask_id=item.ask_id, date=date, by=by, note=item.text, undated=undated)
    return AskClosed(
        ask_id=item.ask_id, kind=item.kind, date=date, by=by, note=item.text, undated=undated
    )
