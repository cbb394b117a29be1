"""The exported log's format: a project's (or a whole store's) log as one portable file.

The file is gzip-compressed JSON Lines. The first line is the header (``format``,
``version``, ``scope``); then one line per project (its id, identity, timezone, when it was
registered; not its folder, which is each checkout's own), one per credential's metadata
(never a secret or its hash: a token does not travel, it is made anew where the log lands),
and one per event in log order with its id, actor, session, time and payload. Positions are
global to a store, so a file never holds one: line order is the log's order, and a payload
field that names a position (a hand edit's base, an editor run's memory position) holds the
number of the event line it names instead (1 for the first event line; 0 stays 0), turned
back into the new store's position on import. The same log always encodes to the same bytes.

Pure: bytes in, bytes out; reading and writing the file is the caller's.
"""

from __future__ import annotations

import bisect
import datetime as dt
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import msgspec
from msgspec.structs import replace

from orbital.errors import InvalidInput, MalformedEvent
from orbital.events import Actor, Event, RecordedEvent, decode_event, encode_event
from orbital.events.editor import EditorRunStarted, EditorWatermarkAdvanced
from orbital.events.files import HandEditConflict
from orbital.events.project import ProjectReverted

FORMAT = "orbital-log"
#: The newest format this code writes and reads; a newer file is refused, never half read.
VERSION = 1


class Header(msgspec.Struct, frozen=True):
    format: str
    version: int
    #: ``project`` (one project and the workspaces it was in) or ``store`` (every project).
    scope: str = "project"


class ProjectLine(msgspec.Struct, frozen=True, tag="project", tag_field="kind"):
    id: str
    #: The random id in the project's committed ``orbital/project-id``.
    identity: str
    timezone: str
    registered_at: dt.datetime


class CredentialLine(msgspec.Struct, frozen=True, tag="credential", tag_field="kind"):
    """A credential's metadata (no secret): what to make anew where the log lands."""

    token_id: str
    audience: str
    label: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None
    #: The projects it reaches (empty: every project).
    projects: tuple[str, ...] = ()


class EventLine(msgspec.Struct, frozen=True, tag="event", tag_field="kind", omit_defaults=True):
    project: str
    stream: str
    id: str
    actor: str
    at: dt.datetime
    data: msgspec.Raw
    session: str | None = None


Line = ProjectLine | CredentialLine | EventLine


@dataclass(frozen=True)
class LoggedEvent:
    """An event of a read file: its payload's positions are still event-line numbers
    (:func:`with_positions` turns them into a store's)."""

    project: str
    stream: str
    event_id: str
    actor: Actor
    session: str | None
    recorded_at: dt.datetime
    event: Event


@dataclass(frozen=True)
class LogFile:
    header: Header
    projects: tuple[ProjectLine, ...]
    credentials: tuple[CredentialLine, ...]
    events: tuple[LoggedEvent, ...]


# -- positions in payloads ---------------------------------------------------------------------


def _mapped(event: Event, to: Callable[[int], int]) -> Event:
    """``event`` with every position its payload names passed through ``to`` (0 stays 0)."""

    def one(value: int) -> int:
        return to(value) if value else 0

    match event:
        case HandEditConflict(base=base):
            return replace(event, base=one(base))
        case EditorRunStarted(memory_position=at, positions=positions):
            moved = {key: one(value) for key, value in positions.items()}
            return replace(event, memory_position=one(at), positions=moved)
        case EditorWatermarkAdvanced(memory_position=at):
            return replace(event, memory_position=one(at))
        case ProjectReverted(position=at):
            return replace(event, position=one(at))
    return event


def with_positions(event: Event, position_of: Callable[[int], int]) -> Event:
    """A read event's payload with event-line numbers turned into positions."""
    return _mapped(event, position_of)


# -- encode --------------------------------------------------------------------------------------

_encoder = msgspec.json.Encoder()


