"""Token counts kept between processes (views and files are outputs, kept in the output
store: :mod:`._outputs`; the asks are read from the store's keys: :mod:`._stored_asks`).

Every CLI command and every hook is a new process, and without these each one would load
tiktoken's table (≈ 0.3 s) and count the view's texts again. Counts are kept by the digest of
the text counted (:class:`KeptCounter`), a cache signed with the store's key
(:class:`~orbital.service._outputs.Seal`): anything unreadable or unconfirmed is counted again,
and a failed write only costs the next process the work.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.service._outputs import Seal

if TYPE_CHECKING:
    from orbital.tokens import CachedCounter

#: Token counts kept (the counter's own bound).
KEEP_COUNTS = 50_000


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
