"""Built meaning indexes kept between processes (a hook is a new process per event).

Filing a project's dropped asks by meaning (:mod:`orbital.domain.rephrase`) costs far more than
the one lookup an agent's new ask needs; a process that built the index for a set of dropped
asks leaves it here and the next one reads it. The key is a digest of the asks filed (ids and
texts, in order) and of the matcher's own source, so a changed set or a changed matcher never
reads a stale index; anything unreadable is rebuilt. Only the newest few are kept.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orbital.domain.rephrase import MeaningIndex

#: Built indexes kept (one per set of dropped asks; a new drop makes a new one).
KEEP = 4


class KeptMeaningIndexes:
    """An index builder (:data:`orbital.domain.asks.IndexBuilder`) over a folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, items: tuple[tuple[str, str], ...]) -> MeaningIndex[str]:
        import msgspec

        from orbital.domain import rephrase, rephrase_lexicon, rephrase_phrases

        digest = hashlib.sha256()
        for module in (rephrase, rephrase_lexicon, rephrase_phrases):
            digest.update(Path(module.__file__ or "").read_bytes())
        for ask_id, text in items:
            digest.update(f"{len(ask_id)}:{ask_id}{len(text)}:{text}".encode())
        path = self.folder / f"{digest.hexdigest()[:32]}.msgpack"
        with _collector_paused():
            try:
                return rephrase.decode_index(path.read_bytes())
            except (OSError, msgspec.DecodeError, ValueError, TypeError):
                pass
            index = rephrase.MeaningIndex[str]().added(items)
        with contextlib.suppress(OSError):  # a cache: the next process builds it again
            self._keep(path, rephrase.encode_index(index))
        return index

    def _keep(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temp.write_bytes(data)
        os.replace(temp, path)
        kept = sorted(self.folder.glob("*.msgpack"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-KEEP]:
            old.unlink(missing_ok=True)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while an index's hundreds of thousands of small
    objects are made (none of them in a cycle): its passes over them cost most of a read
    (10,000 asks: 0.9 s with it, 0.2 s without)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
