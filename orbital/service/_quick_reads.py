"""Reads a new process answers from what an earlier one kept: the injection view at the
project's head and a projected file at its newest memory event (:mod:`._kept`), found with
plain SQL over a SQLite store (:mod:`orbital.store._quick`), without SQLAlchemy, the tokenizer
or a fold.

Each answers exactly what the full path (``Orbital.context_view``, ``Orbital.read_file``) would,
since the full path keeps its text under the same key, or None: no kept text, another kind of
store, any error. The caller then takes the full path, which reports what went wrong.
``tests/service/test_quick_reads.py`` holds the two to the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES, MEMORY_PREFIXES
from orbital.clock import clock_from_env
from orbital.project import Project
from orbital.service._heads import Heads
from orbital.service._kept import KeptTexts, file_key, view_key, zone_key, zone_named
from orbital.store._quick import quick_reader

#: The files ``show`` may answer from a kept text (ASKS.md is read from the disk by design).
KEPT_FILES = frozenset(
    n for n in (*MEMORY_FILES.values(), *ARCHIVE_FILES.values()) if n != "ASKS.md"
)


def _at_head(db_url: str | None, path: Path) -> tuple[Project, Heads] | None:
    """The project ``path`` is in and its heads, read with plain SQL (None: not a SQLite
    store, or no project there)."""
    reader = quick_reader(db_url)
    if reader is None:
        return None
    with reader:
        project = reader.project_at(path.expanduser().resolve())
        if project is None:
            return None
        return project, Heads(reader.category_heads(project.project_id))


def kept_view(
    cache: Path, db_url: str | None, path: Path, window: int | None, audience: str
) -> str | None:
    """The injection view of the project ``path`` is in, at its head, if a process kept it."""
    try:
        found = _at_head(db_url, path)
        if found is None:
            return None
        project, heads = found
        head = heads.event()
        kept = KeptTexts(cache / "texts")
        zone = kept.get(zone_key(project.project_id, head))
        if zone is None:
            return None
        today = clock_from_env().now().astimezone(zone_named(zone, project)).date()
        return kept.get(view_key(project.project_id, head, window, audience, today))
    except Exception:  # the full path does no worse, and reports it
        return None


def kept_file(cache: Path, db_url: str | None, path: Path, name: str) -> str | None:
    """Projected file ``name`` (a memory file or an archive) of the project ``path`` is in,
    as of its newest memory event, if a process kept it."""
    if name not in KEPT_FILES:
        return None
    try:
        found = _at_head(db_url, path)
        if found is None:
            return None
        project, heads = found
        key = file_key(project.project_id, heads.newest(*MEMORY_PREFIXES), name)
        return KeptTexts(cache / "texts").get(key)
    except Exception:  # the full path does no worse, and reports it
        return None
