"""The person's purge: a text taken out of the project's history and everything made from it.

One write transaction (a unit of work, as the person) keeps any hand edit not taken in yet
beside as a conflict copy (as ``regenerate --force`` does), replaces the text in every event
and stream state, deletes the snapshots, appends the audit event (the text's SHA-256, never the
text) and writes every projection again from the purged events. After the commit: every file
of the project's checkouts on this machine that still holds the text (conflict copies, the
agent's view file) has it replaced by the same marker; the state folder's cache is deleted and
its other files scrubbed; the store is compacted (``VACUUM`` / ``VACUUM FULL``) so the bytes
leave the database's files. What it cannot reach is said in README ("Purge").
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from orbital.agents.claude_code import VIEW_FILE
from orbital.catalogue import ENTRY_PREFIX, MEMORY_DIR, PROJECT_STREAM, entry_stream, stream_id
from orbital.domain.purge import MARKER, MIN_LENGTH, decide_purge
from orbital.domain.secrets import texts_of
from orbital.errors import InvalidInput, NotFound
from orbital.events import Actor
from orbital.grammar.durable import slug
from orbital.project import Project
from orbital.service._conflicts import keep_unmerged_aside
from orbital.store import Writer
from orbital.store._purge import PURGED_TABLES

if TYPE_CHECKING:
    from orbital.service._memory import MemoryService
    from orbital.service._unit import Units


class PurgeReport(msgspec.Struct, frozen=True):
    """What a purge did: the events changed, the files scrubbed, whether the store's files
    were compacted whole, the hand edits kept aside first, and the entry ids made from the
    text (ids are never rewritten: they keep part of it, lower-cased)."""

    positions: tuple[int, ...]
    files: list[str]
    compacted: bool
    conflicts: list[str]
    ids: list[str]


def _ids_from(w: Writer, pid: str, texts: list[str]) -> list[str]:
    """The project's entry ids whose slug holds the start of a text's own slug (an entry
    titled with the text took part of it into its id)."""
    starts = [s[:MIN_LENGTH] for t in texts if len(s := slug(t.lower())) >= MIN_LENGTH]
    ids = (stream_id(name) for name in w.stream_names(pid, ENTRY_PREFIX))
    return sorted(i for i in ids if any(start in i for start in starts))


def _named_texts(w: Writer, pid: str, text: str, entry: str, event: str) -> tuple[str, list[str]]:
    """What the person named (``text``, ``entry:<id>``, ``event:<id>``) and the texts it
    means, longest first (a text inside another is replaced after it)."""
    if sum(bool(x) for x in (text, entry, event)) != 1:
        raise InvalidInput("name one of: a text (--text), an entry (--entry) or an event (--event)")
    if text:
        return "text", [text]
    if entry:
        recorded = w.read_stream(pid, entry_stream(entry))
        named = f"entry:{entry}"
    else:
        position = w.position_of(pid, event.removeprefix("@"))
        at = [] if position is None else [position]
        recorded = [
            r for p in at for r in w.read_project(pid, from_position=p - 1, until_position=p)
        ]
        named = f"event:{event}"
    texts = {t for r in recorded for t in texts_of(r.event) if t.strip()}
    if not texts:
        raise NotFound(f"no text of {named} to purge")
    return named, sorted(texts, key=len, reverse=True)


def scrub(path: Path, texts: list[str]) -> bool:
    """Replace the texts by the marker in one file, whole or not at all; whether it held any."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    found = raw
    for text in texts:
        found = found.replace(text.encode(), MARKER.encode())
    if found == raw:
        return False
    temp = path.with_name(f".{path.name}.{os.getpid()}.purge")
    temp.write_bytes(found)
    os.replace(temp, path)
    return True


def _scrub_tree(top: Path, texts: list[str]) -> list[str]:
    paths = (
        [p for p in top.rglob("*") if p.is_file() and not p.is_symlink()] if top.is_dir() else []
    )
    return [str(p) for p in paths if scrub(p, texts)]


class Purges:
    """The purge use case (:meth:`purge`)."""

    def __init__(self, units: Units, memory: MemoryService) -> None:
        self.units, self.memory = units, memory
        self.store = units.ctx.store

    def purge(
        self,
        project: str,
        *,
        reason: str,
        actor: Actor,
        state: Path | None = None,
        text: str = "",
        entry: str = "",
        event: str = "",
    ) -> PurgeReport:
        """Take a text (or every text of an entry, or of an event) out of the project's
        history, its projections, its checkouts on this machine and the ``state`` folder
        (default: this machine's), as ``actor`` (the person alone), for ``reason`` (kept in
        the audit event)."""
        from orbital.service._sessions import state_dir

        state = state or state_dir()
        found = self.store.project(project)
        pid = found.project_id
        with self.units.begin(found, actor) as u:
            named, texts = _named_texts(u.w, pid, text, entry, event)
            ids = _ids_from(u.w, pid, texts)
            keep_unmerged_aside(u)
            purged = u.w.purge(pid, texts, MARKER)
            audit = decide_purge(named, texts, purged.positions, reason, actor)
            self._forget(pid)
            u.append([audit], stream=PROJECT_STREAM)
            u.rewrite_all()
        self._forget(pid)
        files = [p for c in self._checkouts(found) for p in self._scrub_checkout(c, texts)]
        shutil.rmtree(state / "cache", ignore_errors=True)
        files += _scrub_tree(state, texts)
        compacted = self.store.compact(PURGED_TABLES)
        return PurgeReport(purged.positions, files, compacted, u.conflicts, ids)

    def _checkouts(self, found: Project) -> list[Project]:
        with self.store.reader() as r:
            mine = [c for c in r.checkouts() if c.project_id == found.project_id]
        return mine or [found]

    @staticmethod
    def _scrub_checkout(checkout: Project, texts: list[str]) -> list[str]:
        root = Path(checkout.root)
        view = root / VIEW_FILE
        return _scrub_tree(root / MEMORY_DIR, texts) + ([str(view)] if scrub(view, texts) else [])

    def _forget(self, pid: str) -> None:
        """Drop what this process holds of the project's texts (states, snapshots, outputs,
        meanings): the next read is of the purged store."""
        units = self.units
        units.memory.forget(pid)
        units.asks.forget(pid)
        units.ctx.forget()
        units.meanings = None
        self.memory.forget()
