"""The catalogue: stream names as they are stored, and the derived file tables."""

from __future__ import annotations

from orbital.catalogue import (
    ARCHIVE_OF,
    FILE_BUDGETS,
    FILE_NAMES,
    LAYER1_KEYS,
    MEMORY_FILES,
    ask_stream,
    entry_stream,
    file_stream,
    migration_stream,
    stream_id,
)
from orbital.files import projected_file


def test_stream_names_are_the_stored_ones() -> None:
    assert ask_stream("a1b2c3") == "ask:a1b2c3"
    assert entry_stream("adopt-vite") == "entry:adopt-vite"
    assert file_stream("decisions") == "file:decisions"
    assert migration_stream("legacy.md") == "migration:legacy.md"
    assert stream_id("entry:adopt-vite") == "adopt-vite"


def test_layer1_files_are_injected_in_order_and_budgeted() -> None:
    assert LAYER1_KEYS == ("state", "decisions", "lessons", "index")
    assert set(FILE_BUDGETS) == set(LAYER1_KEYS)
    assert list(MEMORY_FILES) == [*LAYER1_KEYS, "asks"]


def test_every_projected_file_resolves_to_its_catalogue_key() -> None:
    for key, name in FILE_NAMES.items():
        assert projected_file(name.lower()).key == key
    assert {k: f"{k}_archive" for k in ("state", "decisions", "lessons")} == ARCHIVE_OF
