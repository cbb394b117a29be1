"""File-level events (stream ``file:<NAME>``): content Orbital keeps verbatim and hand edits."""

from __future__ import annotations

from orbital.events._base import Event


class FilePreambleSet(Event, frozen=True, tag="file.preamble_set"):
    """The text before the first entry (title, prose), format contract excluded."""

    file: str
    text: str


class FileStoredRaw(Event, frozen=True, tag="file.stored_raw"):
    """A write that parsed into no entries, kept as-is (the reference's "wrote as-is")."""

    file: str
    text: str


class HandEditDetected(Event, frozen=True, tag="file.hand_edit_detected"):
    """A projected file on disk differs from what Orbital last wrote."""

    file: str
    expected_sha256: str
    found_sha256: str


class HandEditConflict(Event, frozen=True, tag="file.hand_edit_conflict"):
    """An overlapping hand edit: the person's text was saved beside as ``conflict_copy``."""

    file: str
    conflict_copy: str
    found_sha256: str


FILE_EVENTS: tuple[type[Event], ...] = (
    FilePreambleSet,
    FileStoredRaw,
    HandEditDetected,
    HandEditConflict,
)
