"""Single-flight scheduling of editor passes, per project.

The decision is pure (:func:`~orbital.domain.editor.schedule.decide_schedule`); this adds the
state it needs: which projects have a pass in flight and when each last started, guarded by a
thread lock, plus an optional lock file held with ``flock`` so a CLI run and the server cannot
edit the same project at once (the kernel drops the lock if the process dies).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType

from orbital.clock import Clock
from orbital.domain.editor.schedule import PassHistory, Trigger, Verdict, decide_schedule


class Claim:
    """A pass in flight; release it (or leave the ``with`` block) when the pass ends."""

    def __init__(self, scheduler: EditorScheduler, project: str, lock_fd: int | None) -> None:
        self.project = project
        self._scheduler = scheduler
        self._lock_fd = lock_fd
        self._released = False

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
        self._scheduler._finish(self.project)

    def __enter__(self) -> Claim:
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self.release()


def _try_flock(path: Path) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


class EditorScheduler:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._guard = threading.Lock()
        self._in_flight: set[str] = set()
        self._started: dict[str, dt.datetime] = {}

    def claim(
        self,
        project: str,
        trigger: Trigger,
        *,
        over_soft: bool,
        changed: bool,
        last_run_at: dt.datetime | None,
        lock_file: Path | None = None,
        last_started_at: dt.datetime | None = None,
    ) -> Claim | Verdict:
        """A :class:`Claim` when a pass may start now, else the reason it may not.
        ``last_started_at``: when the store says a pass last started (a pass of another
        process counts for the debounce too)."""
        now = self._clock.now()
        with self._guard:
            history = self._history(project, last_run_at, last_started_at)
            verdict = decide_schedule(history, now, trigger, over_soft=over_soft, changed=changed)
            if verdict != "run":
                return verdict
            lock_fd = _try_flock(lock_file) if lock_file is not None else None
            if lock_file is not None and lock_fd is None:
                return "in_flight"
            self._in_flight.add(project)
            self._started[project] = now
        return Claim(self, project, lock_fd)

    def peek(
        self,
        project: str,
        *,
        last_run_at: dt.datetime | None,
        last_started_at: dt.datetime | None,
        lock_file: Path,
    ) -> Verdict:
        """What :meth:`claim` would answer a requested pass now, claiming nothing: the
        status a checkpoint returns at once, before the process that runs it claims it."""
        with self._guard:
            history = self._history(project, last_run_at, last_started_at)
            now = self._clock.now()
            verdict = decide_schedule(history, now, "requested", over_soft=True, changed=True)
            if verdict != "run":
                return verdict
            lock_fd = _try_flock(lock_file)
            if lock_fd is None:
                return "in_flight"
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
            os.close(lock_fd)
        return "run"

    def started(self, project: str) -> None:
        """A pass of ``project`` was started in another process (a checkpoint's): this
        process's debounce counts from now, before that process records its start."""
        with self._guard:
            self._started[project] = self._clock.now()

    def _history(
        self, project: str, last_run_at: dt.datetime | None, stored: dt.datetime | None
    ) -> PassHistory:
        started = [t for t in (self._started.get(project), stored) if t is not None]
        return PassHistory(
            last_run_at=last_run_at,
            last_started_at=max(started, default=None),
            in_flight=project in self._in_flight,
        )

    def _finish(self, project: str) -> None:
        with self._guard:
            self._in_flight.discard(project)
