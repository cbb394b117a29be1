"""One small error hierarchy for the whole service.

Errors carry data (which stream, which versions) rather than only text, so the HTTP and CLI
layers can map them to status codes and exit codes without parsing messages.
"""

from __future__ import annotations


class OrbitalError(Exception):
    """Base of every error Orbital raises on purpose."""


class UnknownProject(OrbitalError):
    """A project id or path that is not registered in the store."""

    def __init__(self, project: str) -> None:
        self.project = project
        super().__init__(
            f"unknown project {project!r}: register it first with `orbital init --project PATH`"
        )


class Conflict(OrbitalError):
    """Optimistic concurrency failure: the stream moved on since it was read."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        self.stream = stream
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"stream {stream!r} is at version {actual}, not the expected {expected}: "
            "someone else wrote it meanwhile; reload and retry"
        )


class MalformedEvent(OrbitalError):
    """Event data that does not decode into the event catalogue."""

    def __init__(self, detail: str, *, position: int | None = None) -> None:
        self.detail = detail
        self.position = position
        where = f" at position {position}" if position is not None else ""
        super().__init__(f"malformed event{where}: {detail}")


class StoreLocked(OrbitalError):
    """The database stayed locked by another writer for longer than the busy timeout."""

    def __init__(self, url: str, timeout_ms: int) -> None:
        self.url = url
        self.timeout_ms = timeout_ms
        super().__init__(
            f"the store {url} stayed locked by another writer for more than {timeout_ms} ms; "
            "nothing was written. Retry, or raise ORBITAL_BUSY_TIMEOUT_MS"
        )


class InvalidInput(OrbitalError):
    """Bad input from a person or an agent (a malformed date, an empty text, a bad name)."""


class UnknownAsk(OrbitalError):
    """An ask id that no ask in the project has."""

    def __init__(self, ask_id: str) -> None:
        self.ask_id = ask_id
        super().__init__(f"no ask with id {ask_id!r}: use an id from `orbital asks`")


class UnknownFile(OrbitalError):
    """A name that is not one of the project's memory files."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"{name!r} is not a memory file; use one of {', '.join(known)}")


class UnsafePath(OrbitalError):
    """A path that would leave the project's ``orbital/`` directory (``..``, a symlink…)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refused {path!r}: {reason}; nothing was written")


class TooLarge(OrbitalError):
    """A write over the size limit."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"the content is {size:,} bytes, over the {limit:,}-byte limit for a memory file; "
            "nothing was changed (raise ORBITAL_MAX_FILE_BYTES if this is intended)"
        )


class InvalidEncoding(OrbitalError):
    """Content that is not valid UTF-8."""

    def __init__(self, offset: int) -> None:
        self.offset = offset
        super().__init__(
            f"the content is not valid UTF-8 (first bad byte at offset {offset}); "
            "nothing was changed"
        )


class UnknownEntry(OrbitalError):
    """An entry id that no memory file of the project has."""

    def __init__(self, entry_id: str) -> None:
        self.entry_id = entry_id
        super().__init__(
            f"no memory entry with id {entry_id!r}; ids are in the files' <!--mem id:…--> comments"
        )


class Refused(OrbitalError):
    """A well-formed request that the rules refuse (nothing was changed)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class ProviderError(OrbitalError):
    """The editor's model call failed. ``transient`` errors (timeouts, 5xx, a dropped
    connection) are worth one retry; the others (401, 4xx, a malformed reply) are not."""

    def __init__(self, detail: str, *, status: int | None = None, transient: bool = False) -> None:
        self.detail = detail
        self.status = status
        self.transient = transient
        super().__init__(f"the editor's model call failed: {detail}")


class EditorNotConfigured(OrbitalError):
    """No model is configured for the memory editor."""

    def __init__(self, missing: tuple[str, ...]) -> None:
        self.missing = missing
        super().__init__(
            f"the memory editor has no model: set {', '.join(missing)} "
            "(an OpenAI-compatible chat-completions endpoint; ORBITAL_EDITOR_KEY if it needs one)"
        )


class SessionUnreadable(OrbitalError):
    """A session transcript exists but could not be read."""

    def __init__(self, session: str, reason: str) -> None:
        self.session = session
        self.reason = reason
        super().__init__(f"session {session!r} could not be read: {reason}")
