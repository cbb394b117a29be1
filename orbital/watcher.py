"""Hand-edit detection while ``orbital serve`` runs: a file watcher (watchfiles) on every
project's ``orbital/`` directory that takes edited memory files in through ``Orbital.sync``.

An editor that truncates a file and then writes it must never read as "delete everything":
a changed file is taken in only once its size and mtime have stayed the same for a settle
interval and it is not empty (the intake itself also treats an empty file as no change).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import watchfiles

from orbital.catalogue import MEMORY_DIR, MEMORY_FILES
from orbital.errors import OrbitalError
from orbital.service import Orbital

_NAMES = {name.casefold() for name in MEMORY_FILES.values()}


def is_memory_file(_change: watchfiles.Change, path: str) -> bool:
    return Path(path).name.casefold() in _NAMES


def wait_until_stable(path: Path, settle: float, attempts: int = 20) -> bool:
    """True once ``path`` exists, is not empty and kept its size and mtime for ``settle`` s."""
    for _ in range(attempts):
        try:
            first = path.stat()
            time.sleep(settle)
            second = path.stat()
        except FileNotFoundError:
            return False
        same = (first.st_size, first.st_mtime_ns) == (second.st_size, second.st_mtime_ns)
        if same and second.st_size > 0:
            return True
    return False


def sync_all(service: Orbital, report: Callable[[str], None]) -> None:
    """Take in every project's hand edits (at server start)."""
    for project in service.projects():
        try:
            result = service.sync(project.project_id)
        except (OrbitalError, OSError) as exc:
            report(f"{project.project_id}: could not sync: {exc}")
            continue
        for warning in result.warnings:
            report(f"{project.project_id}: {warning}")


class Watcher:
    """A daemon thread that syncs a project when one of its memory files changes."""

    def __init__(
        self,
        service: Orbital,
        report: Callable[[str], None],
        *,
        settle: float = 0.2,
        debounce_ms: int = 300,
    ) -> None:
        self.service = service
        self.report = report
        self.settle = settle
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._roots = {
            str(Path(p.root) / MEMORY_DIR): p.project_id
            for p in service.projects()
            if (Path(p.root) / MEMORY_DIR).is_dir()
        }

    def start(self) -> None:
        if not self._roots:
            return
        self._thread = threading.Thread(target=self._run, name="orbital-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        for changes in watchfiles.watch(
            *self._roots,
            watch_filter=is_memory_file,
            debounce=self.debounce_ms,
            stop_event=self._stop,
            raise_interrupt=False,
        ):
            touched: dict[str, list[Path]] = {}
            for _change, path in changes:
                project = self._roots.get(str(Path(path).parent))
                if project is not None:
                    touched.setdefault(project, []).append(Path(path))
            for project, paths in touched.items():
                self._take_in(project, paths)

    def _take_in(self, project: str, paths: list[Path]) -> None:
        for path in paths:
            wait_until_stable(path, self.settle)
        try:
            result = self.service.sync(project)
        except (OrbitalError, OSError) as exc:
            self.report(f"{project}: could not take in the edit: {exc}")
            return
        for warning in result.warnings:
            self.report(f"{project}: {warning}")
