"""What a reference to one memory item names, and how a mention is shown in the view.

The grammar (``@decision.<id>``…, a bare id) is :mod:`orbital.grammar.mentions`. A mention
says which file the id belongs to, so ``@lesson.x`` never finds a decision that happens to
share the id; a bare id is looked up among the entries first, then the asks. ``@file.<path>``
names a file of the project: the shell checks it (containment, existence) and hands the
answer in as ``files``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from orbital.catalogue import MEMORY_DIR, MEMORY_FILES
from orbital.domain.asks import Ask
from orbital.errors import UnknownAsk, UnknownEntry
from orbital.grammar.mentions import KIND_OF, PATH, Mention, find_mentions, parse_mention
from orbital.grammar.model import FileState
from orbital.grammar.text import clipped
from projections.asks_view import CLIP
from projections.workbench import EntryRow, entry_title

__all__ = [
    "Mention",
    "Pointer",
    "mentioned_paths",
    "parse_mention",
    "pointers",
    "pointers_block",
    "resolve_mention",
    "unresolved_warning",
]

#: At most this many pointers in the view's block (each a line, counted in the budget).
POINTERS_CAP = 20
POINTERS_HEADER = (
    "Mentioned (pointers, not copies: read one with `orbital show --ref <mention>` or the "
    "MCP tool memory_get):"
)


def resolve_mention(
    mention: Mention, entries: Sequence[EntryRow], asks: Mapping[str, Ask]
) -> EntryRow | Ask:
    """The entry or ask ``mention`` names; :class:`UnknownEntry` / :class:`UnknownAsk` when
    none does (ask ids are matched without case, as everywhere else)."""
    if mention.file != "asks":
        for row in entries:
            if row.id == mention.id and mention.file in (None, row.file):
                return row
        if mention.file is not None:
            raise UnknownEntry(mention.id)
    found = asks.get(mention.id.lower())
    if found is None:
        if mention.file is None:
            raise UnknownEntry(mention.id)
        raise UnknownAsk(mention.id)
    return found


class Pointer(msgspec.Struct, frozen=True):
    """A mention as the view shows it: what it is, its title, where to read it (``where``
    empty: it names nothing this project has)."""

    mention: Mention
    title: str
    where: str

    @property
    def line(self) -> str:
        if not self.where:
            return f"- {self.mention.text}: not found in this project"
        return f"- {self.mention.text}: {self.title} — {self.where}"


def _pointer(
    mention: Mention,
    files: Mapping[str, FileState],
    asks: Mapping[str, Ask],
    paths: Mapping[str, bool],
) -> Pointer:
    if mention.file == PATH:
        ok = paths.get(mention.path, False)
        return Pointer(mention, f"file {mention.id}", mention.path if ok else "")
    if mention.file == "asks":
        ask = asks.get(mention.id.lower())
        if ask is None:
            return Pointer(mention, "", "")
        return Pointer(
            mention, f'ask "{clipped(ask.text, CLIP)}" ({ask.state})', f"{MEMORY_DIR}/ASKS.md"
        )
    state = files.get(mention.file or "")
    entry = state.entries.get(mention.id) if state is not None else None
    if entry is None or mention.file is None:
        return Pointer(mention, "", "")
    live = entry.status == "live"
    where = f"{MEMORY_DIR}/{MEMORY_FILES[entry.file]}" if live else "its history"
    title = clipped(entry_title(entry.text) or entry.entry_id, CLIP)
    return Pointer(mention, f'{KIND_OF[entry.file]} "{title}" ({entry.status})', where)


def pointers(
    texts: Iterable[str],
    files: Mapping[str, FileState],
    asks: Mapping[str, Ask],
    paths: Mapping[str, bool],
) -> list[Pointer]:
    """Every mention written in ``texts`` (once, in order), resolved against the memory
    files, the asks and ``paths`` (a file mention's path -> it is a file inside the project,
    as the shell found)."""
    seen: dict[Mention, None] = {}
    for text in texts:
        for mention in find_mentions(text):
            seen.setdefault(mention, None)
    return [_pointer(m, files, asks, paths) for m in seen]


def mentioned_paths(texts: Iterable[str]) -> list[str]:
    """The paths of the ``@file.<path>`` mentions in ``texts`` (for the shell to check)."""
    return [m.path for text in texts for m in find_mentions(text) if m.file == PATH]


def pointers_block(found: Sequence[Pointer]) -> str:
    """The view's block of pointers; ``""`` when nothing is mentioned."""
    if not found:
        return ""
    lines = [POINTERS_HEADER, *(p.line for p in found[:POINTERS_CAP])]
    if len(found) > POINTERS_CAP:
        lines.append(f"…and {len(found) - POINTERS_CAP} more mentions")
    return "\n".join(lines)


def unresolved_warning(where: str, found: Sequence[Pointer]) -> list[str]:
    """The warning a write gets for the mentions in it that name nothing: one line naming
    them (kept as written; a file mention outside the project never resolves)."""
    missing = [p.mention.text for p in found if not p.where]
    if not missing:
        return []
    return [
        f"{where}: {', '.join(missing)} name{'s' if len(missing) == 1 else ''} nothing in this "
        "project (an id that does not exist, or a file outside the project): kept as written, "
        "shown as not found"
    ]
