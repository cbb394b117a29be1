"""File-level events (stream ``file:<KEY>``, KEY one of ``decisions``, ``lessons``, ``state``,
``index``, and ``asks`` for hand edits of ASKS.md; ``file`` is always that catalogue key): what
Orbital keeps verbatim around the entries, and hand edits.

The live file is ``format contract + "\\n" + body``; the contract is code-owned and never
stored. The body is either the ``FileStoredRaw`` text (a write that parsed into no entries) or
the concatenation of the current layout's slots, each rendered on its own: a text slot as its
text, an entry slot as the entry with its id comment (or its pointer line when archived).
"""

from __future__ import annotations

import msgspec

from orbital.events._base import Event


class Slot(msgspec.Struct, frozen=True, omit_defaults=True):
    """One piece of a file body: an entry (by id) or verbatim text (preamble, prose, blanks)."""

    entry: str = ""
    text: str = ""
    #: An entry's spacing: the whitespace that follows it in the file when it differs from the
    #: end of the entry's own text (a rewrite that changed only the blank lines between
    #: entries records this layout, never a revision). ``None``: the text's own.
    spacing: str | None = None


class FileLayoutSet(Event, frozen=True, tag="file.layout_set"):
    """The body's order: entries by id and the verbatim text between them."""

    file: str
    slots: tuple[Slot, ...] = ()


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
    """An overlapping hand edit: the person's text was saved beside as ``conflict_copy``
    and is kept here too (``text``: as UTF-8, NUL left out; "" in events from before it
    was); ``base`` is the position of the version the edit was decided against (0: not
    recorded, as in events from before it was)."""

    file: str
    conflict_copy: str
    found_sha256: str
    base: int = 0
    text: str = ""


class HandEditResolved(Event, frozen=True, tag="file.hand_edit_resolved"):
    """The person settled a conflict copy: ``kept`` is ``mine`` (their text was written as a
    change of theirs) or ``orbital`` (the store's text stays; theirs is kept here, verbatim)."""

    file: str
    conflict_copy: str
    kept: str
    text: str = ""


FILE_EVENTS: tuple[type[Event], ...] = (
    FileLayoutSet,
    FileStoredRaw,
    HandEditDetected,
    HandEditConflict,
    HandEditResolved,
)
