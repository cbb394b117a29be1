"""Finding and keeping a view in the output store: the one way every process (a hook, a CLI
command's quick lane, the full service, a server) gets the injection view of a project's heads.

The CLI's quick lane (a plain ``orbital context`` or ``show FILE``, :mod:`orbital.cli._quick`)
answers here before the service is opened: the project and its heads read by plain SQL over a
SQLite store (:mod:`orbital.store._quick`), then the same lookups; None sends it to the full
path (nothing kept, another kind of store, a folder to join first, any error).

A view's key needs its facts, and two of them come from what the view holds: the day is
reckoned in the view's zone (the workspace's or the project's setting) and the mentioned files
are the view's own mentions. So a render keeps three outputs — the zone setting, the mentioned
paths and the view — and :func:`find_view` reads them in that order, checking today's date and
the disk itself in between: a file created since is found, a new day is a new key.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES
from orbital.clock import clock_from_env
from orbital.domain.budgets import TokenCounter
from orbital.project import Project, inside_project
from orbital.service._outputs import Outputs, Seal
from orbital.store._quick import quick_reader
from projections import (
    PROJECTORS,
    VIEW_MENTIONS,
    VIEW_ZONE,
    VIEWS,
    Heads,
    ViewFacts,
    ViewMemo,
    ViewState,
)


def zone_of(setting: str, project: Project, now: dt.datetime) -> tuple[dt.tzinfo, str]:
    """The view's zone and the name it shows for it: the IANA ``setting``, else the
    machine's local zone (named as it is called at ``now``)."""
    if setting:
        import zoneinfo  # here, not at the top: a read in the local zone never needs it

        return zoneinfo.ZoneInfo(setting), setting
    local = now.astimezone()
    assert local.tzinfo is not None
    return local.tzinfo, local.tzname() or "local time"


def _facts(project: Project, today: dt.date, name: str, paths: Iterable[str]) -> ViewFacts:
    """The view's facts: today, its zone's name, each mentioned path checked on disk now."""
    files = tuple((p, inside_project(project.root, p)) for p in paths)
    return ViewFacts(today, name, files)


def find_view(
    outputs: Outputs,
    project: Project,
    heads: Heads,
    now: dt.datetime,
    window: int | None,
    audience: str,
    session: str = "",
) -> str | None:
    """The view at ``heads`` now, if a process kept it under today's facts; else None."""
    pid = project.project_id
    setting = outputs.get(VIEW_ZONE.key(pid, heads, {"project_zone": project.timezone}))
    if setting is None:
        return None
    zone, name = zone_of(setting, project, now)
    today = now.astimezone(zone).date()
    paths = outputs.get(VIEW_MENTIONS.key(pid, heads, {"today": today.isoformat()}))
    if paths is None:
        return None
    facts = _facts(project, today, name, paths.splitlines())
    return outputs.get(VIEWS[audience].key_of(pid, heads, facts, window, session))


def render_view(
    outputs: Outputs | None,
    project: Project,
    heads: Heads | None,
    state: ViewState,
    setting: str,
    now: dt.datetime,
    *,
    count: TokenCounter,
    window: int | None,
    audience: str,
    memo: ViewMemo,
    session: str = "",
) -> str:
    """The view of ``state`` at ``now`` in the zone ``setting``, rendered with the caller's
    ``memo``; kept under its key (with the zone and the mentioned paths :func:`find_view`
    reads first) when ``outputs`` and ``heads`` are given."""
    pid = project.project_id
    zone, name = zone_of(setting, project, now)
    today = now.astimezone(zone).date()
    paths = VIEW_MENTIONS.render(state, today, memo)
    facts = _facts(project, today, name, paths.splitlines())
    view = VIEWS[audience].render(state, facts, count, window, memo, session)
    if outputs is not None and heads is not None:
        outputs.put(VIEW_ZONE.key(pid, heads, {"project_zone": project.timezone}), setting)
        outputs.put(VIEW_MENTIONS.key(pid, heads, {"today": today.isoformat()}), paths)
        outputs.put(VIEWS[audience].key_of(pid, heads, facts, window, session), view)
    return view


#: The files ``show`` may answer from a kept output (ASKS.md is read from the disk by design).
KEPT_FILES = frozenset(
    n for n in (*MEMORY_FILES.values(), *ARCHIVE_FILES.values()) if n != "ASKS.md"
)


def _at_head(db_url: str | None, path: Path, folder: Path) -> tuple[Project, Heads, Outputs] | None:
    """The project ``path`` is in and its heads, read with plain SQL, and the outputs kept in
    ``folder`` that the store's key confirms (None: not a SQLite store, or no registered
    project there)."""
    reader = quick_reader(db_url)
    if reader is None:
        return None
    with reader:
        project = reader.project_at(path.expanduser().resolve())
        if project is None:
            return None
        with reader.reads() as reads:
            heads, key = Heads(reads.category_heads(project.project_id)), reads.cache_key()
    return project, heads, Outputs(folder, Seal(lambda: key))


def kept_view(
    folder: Path, db_url: str | None, path: Path, window: int | None, audience: str
) -> str | None:
    """The injection view of the project ``path`` is in, now, if a process kept it."""
    try:
        found = _at_head(db_url, path, folder)
        if found is None:
            return None
        project, heads, outputs = found
        return find_view(outputs, project, heads, clock_from_env().now(), window, audience)
    except Exception:  # the full path does no worse, and reports it
        return None


def kept_file(folder: Path, db_url: str | None, path: Path, name: str) -> str | None:
    """Projected file ``name`` (a memory file or an archive) of the project ``path`` is in,
    now, if a process kept it."""
    if name not in KEPT_FILES:
        return None
    try:
        found = _at_head(db_url, path, folder)
        if found is None:
            return None
        project, heads, outputs = found
        return outputs.get(PROJECTORS[name].key(project.project_id, heads))
    except Exception:  # the full path does no worse, and reports it
        return None
