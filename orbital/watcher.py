"""Hand-edit detection while ``orbital serve`` or ``orbital follow`` runs: a file watcher
(watchfiles) on the ``orbital/`` directory of every checkout on this machine that takes
edited memory files in through ``Orbital.local.sync``.

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
from orbital.project import Project
from orbital.service import Orbital
from orbital.service._sessions import ToolCalls

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


def sync_all(
    service: Orbital, report: Callable[[str], None], checkouts: list[Project] | None = None
) -> None:
    """Take in every local checkout's hand edits and bring its files up to date (at start)."""
    for checkout in service.local.all() if checkouts is None else checkouts:
        sync_one(service, checkout, report)


def sync_one(service: Orbital, checkout: Project, report: Callable[[str], None]) -> None:
    """Sync one checkout, reporting its warnings (named by checkout) and a failure. While an
    agent's tool call runs in its project, nothing: a memory file changed meanwhile is the
    agent's, and its PostToolUse hook takes it in (then the log moves and the follower syncs;
    the watcher hears of the next change)."""
    if ToolCalls().running(checkout.project_id, time.time()):
        report(f"{checkout.checkout}: an agent's tool call is running; left to its hook")
        return
    try:
        result = service.local.sync(checkout)
    except (OrbitalError, OSError) as exc:
        report(f"{checkout.checkout}: could not sync: {exc}")
        return
    for warning in result.warnings:
        report(f"{checkout.checkout}: {warning}")


class Watcher:
    """A daemon thread that syncs a project when one of its memory files changes."""

    def __init__(
        self,
        service: Orbital,
        report: Callable[[str], None],
        *,
        settle: float = 0.2,
        debounce_ms: int = 300,
        checkouts: list[Project] | None = None,
    ) -> None:
        self.service = service
        self.report = report
        self.settle = settle
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._roots = {
            str(Path(p.root) / MEMORY_DIR): p
            for p in (service.local.all() if checkouts is None else checkouts)
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
                folder = str(Path(path).parent)
                if folder in self._roots:
                    touched.setdefault(folder, []).append(Path(path))
            for folder, edited in touched.items():
                for each in edited:
                    wait_until_stable(each, self.settle)
                sync_one(self.service, self._roots[folder], self.report)
