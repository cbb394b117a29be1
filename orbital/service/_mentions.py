"""Mentions in the shell (issue 19): what a ``@file.<path>`` names on disk, the pointers a
view shows, the warning a write gets for a mention that names nothing, and the content a
reference resolves to (``orbital show --ref``, MCP ``memory_get``). The grammar is
:mod:`orbital.grammar.mentions`, the pointers' rules :mod:`projections.mentions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from orbital.domain.asks import Ask
from orbital.errors import InvalidInput, NotFound
from orbital.files import check_size, inside_project
from orbital.grammar.mentions import PATH
from orbital.grammar.model import FileState
from orbital.project import Project
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
    from orbital.service._service import Orbital


class MentionedFile(msgspec.Struct, frozen=True):
    """The content of a file of the project a ``@file.<path>`` mention names."""

    path: str
    content: str


def paths_of(project: Project, texts: Iterable[str]) -> dict[str, bool]:
    """Each ``@file.<path>`` of ``texts`` -> whether it is a file inside the project."""
    return {p: inside_project(project.root, p) for p in mentioned_paths(texts)}


class Mentions:
    def __init__(self, service: Orbital) -> None:
        self.service = service

    def pointers(
        self,
        project: Project,
        texts: list[str],
        files: Mapping[str, FileState],
        asks: Mapping[str, Ask],
    ) -> list[Pointer]:
        return pointers(texts, files, asks, paths_of(project, texts))

    def warnings(self, project: Project, where: str, texts: list[str]) -> list[str]:
        """The warning for the mentions in ``texts`` that name nothing in ``project``."""
        return unresolved_warning(where, self.unresolved(project, texts))

    def unresolved(self, project: Project, texts: list[str]) -> list[Pointer]:
        if not any("@" in t for t in texts):
            return []
        memory = self.service._memory.load(project)
        asks = {a.id: a for a in self.service.asks(project.project_id, "all")}
        return [p for p in self.pointers(project, texts, memory.files, asks) if not p.where]

    def resolve(self, project: str, ref: str) -> EntryRow | Ask | MentionedFile:
        """What ``ref`` (an id or a mention) names: an entry, an ask, or a file's content."""
        mention = parse_mention(ref)
        found = self.service.project_by_id(project)
        if mention.file == PATH:
            if not inside_project(found.root, mention.id):
                raise NotFound(f"{mention.text} names no file inside the project")
            raw = (Path(found.root) / mention.id).read_bytes()
            check_size(raw)
            try:
                return MentionedFile(mention.id, raw.decode("utf-8"))
            except UnicodeDecodeError:
                raise InvalidInput(f"{mention.text} is not a UTF-8 text file") from None
        entries = [] if mention.file == "asks" else self.service.memory_entries(project)
        asks = {a.id: a for a in self.service.asks(project, "all")}
        return resolve_mention(mention, entries, asks)


def referenced_text(found: EntryRow | Ask | MentionedFile) -> str:
    """What ``orbital show --ref`` prints: an entry's text, an ask's line, a file's content."""
    if isinstance(found, MentionedFile):
        return found.content
    if isinstance(found, Ask):
        note = f"\n{found.note}" if found.note else ""
        return f"[{found.id}] {found.text} ({found.state}){note}\n"
    return found.text if found.text.endswith("\n") else found.text + "\n"
