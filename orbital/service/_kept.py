"""The current asks and token counts kept between processes (views and files are outputs,
kept in the output store: :mod:`._outputs`).

Every CLI command and every hook is a new process, and without these each one would load
tiktoken's table (≈ 0.3 s) and count the view's texts again, and decode every ask's state.
Token counts are kept by the digest of the text counted (:class:`KeptCounter`), and the asks by
the event they are as of (:class:`KeptAsks`). Both are caches, signed with the store's key
(:class:`~orbital.service._outputs.Seal`): anything unreadable or unconfirmed is computed again,
and a failed write only costs the next process the work.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.service._outputs import Seal, code_stamp

if TYPE_CHECKING:
    from orbital.domain.asks import Ask
    from orbital.tokens import CachedCounter

#: Token counts kept (the counter's own bound).
KEEP_COUNTS = 50_000


class KeptAsks:
    """A project's current asks kept with the position and event id of the ask-stream head
    they are of: a new process reads them back when its log has that event at that position
    (the same log, up to there) and updates them by the streams changed since, as the
    in-process cache does, instead of decoding every ask's stream state."""

    def __init__(self, folder: Path, seal: Seal) -> None:
        self.folder, self.seal = folder, seal

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

        raw = self.seal.read(self._path(project))
        if raw is None:
            return None
        try:
            head, kept_id, asks = msgspec.msgpack.decode(raw, type=tuple[int, str, dict[str, Ask]])
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        return (head, asks) if kept_id and event_id(head) == kept_id else None

    def put(self, project: str, head: int, event_id: str, asks: Mapping[str, Ask]) -> None:
        import msgspec

        with contextlib.suppress(OSError):
            self.seal.write(self._path(project), msgspec.msgpack.encode((head, event_id, asks)))


class KeptCounter:
    """A token counter whose counts outlive the process: read from ``path`` at the first
    count, written back by :meth:`save` when this process counted a new text (tiktoken's
    encoder is loaded only then, by :class:`~orbital.tokens.CachedCounter`)."""

    def __init__(self, path: Path, seal: Seal) -> None:
        self.path, self.seal = path, seal
        self._counter: CachedCounter | None = None

    def _loaded(self) -> CachedCounter:
        if self._counter is None:
            import msgspec

            from orbital.tokens import CachedCounter

            self._counter = CachedCounter(max_entries=KEEP_COUNTS)
            raw = self.seal.read(self.path)
            try:
                known = {} if raw is None else msgspec.msgpack.decode(raw, type=dict[bytes, int])
            except (msgspec.DecodeError, msgspec.ValidationError):
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
            self.seal.write(self.path, msgspec.msgpack.encode(self._counter.known()))
