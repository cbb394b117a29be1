"""The reads a new process answers without opening the service: the injection view and a
projected file, found in the output store by the same keys the full path keeps them under
(:mod:`._view_outputs`, :mod:`._outputs`), with the project and its heads read by plain SQL
over a SQLite store (:mod:`orbital.store._quick`), without SQLAlchemy, the tokenizer or a fold.

Each answers what the full path (``Orbital.context_view``, ``Orbital.read_file``) would, since
both take the project by :func:`orbital.project.locate`, the heads by the same statement and
the output by the same key; or None: nothing kept, another kind of store, a folder to join
first, any error. The caller then takes the full path, which reports what went wrong.
"""

from __future__ import annotations

from pathlib import Path

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES
from orbital.clock import clock_from_env
from orbital.project import Project
from orbital.service._outputs import Outputs
from orbital.store._quick import quick_reader
from projections import PROJECTORS, Heads

#: The files ``show`` may answer from a kept output (ASKS.md is read from the disk by design).
KEPT_FILES = frozenset(
    n for n in (*MEMORY_FILES.values(), *ARCHIVE_FILES.values()) if n != "ASKS.md"
)


def _at_head(db_url: str | None, path: Path) -> tuple[Project, Heads] | None:
    """The project ``path`` is in and its heads, read with plain SQL (None: not a SQLite
    store, or no registered project there)."""
    reader = quick_reader(db_url)
    if reader is None:
        return None
    with reader:
        project = reader.project_at(path.expanduser().resolve())
        if project is None:
            return None
        return project, Heads(reader.category_heads(project.project_id))


def kept_view(
    outputs: Outputs, db_url: str | None, path: Path, window: int | None, audience: str
) -> str | None:
    """The injection view of the project ``path`` is in, now, if a process kept it."""
    from orbital.service._view_outputs import find_view

    try:
        found = _at_head(db_url, path)
        if found is None:
            return None
        project, heads = found
        return find_view(outputs, project, heads, clock_from_env().now(), window, audience)
    except Exception:  # the full path does no worse, and reports it
        return None


def kept_file(outputs: Outputs, db_url: str | None, path: Path, name: str) -> str | None:
    """Projected file ``name`` (a memory file or an archive) of the project ``path`` is in,
    now, if a process kept it."""
    if name not in KEPT_FILES:
        return None
    try:
        found = _at_head(db_url, path)
        if found is None:
            return None
        project, heads = found
        return outputs.get(PROJECTORS[name].key(project.project_id, heads))
    except Exception:  # the full path does no worse, and reports it
        return None
