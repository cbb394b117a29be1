"""Migration events (stream ``migration:<source>``): progress markers that make a legacy
import idempotent and resumable."""

from __future__ import annotations

from orbital.events._base import Event


class LegacyItemMigrated(Event, frozen=True, tag="migration.item_migrated"):
    """One legacy record (a retraction line, a ``[user]`` bullet) became ask events."""

    source: str
    legacy_key: str
    ask_id: str


class MigrationCompleted(Event, frozen=True, tag="migration.completed"):
    source: str
    items: int


MIGRATION_EVENTS: tuple[type[Event], ...] = (LegacyItemMigrated, MigrationCompleted)
