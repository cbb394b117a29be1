"""Following the shared log: every local checkout's files kept current as any process, on
any machine, appends (``orbital follow``, and a thread of ``orbital serve``).

The follower sleeps until the store says the log moved (PostgreSQL ``LISTEN/NOTIFY``; on
SQLite a ``stat`` of the store's files), then brings each checkout whose files are behind
up to date with an ordinary sync (its hand edits taken in first). Nothing is remembered
between runs: a restarted follower catches up from each checkout's checkpoints. A long
safety interval syncs anyway, in case a notification was lost with a connection.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from orbital.errors import OrbitalError
from orbital.project import Project
from orbital.service import Orbital
from orbital.watcher import sync_one


class Follower:
    """A daemon thread that brings ``checkouts`` (default: this machine's) up to date."""

    def __init__(
        self,
        service: Orbital,
        report: Callable[[str], None],
        *,
        checkouts: list[Project] | None = None,
        safety: float = 60.0,
        gather: float = 0.1,
    ) -> None:
        self.service, self.report, self.safety, self.gather = service, report, safety, gather
        self.checkouts = service.local.all() if checkouts is None else checkouts
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="orbital-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def run(self) -> None:
        """Follow until stopped; a lost connection to the store is opened again."""
        while not self._stop.is_set():
            try:
                self._follow()
            except (OrbitalError, OSError) as exc:
                self.report(f"following stopped: {exc}; again in 5 s")
                self._stop.wait(5)
            except Exception as exc:
                self.report(f"following stopped: {type(exc).__name__}: {exc}; again in 5 s")
                self._stop.wait(5)

    def _follow(self) -> None:
        watch = self.service.local.watch()
        try:
            self.catch_up(force=True)
            self.report("up to date; following the log")
            last = time.monotonic()
            while not self._stop.is_set():
                moved = watch.wait(1.0)
                due = time.monotonic() - last >= self.safety
                if moved and not due:
                    self._stop.wait(self.gather)  # a burst of appends: one sync for it
                    watch.wait(0)
                if moved or due:
                    self.catch_up(force=due)
                    last = time.monotonic() if due else last
        finally:
            watch.close()

    def catch_up(self, *, force: bool = False) -> None:
        """Sync each checkout behind the log (``force``: each one, hand edits too)."""
        for checkout in self.checkouts:
            if force or self.service.local.behind(checkout):
                sync_one(self.service, checkout, self.report)
