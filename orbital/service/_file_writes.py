"""The whole-file write of a projected file (a memory file or ASKS.md): the size rule, NUL
bytes taken out, the file's own decider, the warnings about mentions, and what the writer is
told (the file as it now stands, its version). ``Orbital.write_file`` is its entry point."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

from orbital.catalogue import MEMORY_FILES
from orbital.domain.quotes import UserWords
from orbital.errors import SecretRefused
from orbital.events import Actor
from orbital.files import check_size, memory_file
from orbital.grammar.text import without_nul_bytes
from orbital.project import Project
from orbital.service._asks import AsksService
from orbital.service._context import WriteOutcome
from orbital.service._memory import MemoryService
from orbital.service._mentions import Mentions
from orbital.service._unit import Unit, Units


class FileWrites:
    def __init__(
        self, units: Units, asks: AsksService, memory: MemoryService, mentions: Mentions
    ) -> None:
        self.units, self.asks, self.memory, self.mentions = units, asks, memory, mentions

    def write(
        self,
        project: str,
        name: str,
        content: bytes,
        *,
        actor: Actor,
        session: str | None,
        hold: bool,
        transcript: Path | None,
        base: int | None,
        remove: Collection[str],
    ) -> WriteOutcome:
        key = memory_file(name).key
        if key != "asks":  # ASKS.md only grows: the limit is on what a write adds
            check_size(content)
        found = self.units.ctx.store.project(project)
        held = memory_file(name).name if hold else None
        words = self.asks.words(transcript) if key == "asks" else None
        if key == "asks" and actor is Actor.AGENT:
            self.units.asks.ready(found.project_id)
        with self.units.begin(
            found, actor, session=session, proposals={key: content}, held=held
        ) as u:
            self._decide(u, key, content, words, base=base, remove=frozenset(remove))
        if not u.refused and b"@" in content:  # no mention without one: nothing to decode
            proposed = content.decode("utf-8", errors="replace")
            u.warnings += self.mentions.warnings(found, MEMORY_FILES[key], [proposed])
        if key != "asks":
            self.memory.keep_written(u, key)
        if u.held is not None and u.held.data is not None:
            text = u.held.data.decode("utf-8")
            return WriteOutcome(text, u.warnings, u.events, refused=u.refused)
        return self._written(u, key)

    def take_in(
        self,
        project: Project,
        found: Mapping[str, bytes],
        *,
        actor: Actor,
        session: str | None,
        transcript: Path | None,
    ) -> list[str]:
        """Projected files found changed on disk (name -> bytes) become ``actor``'s writes in
        ``session``, each based on the version this checkout last wrote there, and every
        other projected file is synced: one unit, so what one file's write takes in of
        another's bytes is never taken as the person's hand edit. Returns the warnings."""
        proposals = {memory_file(name).key: raw for name, raw in found.items()}
        for key, raw in proposals.items():
            if key != "asks":
                check_size(raw)
        words = self.asks.words(transcript) if "asks" in proposals else None
        if "asks" in proposals and actor is Actor.AGENT:
            self.units.asks.ready(project.project_id)
        with self.units.begin(project, actor, session=session, proposals=proposals) as u:
            for key, raw in proposals.items():
                try:
                    self._decide(u, key, raw, words, base=_written_version(u, key))
                except SecretRefused as refused:
                    # Already on disk: nothing of it is taken, and the file is written
                    # again from events, so the secret does not stay there either.
                    u.warnings.append(f"{refused} (the file was written again from events)")
                    u.rewrite.add(key)
            u.sync_memory()
            u.sync_asks()
        for key, raw in proposals.items():
            if not (key == "asks" and u.refused) and b"@" in raw:
                proposed = raw.decode("utf-8", errors="replace")
                u.warnings += self.mentions.warnings(project, MEMORY_FILES[key], [proposed])
            if key != "asks":
                self.memory.keep_written(u, key)
        return u.warnings

    def _decide(
        self,
        u: Unit,
        key: str,
        content: bytes,
        words: UserWords | None,
        *,
        base: int | None = None,
        remove: frozenset[str] = frozenset(),
    ) -> None:
        content, removed = without_nul_bytes(content, MEMORY_FILES[key])
        u.warnings += removed
        if key == "asks":
            self.asks.decide_write(u, content, words)
        else:
            self.memory.decide_write(u, key, content, base=base, remove=remove)

    @staticmethod
    def _written(u: Unit, key: str) -> WriteOutcome:
        """What a write reports: the file as it now stands, warnings, events, and (memory
        files) its version."""
        if key == "asks":
            return WriteOutcome(
                u.asks_text, u.warnings, u.events, refused=u.refused, held=u.held_lines
            )
        assert u.memory_after is not None  # set when the unit ended
        return WriteOutcome(
            u.text_after(key),
            u.warnings,
            u.events,
            u.memory_after.changed_at[key],
            refused=u.refused,
            held=u.held_lines,
        )


def _written_version(u: Unit, key: str) -> int | None:
    """The version of memory file ``key`` this checkout last wrote (None: never, or ASKS.md):
    what a change made to the file on disk was made from."""
    if key == "asks":
        return None
    checkpoint = u.w.checkpoint(u.project, MEMORY_FILES[key])
    return None if checkpoint is None else checkpoint.position
