"""Views, rendered files, the current asks and token counts kept between processes.

Every CLI command and every hook is a new process, and without these each one would load
tiktoken's table (≈ 0.3 s), count the view's texts again and render the view or a file from
the state, though nothing changed since the last process did the same. A read at the project's
head is a pure function of the store at that head (positions are gapless: same head, same
events), the day, its arguments and Orbital's own code, so its text is kept under a digest of
exactly those (:class:`KeptTexts`; the code by each source file's size and mtime, so a changed
Orbital never reads a stale text). Token counts are kept by the digest of the text counted
(:class:`KeptCounter`), and the asks by the event they are as of (:class:`KeptAsks`). All are
caches: anything unreadable is computed again, and a failed
write only costs the next process the work.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import os
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orbital.domain.asks import Ask
    from orbital.project import Project
    from orbital.tokens import CachedCounter

#: Texts kept (each a view or a file at some head; a write makes new ones).
KEEP = 64
#: Token counts kept (the counter's own bound).
KEEP_COUNTS = 50_000


@functools.cache
def code_stamp() -> bytes:
    """A digest of Orbital's source files (name, size, mtime): what renders a kept text."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(package):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.digest()


#: A project's head: its last position and that event's id (``Reader.head_event``).
Head = tuple[int, str]


def view_key(
    project: str, head: tuple[Hashable, ...], window: int | None, audience: str, today: dt.date
) -> tuple[Hashable, ...]:
    """What the injection view at ``head`` is of (the in-process cache's key too); ``today``
    is the day in the view's time zone (:func:`zone_key`)."""
    return ("view", project, *head, window, audience, today.isoformat())


def zone_key(project: str, head: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
    """Under which the view's time zone at ``head`` is kept (its IANA name; "" for the
    machine's local zone): a process finds the day a kept view is for before reading any
    text (the zone is the workspace's, else the project's, as of the head)."""
    return ("zone", project, *head)


def zone_named(name: str, project: Project) -> dt.tzinfo:
    """The zone a :func:`zone_key` text names."""
    import zoneinfo

    return zoneinfo.ZoneInfo(name) if name else project.tz()


def file_key(project: str, head: Head, name: str) -> tuple[Hashable, ...]:
    """What projected file ``name`` is of: ``head`` is the newest memory event
    (:data:`~orbital.catalogue.MEMORY_PREFIXES`), as a memory file is a function of those
    streams alone, so a change elsewhere (an ask) keeps it."""
    return ("file", project, *head, name)


def write_whole(path: Path, data: bytes) -> None:
    """Write a kept file whole or not at all (a temp file beside it, then a rename): a reader
    in another process sees the old bytes or the new, never part of them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


class KeptTexts:
    """Texts in a folder, one file per key (a tuple naming exactly what the text is of)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: tuple[Hashable, ...]) -> Path:
        digest = hashlib.sha256(code_stamp())
        digest.update(repr(key).encode())
        return self.folder / f"{digest.hexdigest()[:40]}.txt"

    def get(self, key: tuple[Hashable, ...]) -> str | None:
        try:
            return self._path(key).read_bytes().decode("utf-8", "surrogatepass")
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, key: tuple[Hashable, ...], text: str) -> None:
        with contextlib.suppress(OSError):  # a cache: the next process renders it again
            write_whole(self._path(key), text.encode("utf-8", "surrogatepass"))
            names = [n for n in os.listdir(self.folder) if n.endswith(".txt")]
            if len(names) > 2 * KEEP:
                paths = sorted((self.folder / n for n in names), key=lambda p: p.stat().st_mtime_ns)
                for old in paths[:-KEEP]:
                    old.unlink(missing_ok=True)


class KeptAsks:
    """A project's current asks kept with the position and event id of the ask-stream head
    they are of: a new process reads them back when its log has that event at that position
    (the same log, up to there) and updates them by the streams changed since, as the
    in-process cache does, instead of decoding every ask's stream state."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, project: str) -> Path:
        digest = hashlib.sha256(code_stamp())
        digest.update(project.encode())
        return self.folder / f"{digest.hexdigest()[:40]}.msgpack"

    def get(
        self, project: str, event_id: Callable[[int], str]
    ) -> tuple[int, dict[str, Ask]] | None:
        """The kept asks and their head, if ``event_id(head)`` is the one they were kept at."""
        import msgspec

        from orbital.domain.asks import Ask

        try:
            head, kept_id, asks = msgspec.msgpack.decode(
                self._path(project).read_bytes(), type=tuple[int, str, dict[str, Ask]]
            )
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        return (head, asks) if kept_id and event_id(head) == kept_id else None

    def put(self, project: str, head: int, event_id: str, asks: Mapping[str, Ask]) -> None:
        import msgspec

        with contextlib.suppress(OSError):
            write_whole(self._path(project), msgspec.msgpack.encode((head, event_id, asks)))


class KeptCounter:
    """A token counter whose counts outlive the process: read from ``path`` at the first
    count, written back by :meth:`save` when this process counted a new text (tiktoken's
    encoder is loaded only then, by :class:`~orbital.tokens.CachedCounter`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._counter: CachedCounter | None = None

    def _loaded(self) -> CachedCounter:
        if self._counter is None:
            import msgspec

            from orbital.tokens import CachedCounter

            self._counter = CachedCounter(max_entries=KEEP_COUNTS)
            try:
                known = msgspec.msgpack.decode(self.path.read_bytes(), type=dict[bytes, int])
            except (OSError, msgspec.DecodeError, msgspec.ValidationError):
                known = {}
            self._counter.seed(known)
        return self._counter

    def __call__(self, text: str) -> int:
        return self._loaded()(text)

    def save(self) -> None:
        if self._counter is None or not self._counter.misses:
            return
        import msgspec

        with contextlib.suppress(OSError):
            write_whole(self.path, msgspec.msgpack.encode(self._counter.known()))
