"""Orbital's errors, in six families under :class:`OrbitalError`.

Each interface maps a *family* once (HTTP status in ``orbital/http/_problems.py``, CLI exit
status in the CLI), so a new error class needs no mapping of its own. Errors carry data (which
stream, which versions) rather than only text, so nothing parses messages. ``str()`` fits every
surface; advice that only a person at a shell can follow (an ``orbital`` command, a flag) is the
class's ``hint``, which the CLI adds and HTTP leaves out.
"""

from __future__ import annotations

from orbital.errors._families import (
    Conflict,
    Internal,
    InvalidInput,
    NotFound,
    OrbitalError,
    Refused,
    Unavailable,
)
from orbital.errors._store import (
    DiskFull,
    NoStore,
    NothingToRescue,
    RescueFailed,
    StoreCorrupt,
    StoreGone,
    StoreLocked,
    StoreReadOnly,
    StoreUnreachable,
    UnsafeSqlite,
)

# -- invalid input ------------------------------------------------------------------------------


class UnsafePath(InvalidInput):
    """A path that would leave the project's ``orbital/`` directory (``..``, a symlink…)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refused {path!r}: {reason}; nothing was written")


class PlantedJournal(InvalidInput):
    """Names in ``orbital/`` that look like Orbital's write journal but are no record of it
    (recovery acts only on its own records, kept in the state folder)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        listed = ", ".join(f"orbital/{n}" for n in names)
        super().__init__(
            f"{listed}: named like Orbital's write journal, but Orbital has no record of "
            "writing it (put there by git, an archive or a hand?); it was left alone and "
            "nothing was written: remove it, or move it out of orbital/, and run again"
        )


