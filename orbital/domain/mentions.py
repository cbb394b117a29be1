"""What a reference to one memory item names: a bare id, or a mention such as
``@decision.<id>``, ``@lesson.<id>`` or ``@ask.<id>``.

A mention says which file the id belongs to, so ``@lesson.x`` never finds a decision that
happens to share the id; a bare id is looked up among the entries first, then the asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orbital.domain.asks import Ask
from orbital.domain.workbench import EntryRow
from orbital.errors import InvalidInput, UnknownAsk, UnknownEntry

#: Mention kind -> the memory-file key its ids live in.
MENTION_KINDS: Mapping[str, str] = {"decision": "decisions", "lesson": "lessons", "ask": "asks"}


@dataclass(frozen=True, slots=True)
class Mention:
    """An id, and the file key it must be found in (None: any file, then the asks)."""

    id: str
    file: str | None = None


def parse_mention(ref: str) -> Mention:
    """``@decision.<id>`` / ``@lesson.<id>`` / ``@ask.<id>``, or a bare id."""
    ref = ref.strip()
    if not ref.startswith("@"):
        if not ref or any(c.isspace() for c in ref):
            raise InvalidInput(
                f"a reference is an id or a mention like @decision.<id>, not {ref!r}"
            )
        return Mention(ref)
    kind, dot, ident = ref[1:].partition(".")
    file = MENTION_KINDS.get(kind.lower())
    if file is None or not dot or not ident.strip():
        kinds = ", ".join(f"@{k}.<id>" for k in MENTION_KINDS)
        raise InvalidInput(f"{ref!r} is not a mention; use {kinds}, or a bare id")
    return Mention(ident.strip(), file)


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
