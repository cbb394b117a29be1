"""`orbital import-from`: another tool's memory files become entries, as one batch.

The shell half of :mod:`orbital.domain.import_sources`: it finds the sources of a checkout
(and the files named), reads them (never writes them), and writes what the plan adds through
the memory files' own write decision (:meth:`MemoryService.decide_write`: the same rules as
any write), all in one unit of work. Each new entry then gets where it came from (``from``:
``path:line``) and the batch it came in (``import``), as events; ``undo`` removes the live
entries of one batch, again through the write decision, so their history stays.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec

from orbital.domain.import_sources import (
    AUTO_MEMORY,
    CLINE,
    RULES,
    Fact,
    Planned,
    Source,
    facts_of,
    known_texts,
    normalised,
    plan_import,
)
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.events.entries import EntryMetaSet
from orbital.files import decode_utf8
from orbital.grammar.model import FileState
from orbital.project import Project
from orbital.service._context import EventSummary
from orbital.service._memory import MemoryService
from orbital.service._unit import Unit
from projections.files import render_memory_file

#: Sources inside a checkout, by kind: files, then folders of ``*.md`` / ``*.mdc``.
_RULE_FILES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".cursorrules")
_RULE_FOLDERS = ((".claude/rules", "*.md"), (".cursor/rules", "*.mdc"))
_CLINE_FOLDER = "memory-bank"
#: The memory files an import writes entries into (INDEX.md is a map, never a fact's place).
_ENTRY_FILES = ("decisions", "lessons", "state")
#: Orbital's own rule for Cursor: written by ``orbital install cursor``, never imported.
_OWN_FILES = frozenset({".cursor/rules/orbital.mdc"})


class ImportedFact(msgspec.Struct, frozen=True):
    """One fact of an import: where it was found, the file it goes to, its words, and the
    entry it became or why it added nothing."""

    source: str
    file: str
    text: str
    entry: str = ""
    skipped: str = ""


class ImportFromReport(msgspec.Struct, frozen=True):
    """What an import did (or, dry, would do): its batch, its sources, every fact."""

    batch: str
    dry_run: bool
    sources: list[str]
    facts: list[ImportedFact]
    events: list[EventSummary]
    warnings: list[str]


def auto_memory_folder(root: Path) -> Path:
    """Claude Code's auto memory of the checkout at ``root``: ``projects/<the root's path,
    each character but letters and digits made a dash>/memory`` in its config folder."""
    config = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    return config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root)) / "memory"


def find_sources(
    root: Path, named: Sequence[Path] = (), auto_memory: Path | None = None
) -> list[Source]:
    """The sources of the checkout at ``root`` (or only the files ``named``), read."""
    if named:
        return [_read(root, path.resolve(), _kind_of(path.resolve())) for path in named]
    found: list[tuple[Path, str]] = [(root / name, RULES) for name in _RULE_FILES]
    for folder, pattern in _RULE_FOLDERS:
        found += [(p, RULES) for p in sorted((root / folder).rglob(pattern))]
    found += [(p, CLINE) for p in sorted((root / _CLINE_FOLDER).glob("*.md"))]
    memory = auto_memory or auto_memory_folder(root)
    found += [(p, AUTO_MEMORY) for p in sorted(memory.glob("*.md"))]
    return [
        _read(root, path, kind)
        for path, kind in found
        if path.is_file() and _shown(root, path) not in _OWN_FILES
    ]


def _kind_of(path: Path) -> str:
    if path.parent.name == _CLINE_FOLDER:
        return CLINE
    if path.parent.name == "memory" and path.parent.parent.parent.name == "projects":
        return AUTO_MEMORY
    return RULES


def _read(root: Path, path: Path, kind: str) -> Source:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InvalidInput(f"cannot read {path}: {error.strerror}") from None
    return Source(_shown(root, path), kind, decode_utf8(raw))


def _shown(root: Path, path: Path) -> str:
    """``path`` as a report shows it: inside the checkout relative to it, else from ``~``."""
    for base, prefix in ((root, ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


class ImportsFrom:
    """Import another tool's memory into a project's files, and take an import back."""

    def __init__(self, memory: MemoryService) -> None:
        self.memory = memory

    def run(
        self,
        project: Project,
        sources: Sequence[Source],
        *,
        actor: Actor,
        session: str | None,
        dry_run: bool,
    ) -> ImportFromReport:
        facts = [fact for source in sources for fact in facts_of(source)]
        shown = [source.path for source in sources]
        if dry_run:
            with self.memory.units.ctx.store.reader() as r:
                files = self.memory.units.memory.load(r, project.project_id).files
            planned = plan_import(facts, _known(files))
            return ImportFromReport("", True, shown, [_row(p, "") for p in planned], [], [])
        with self.memory.units.begin(project, actor, session=session) as u:
            batch = u.mint()
            planned = plan_import(facts, _known(u.memory.files))
            entries = self._add(u, batch, planned)
        rows = [_row(p, entries.get(p.fact.origin, "")) for p in planned]
        return ImportFromReport(batch, False, shown, rows, u.events, u.warnings)

    def _add(self, u: Unit, batch: str, planned: Sequence[Planned]) -> dict[str, str]:
        """Append each file's new blocks in one write, then name each new entry's origin."""
        made: dict[str, str] = {}
        for key in _ENTRY_FILES:
            adds = [p for p in planned if p.block and p.fact.file == key]
            if not adds:
                continue
            state = u.memory.files[key]
            before = set(state.entries)
            text = (
                render_memory_file(state).rstrip("\n") + "\n\n" + "\n".join(p.block for p in adds)
            )
            self.memory.decide_write(u, key, text.encode())
            after = u.memory.files[key]
            by_words = {normalised(p.block): p.fact for p in adds}
            meta: list[EntryMetaSet] = []
            for entry_id in after.live_ids():
                fact = by_words.get(normalised(after.entries[entry_id].text))
                if entry_id in before or fact is None:
                    continue
                made[fact.origin] = entry_id
                origin = {"from": fact.origin, "import": batch}
                meta.append(
                    EntryMetaSet(entry_id=entry_id, meta={**after.entries[entry_id].meta, **origin})
                )
            u.append(meta)
        return made

    def undo(
        self, project: Project, batch: str, *, actor: Actor, session: str | None
    ) -> list[EventSummary]:
        """Remove the live entries import ``batch`` added (their history stays: `orbital
        restore ID` brings one back)."""
        if not batch:
            raise InvalidInput(
                "name the import to undo: the batch id `orbital import-from` printed"
            )
        with self.memory.units.begin(project, actor, session=session) as u:
            found = False
            for key in _ENTRY_FILES:
                state = u.memory.files[key]
                gone = {i for i in state.live_ids() if state.entries[i].meta.get("import") == batch}
                if gone:
                    found = True
                    self.memory.decide_write(u, key, _without(state, gone).encode(), remove=gone)
            if not found:
                came = any(
                    entry.meta.get("import") == batch
                    for key in _ENTRY_FILES
                    for entry in u.memory.files[key].entries.values()
                )
                raise InvalidInput(
                    f"no live entry came in import {batch!r}: it was undone already, or its "
                    "entries were removed since"
                    if came
                    else f"no import {batch!r} in this project: the batch id is what "
                    "`orbital import-from` printed (`orbital history --json` shows it in "
                    "each imported entry's meta)"
                )
        return u.events


def _known(files: Mapping[str, FileState]) -> dict[str, str]:
    """What the memory holds (every entry but the removed ones), for the plan."""
    pairs = [
        (entry.entry_id, entry.text)
        for state in files.values()
        for entry in state.entries.values()
        if entry.status != "retired"
    ]
    return known_texts(pairs)


def _without(state: FileState, gone: set[str]) -> str:
    """The file's text without the entries ``gone``. When they ended the file (nothing was
    added after the import), the blank line and the spacing the import put before them go
    too, so the file is again what it was."""
    kept = [slot for slot in state.layout if slot.entry not in gone]
    if state.layout and state.layout[-1].entry in gone:
        while kept and not kept[-1].entry and not kept[-1].text.strip():
            kept.pop()
        if kept and kept[-1].entry:
            kept[-1] = msgspec.structs.replace(kept[-1], spacing=None)
    return render_memory_file(msgspec.structs.replace(state, layout=tuple(kept)))


def _row(planned: Planned, entry: str) -> ImportedFact:
    fact: Fact = planned.fact
    return ImportedFact(fact.origin, fact.file, fact.text, entry, planned.skip)
