"""Mentions in the shell (issue 19): what a ``@file.<path>`` names on disk, the pointers a
view shows, the warning a write gets for a mention that names nothing, and the content a
reference resolves to (``orbital show --ref``, MCP ``memory_get``). The grammar is
:mod:`orbital.grammar.mentions`, the pointers' rules :mod:`projections.mentions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import msgspec

from orbital.domain.asks import Ask
from orbital.errors import InvalidInput, NotFound
from orbital.files import check_size, max_file_bytes
from orbital.grammar.mentions import PATH, cited_bytes, cited_span
from orbital.grammar.model import FileState
from orbital.project import Project, inside_project, read_inside
from projections.mentions import (
    Pointer,
    mentioned_paths,
    parse_mention,
    pointers,
    resolve_mention,
    unresolved_warning,
)
from projections.workbench import EntryRow

if TYPE_CHECKING:
    from orbital.service._asks import AsksService
    from orbital.service._unit import Units


class MentionedFile(msgspec.Struct, frozen=True):
    """The content of a file of the project a ``@file.<path>`` mention names."""

    path: str
    content: str


def paths_of(project: Project, texts: Iterable[str]) -> dict[str, bool]:
    """Each ``@file.<path>`` of ``texts`` -> whether it is a file inside the project."""
    return {p: inside_project(project.root, p) for p in mentioned_paths(texts)}


def checked_pointers(
    project: Project, texts: list[str], files: Mapping[str, FileState], asks: Mapping[str, Ask]
) -> list[Pointer]:
    """The pointers of the mentions in ``texts`` (a file path checked on disk)."""
    return pointers(texts, files, asks, paths_of(project, texts))


class Mentions:
    """What a mention names, read from the memory files (``units``), the asks and, for a
    reference, the entries with their history (``entries``: a project id's entry rows)."""

    def __init__(
        self,
        units: Units,
        asks: AsksService,
        entries: Callable[[str], list[EntryRow]],
    ) -> None:
        self.units, self.asks, self.entries = units, asks, entries
        self.store = units.ctx.store

    def warnings(self, project: Project, where: str, texts: list[str]) -> list[str]:
        """The warning for the mentions in ``texts`` that name nothing in ``project``."""
        return unresolved_warning(where, self.unresolved(project, texts))

    def unresolved(self, project: Project, texts: list[str]) -> list[Pointer]:
        if not any("@" in t for t in texts):
            return []
        with self.store.reader() as r:
            memory = self.units.memory.load(r, project.project_id)
        asks = {a.id: a for a in self.asks.listing(self.store.project(project.project_id), "all")}
        return [p for p in checked_pointers(project, texts, memory.files, asks) if not p.where]

    def resolve(self, project: str, ref: str) -> EntryRow | Ask | MentionedFile:
        """What ``ref`` (an id or a mention) names: an entry, an ask, or a file's content."""
        mention = parse_mention(ref)
        found = self.store.project(project)
        if mention.file == PATH:
            path, span = cited_span(mention.id)
            raw = read_inside(found.root, path, max_file_bytes())
            if raw is None:
                raise NotFound(f"{mention.text} names no file inside the project")
            check_size(raw)
            try:
                return MentionedFile(mention.id, cited_bytes(raw, span).decode("utf-8"))
            except UnicodeDecodeError:
                raise InvalidInput(f"{mention.text} is not a UTF-8 text file") from None
        entries = [] if mention.file == "asks" else self.entries(project)
        asks = {a.id: a for a in self.asks.listing(self.store.project(project), "all")}
        return resolve_mention(mention, entries, asks)


def referenced_text(found: EntryRow | Ask | MentionedFile) -> str:
    """What ``orbital show --ref`` prints: an entry's text, an ask's line, a file's content."""
    if isinstance(found, MentionedFile):
        return found.content
    if isinstance(found, Ask):
        note = f"\n{found.note}" if found.note else ""
        return f"[{found.id}] {found.text} ({found.state}){note}\n"
    return found.text if found.text.endswith("\n") else found.text + "\n"