class TooLarge(InvalidInput):
    """A write over the size limit."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"the content is {size:,} bytes, over the {limit:,}-byte limit for a memory file; "
            "nothing was changed (raise ORBITAL_MAX_FILE_BYTES if this is intended)"
        )


class InvalidEncoding(InvalidInput):
    """Content that is not valid UTF-8."""

    def __init__(self, offset: int) -> None:
        self.offset = offset
        super().__init__(
            f"the content is not valid UTF-8 (first bad byte at offset {offset}); "
            "nothing was changed"
        )


# -- not found ----------------------------------------------------------------------------------


class UnknownProject(NotFound):
    """A project id or path that is not registered in the store."""

    hint = "register it first with `orbital init --project PATH`"

    def __init__(self, project: str) -> None:
        self.project = project
        super().__init__(f"unknown project {project!r}")


class ProjectElsewhere(UnknownProject):
    """A folder whose committed ``orbital/project-id`` names a project this store does not
    know: a checkout of a project kept in another store (a teammate's clone without the
    team's store), which a new registration here would silently fork."""

    hint = (
        "point --db / ORBITAL_DB at the team's store (then `orbital init` joins the project); "
        "`orbital init --new-project` makes a new, separate project of this folder instead"
    )

    def __init__(self, root: str, identity: str, store: str, known: tuple[str, ...]) -> None:
        self.root, self.identity, self.store, self.known = root, identity, store, known
        where = (
            f"stores of yours that know it: {', '.join(known)}"
            if known
            else "no store of yours on this machine knows it"
        )
        OrbitalError.__init__(
            self,
            f"{root} is a checkout of project {identity} (its orbital/project-id), which the "
            f"store {store} does not know; {where}",
        )
        self.project = root


class UnknownAsk(NotFound):
    """An ask id that no ask in the project has."""

    hint = "use an id from `orbital asks`"

    def __init__(self, ask_id: str) -> None:
        self.ask_id = ask_id
        super().__init__(f"no ask with id {ask_id!r}")


class UnknownFile(NotFound):
    """A name that is not one of the project's memory files."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"{name!r} is not a memory file; use one of {', '.join(known)}")


class UnknownEntry(NotFound):
    """An entry id that no memory file of the project has."""

    def __init__(self, entry_id: str) -> None:
        self.entry_id = entry_id
        super().__init__(
            f"no memory entry with id {entry_id!r}; ids are in the files' <!--mem id:…--> comments"
        )


class UnknownEvent(NotFound):
    """An event id that the project's log does not hold."""

    hint = "`orbital history --json` shows each event's id, or name a position as @N"

    def __init__(self, event_id: str) -> None:
        self.event_id = event_id
        super().__init__(f"no event with id {event_id!r} in this project's log")


class UnknownWorkspace(NotFound):
    """A workspace name that no workspace has."""

    hint = "create it with `orbital workspace create NAME`"

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown workspace {name!r}")


class NoWorkspace(NotFound):
    """The project is in no workspace, so it has no workspace text to read or write."""

    hint = "join one with `orbital init --workspace NAME`"

    def __init__(self, project: str) -> None:
        self.project = project
        super().__init__(f"project {project!r} is in no workspace")


class TextTooLong(InvalidInput):
    """A workspace context or project description over its limit: nothing was saved. The
    count is of the text the agent receives (markup and mention markers included)."""

    def __init__(self, what: str, length: int, limit: int) -> None:
        self.what = what
        self.length = length
        self.limit = limit
        over = length - limit
        cut = f"cut {over:,} character{'' if over == 1 else 's'}"
        super().__init__(
            f"{what} is {length:,} characters, over its limit of {limit:,}: {cut} "
            "(nothing was saved)"
        )


# -- refused ------------------------------------------------------------------------------------


class UnmergedEdits(Refused):
    """Rewriting the projections would overwrite files edited by hand and not taken in yet."""

    hint = (
        "run `orbital sync` to merge the edit into the memory, or `orbital regenerate --force` "
        "to keep the edited file beside as a conflict copy and rewrite it"
    )

    def __init__(self, files: tuple[str, ...]) -> None:
        self.files = files
        super().__init__(
            f"{', '.join(files)} changed on disk since Orbital wrote it; nothing was rewritten"
        )


class SecretRefused(Refused):
    """New text with a line that looks like a secret (an API key, a password, a private
    key): nothing was changed. Keep secrets out of memory; a false positive passes with the
    allow marker on its line (:mod:`orbital.domain.secrets`)."""

    def __init__(self, where: str, line: int, kind: str) -> None:
        self.where = where
        self.line = line
        self.kind = kind
        super().__init__(
            f"line {line} of {where} looks like a secret ({kind}); nothing was changed. Keep "
            "secrets out of memory; if it is not one, end the line with "
            "`# pragma: allowlist secret`"
        )


class MassRemoval(Refused):
    """A whole-file write that would empty a memory file or remove a large share of its
    entries at once: most often a writer that sent back only the part it changed."""

    hint = "`orbital write --remove ID` (once per entry) names the entries removed on purpose"

    def __init__(self, name: str, removed: tuple[str, ...], live: int) -> None:
        self.name = name
        self.removed = removed
        self.live = live
        shown = ", ".join(removed[:8]) + (", …" if len(removed) > 8 else "")
        super().__init__(
            f"{name}: this write would remove {len(removed)} of its {live} entries ({shown}); "
            "nothing was changed. Send the whole file back with your change: entries missing "
            "from a write are removed. To remove entries on purpose, name each one in the "
            "write's `remove` list, or remove a few at a time"
        )


class TooMuchAtOnce(Refused):
    """A write that would add more to a memory file at once than any memory needs: a runaway
    writer (a loop, a dumped log), refused whole so it never costs every later read."""

    def __init__(self, name: str, adds: str, bound: str) -> None:
        self.name = name
        self.adds = adds
        self.bound = bound
        super().__init__(
            f"{name}: this write adds {adds} at once, over the bound of {bound} per write; "
            "nothing was changed. A memory file keeps what is worth rereading: write the few "
            "entries that matter, or add them over several writes"
        )


# -- conflict -----------------------------------------------------------------------------------


class VersionConflict(Conflict):
    """Optimistic concurrency failure: the stream moved on since it was read."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        self.stream = stream
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"stream {stream!r} is at version {actual}, not the expected {expected}: "
            "someone else wrote it meanwhile; reload and retry"
        )


class UnknownBase(Conflict):
    """A write based on a version no read of this project can have given (before its first
    event, or past the head of the log): the writer read elsewhere, or invented it."""

    hint = "read the file again (`orbital show FILE --json` prints its version) and write from that"

    def __init__(self, base: int, where: str, first: int, head: int) -> None:
        self.base = base
        super().__init__(
            f"version {base} is {where}: this project's versions are 0 (a file never written) "
            f"and {first} to {head}"
        )


class StaleWrite(Conflict):
    """A whole-file write based on a version of the file that changed since in the same
    entries: the writer's change and the store's overlap."""

    hint = "read the file again (`orbital show FILE`), redo the change on it and write again"

    def __init__(self, name: str, base: int, clashes: tuple[str, ...]) -> None:
        self.name = name
        self.base = base
        self.clashes = clashes
        super().__init__(
            f"{name} changed since the version this write is based on (position {base}) in "
            f"what the write changes too: {', '.join(clashes)}; nothing was written. Read the "
            "file again and redo the change on it"
        )


# -- unavailable (the store's own errors are in ._store) -------------------------------------------


class ProviderError(Unavailable):
    """The editor's model call failed. ``transient`` errors (timeouts, 5xx, a dropped
    connection) are worth one retry; the others (401, 4xx, a malformed reply) are not."""

    def __init__(self, detail: str, *, status: int | None = None, transient: bool = False) -> None:
        self.detail = detail
        self.status = status
        self.transient = transient
        super().__init__(f"the editor's model call failed: {detail}")


class EditorNotConfigured(Unavailable):
    """No model is configured for the memory editor."""

    def __init__(self, missing: tuple[str, ...]) -> None:
        self.missing = missing
        super().__init__(
            f"the memory editor has no model: set {', '.join(missing)} "
            "(an OpenAI-compatible chat-completions endpoint; ORBITAL_EDITOR_KEY if it needs one)"
        )


class EditorAgentMissing(EditorNotConfigured):
    """The provider chosen for the memory editor cannot be used here: an unknown
    ``ORBITAL_EDITOR_PROVIDER``, or the agent's CLI it runs is not found."""

    def __init__(self, detail: str) -> None:
        self.missing = ()
        self.detail = detail
        self.hint = (
            "set ORBITAL_EDITOR_PROVIDER to openai (with ORBITAL_EDITOR_URL and _MODEL), "
            "claude or codex (the agent's own CLI; ORBITAL_EDITOR_COMMAND names its path)"
        )
        Unavailable.__init__(self, f"the memory editor's provider cannot be used: {detail}")