def _utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def encode_lines(
    scope: str,
    projects: Iterable[ProjectLine],
    credentials: Iterable[CredentialLine],
    events: Iterable[RecordedEvent],
) -> Iterator[bytes]:
    """The file's lines (uncompressed), events in the order given (the log's)."""
    yield _encoder.encode(Header(FORMAT, VERSION, scope)) + b"\n"
    for line in (*projects, *credentials):
        yield _encoder.encode(line) + b"\n"
    seen: list[int] = []

    def line_of(position: int) -> int:
        """The number of the last event line at or before ``position`` (payloads name
        earlier events only)."""
        return bisect.bisect_right(seen, position)

    for recorded in events:
        seen.append(recorded.position)
        payload = encode_event(_mapped(recorded.event, line_of))
        line = EventLine(
            project=recorded.project,
            stream=recorded.stream,
            id=recorded.event_id,
            actor=recorded.actor.value,
            at=_utc(recorded.recorded_at),
            data=msgspec.Raw(payload),
            session=recorded.session,
        )
        yield _encoder.encode(line) + b"\n"


def compressed(lines: Iterable[bytes]) -> Iterator[bytes]:
    """gzip of ``lines``, streamed; the header carries no time, so equal logs give equal
    bytes."""
    gz = zlib.compressobj(6, zlib.DEFLATED, 31)
    for line in lines:
        if chunk := gz.compress(line):
            yield chunk
    yield gz.flush()


# -- decode --------------------------------------------------------------------------------------

_header = msgspec.json.Decoder(Header)
_line = msgspec.json.Decoder(Line)


def _lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    gz = zlib.decompressobj(31)
    rest = b""
    try:
        for chunk in chunks:
            rest += gz.decompress(chunk)
            *whole, rest = rest.split(b"\n")
            yield from whole
        rest += gz.flush()
    except zlib.error:
        raise InvalidInput("not an Orbital log file: it is not gzip-compressed") from None
    if not gz.eof:
        raise InvalidInput("the log file is cut short: it ends inside its compressed data")
    if rest:
        yield rest


def read_header(first: bytes) -> Header:
    """The header line, checked: a newer format is refused before any other line is read."""
    try:
        header = _header.decode(first)
    except (msgspec.ValidationError, msgspec.DecodeError):
        header = None
    if header is None or header.format != FORMAT:
        raise InvalidInput("not an Orbital log file: its first line is no orbital-log header")
    if header.version > VERSION:
        raise InvalidInput(
            f"this log file is format version {header.version}, newer than this Orbital reads "
            f"(up to {VERSION}): upgrade Orbital, then import it; nothing was imported"
        )
    return header


def _logged(line: EventLine, number: int) -> LoggedEvent:
    try:
        return LoggedEvent(
            project=line.project,
            stream=line.stream,
            event_id=line.id,
            actor=Actor(line.actor),
            session=line.session,
            recorded_at=_utc(line.at),
            event=decode_event(bytes(line.data)),
        )
    except (ValueError, MalformedEvent) as exc:
        raise InvalidInput(f"line {number} of the log file is not readable: {exc}") from None


def decode_log(chunks: Iterable[bytes]) -> LogFile:
    """A whole file read and checked (every event decoded into today's shape)."""
    lines = _lines(chunks)
    header = read_header(next(lines, b""))
    projects: list[ProjectLine] = []
    credentials: list[CredentialLine] = []
    events: list[LoggedEvent] = []
    for number, raw in enumerate(lines, start=2):
        if not raw.strip():
            continue
        try:
            line = _line.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise InvalidInput(f"line {number} of the log file is not readable: {exc}") from None
        if isinstance(line, ProjectLine):
            projects.append(line)
        elif isinstance(line, CredentialLine):
            credentials.append(line)
        else:
            events.append(_logged(line, number))
    return LogFile(header, tuple(projects), tuple(credentials), tuple(events))
