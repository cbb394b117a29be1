"""Entries' meanings and the stemmed synonym tables kept between processes (a hook is a new
process per event): every memory write compares its new entries with each entry of their file
(:class:`KeptMeanings`), and a new process would work those meanings out again. Each file is
kept under a stamp of Orbital's sources and the matcher's (a changed matcher never reads them)
and signed with the store's key (:class:`~orbital.service._outputs.Seal`): anything unreadable
or not confirmed is worked out again. (The dropped asks' meaning indexes are in the store:
:mod:`._meaning_keys`.)
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orbital.domain.rephrase import Meaning
    from orbital.domain.rephrase_lexicon import Phrases
    from orbital.service._outputs import Seal

#: Entries' meanings kept (a few files' entries, most recently compared last).
KEEP_MEANINGS = 4096


class KeptPhrases:
    """The synonym tables stemmed (:func:`rephrase.phrase_table`), in a file the next process
    hands the matcher (:func:`rephrase.seed_phrases`), under the stamp of Orbital's sources
    (the lexicon among them) and the stemmers: a changed one never reads them."""

    def __init__(self, path: Path, seal: Seal) -> None:
        self.path, self.seal = path, seal
        self._loaded: dict[bool, Phrases] | None = None

    def load(self) -> None:
        """Hand the matcher the tables an earlier process kept (once per process)."""
        if self._loaded is not None:
            return
        import msgspec

        from orbital.domain import rephrase

        self._loaded = {}
        kind = tuple[bytes, list[tuple[bool, list[tuple[tuple[str, ...], frozenset[str]]]]]]
        raw = self.seal.read(self.path)
        try:
            if raw is None:
                return
            stamp, tables = msgspec.msgpack.decode(raw, type=kind)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        if stamp == _meanings_stamp():
            self._loaded = {german: dict(rows) for german, rows in tables}
            rephrase.seed_phrases(self._loaded)

    def save(self) -> None:
        """Keep the tables this process stemmed, if it was handed fewer."""
        from orbital.domain import rephrase

        made = rephrase.phrases_made()
        if self._loaded is None or made.keys() <= self._loaded.keys():
            return
        import msgspec

        tables = [(german, list(table.items())) for german, table in made.items()]
        with contextlib.suppress(OSError):  # a cache: the next process stems them again
            self.seal.write(self.path, msgspec.msgpack.encode((_meanings_stamp(), tables)))


class KeptMeanings:
    """The meanings of the entries this process's restatement checks compared, in a file the
    next process seeds the matcher from (:func:`rephrase.seed`), under the stamp of Orbital's
    sources: a changed matcher never reads them. The synonym tables are kept beside them
    (:attr:`phrases`)."""

    def __init__(self, path: Path, seal: Seal) -> None:
        self.path, self.seal = path, seal
        self.phrases = KeptPhrases(path.with_name("phrases.msgpack"), seal)
        self._loaded: dict[str, Meaning] | None = None

    def load(self) -> None:
        """Seed the matcher with what an earlier process kept (once: a process's first write
        that compares)."""
        self.phrases.load()
        if self._loaded is not None:
            return
        import msgspec

        from orbital.domain import rephrase

        self._loaded = {}
        kind = tuple[bytes, dict[str, rephrase.Meaning]]
        raw = self.seal.read(self.path)
        try:
            if raw is None:
                return
            stamp, known = msgspec.msgpack.decode(raw, type=kind)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        if stamp == _meanings_stamp():
            self._loaded = known
            rephrase.seed(known)

    def save(self) -> None:
        """Keep what this process compared, if any of it is new (and the synonym tables)."""
        from orbital.domain import rephrase

        self.phrases.save()
        if self._loaded is None or rephrase.compared.keys() <= self._loaded.keys():
            return
        import msgspec

        compared = rephrase.compared  # the newest last: what this process compared
        older = {t: m for t, m in self._loaded.items() if t not in compared}
        newest = list({**older, **compared}.items())[-KEEP_MEANINGS:]
        with contextlib.suppress(OSError):  # a cache: the next process works them out again
            self.seal.write(self.path, msgspec.msgpack.encode((_meanings_stamp(), dict(newest))))


def matcher_stamp() -> bytes:
    """What a meaning depends on besides Orbital's sources: Python (its Unicode data: NFKC,
    ``casefold``, ``\\w``) and the snowball stemmers' files."""
    import importlib.util
    import sys
    import unicodedata

    spec = importlib.util.find_spec("snowballstemmer")
    origin = Path(spec.origin) if spec and spec.origin else None
    stemmers = os.stat(origin.parent) if origin else None
    where = f"{origin}:{stemmers.st_mtime_ns}" if stemmers else "-"
    return f"{sys.version};{unicodedata.unidata_version};{where}".encode()


def _meanings_stamp() -> bytes:
    from orbital.service._outputs import code_stamp

    return code_stamp() + matcher_stamp()