class SessionUnreadable(Unavailable):
    """A session transcript exists but could not be read."""

    def __init__(self, session: str, reason: str) -> None:
        self.session = session
        self.reason = reason
        super().__init__(f"session {session!r} could not be read: {reason}")


# -- internal -----------------------------------------------------------------------------------


class MalformedEvent(Internal):
    """Event data that does not decode into the event catalogue."""

    def __init__(self, detail: str, *, position: int | None = None) -> None:
        self.detail = detail
        self.position = position
        where = f" at position {position}" if position is not None else ""
        super().__init__(f"malformed event{where}: {detail}")


class TokenizerUnavailable(Internal):
    """The offline tokenizer data is missing or does not match the pinned hash."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


#: Every family, for the interfaces' tables (each maps these and nothing else).
FAMILIES: tuple[type[OrbitalError], ...] = (
    InvalidInput,
    NotFound,
    Refused,
    Conflict,
    Unavailable,
    Internal,
)


def family(error: type[OrbitalError]) -> type[OrbitalError]:
    """The family an error class belongs to; a class outside every family counts as
    :class:`Internal` (raising one is a slip, not a reason to blame the request)."""
    return next((c for c in error.__mro__ if c in FAMILIES), Internal)


def error_line(exc: OrbitalError) -> str:
    """The one line an error prints where an agent or a person reads it (the CLI, the MCP
    server): its message, then what to run about it (the ``hint``)."""
    return f"error: {exc}: {exc.hint}" if exc.hint else f"error: {exc}"


def warning_lines(warnings: list[str]) -> str:
    """The ``warning: …`` lines a write's warnings print as, where an agent reads them (a
    hook's answer, an MCP tool result), one per warning, as the CLI prints them."""
    return "\n".join(f"warning: {w}" for w in warnings)


__all__ = [
    "FAMILIES",
    "Conflict",
    "DiskFull",
    "EditorAgentMissing",
    "EditorNotConfigured",
    "Internal",
    "InvalidEncoding",
    "InvalidInput",
    "MalformedEvent",
    "MassRemoval",
    "NoStore",
    "NoWorkspace",
    "NotFound",
    "NothingToRescue",
    "OrbitalError",
    "PlantedJournal",
    "ProjectElsewhere",
    "ProviderError",
    "Refused",
    "RescueFailed",
    "SecretRefused",
    "SessionUnreadable",
    "StaleWrite",
    "StoreCorrupt",
    "StoreGone",
    "StoreLocked",
    "StoreReadOnly",
    "StoreUnreachable",
    "TextTooLong",
    "TokenizerUnavailable",
    "TooLarge",
    "TooMuchAtOnce",
    "Unavailable",
    "UnknownAsk",
    "UnknownBase",
    "UnknownEntry",
    "UnknownEvent",
    "UnknownFile",
    "UnknownProject",
    "UnknownWorkspace",
    "UnmergedEdits",
    "UnsafePath",
    "UnsafeSqlite",
    "VersionConflict",
    "error_line",
    "family",
    "warning_lines",
]
