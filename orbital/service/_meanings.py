"""Built meaning indexes and entries' meanings kept between processes (a hook is a new
process per event).

Filing a project's dropped asks by meaning (:mod:`orbital.domain.rephrase`) costs far more than
the one lookup an agent's new ask needs; a process that built the index for a set of dropped
asks leaves it here and the next one reads it. The key is a digest of the asks filed (ids and
texts, in order) and of the matcher's own source, so a changed set or a changed matcher never
reads a stale index; anything unreadable, or not signed with the store's key
(:class:`~orbital.service._outputs.Seal`), is rebuilt. Only the newest few are kept. Likewise
the meanings of the entries a new entry was compared with (:class:`KeptMeanings`): every
memory write compares its new entries with each entry of their file.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.domain.lazy_meanings import ReadingName, build_meaning_index, reading_named
from orbital.service._wordnet import Indexing, LoadedWordNet

if TYPE_CHECKING:
    from types import ModuleType

    from orbital.domain.meaning_index import MeaningIndex
    from orbital.domain.rephrase import Meaning
    from orbital.domain.rephrase_lexicon import Phrases
    from orbital.domain.wordnet import WordNet
    from orbital.service._outputs import Seal

#: Built indexes kept (one per set of dropped asks; a new drop makes a new one).
KEEP = 4
#: Entries' meanings kept (a few files' entries, most recently compared last).
KEEP_MEANINGS = 4096


class KeptMeaningIndexes:
    """An index builder (:data:`orbital.domain.asks.IndexBuilder`) over a folder; the wide
    reading reads with the WordNet ``wordnet`` loads."""

    def __init__(
        self, folder: Path, seal: Seal, wordnet: Callable[[], WordNet] | None = None
    ) -> None:
        self.folder, self.seal = folder, seal
        self.indexing = Indexing(wordnet or LoadedWordNet())

    def __call__(
        self, items: tuple[tuple[str, str], ...], reading: ReadingName = "restates"
    ) -> MeaningIndex[str]:
        import msgspec

        from orbital.domain import meaning_index, rephrase, rephrase_lexicon

        digest = hashlib.sha256(matcher_stamp())
        digest.update(reading.encode())
        modules: list[ModuleType] = [meaning_index, rephrase, rephrase_lexicon]
        wordnet = self.indexing.lexicon(reading)
        if reading == "resembles":
            from orbital.domain import resemble
            from orbital.domain import wordnet as lexical

            modules += [resemble, lexical]
            digest.update(wordnet.identity.encode())
        for module in modules:
            digest.update(Path(module.__file__ or "").read_bytes())
        for ask_id, text in items:
            digest.update(f"{len(ask_id)}:{ask_id}{len(text)}:{text}".encode())
        path = self.folder / f"{digest.hexdigest()[:32]}.msgpack"
        with _collector_paused():
            raw = self.seal.read(path)
            try:
                if raw is not None:
                    return meaning_index.decode_index(raw, reading_named(reading, wordnet))
            except (msgspec.DecodeError, ValueError, TypeError):
                pass
            index = build_meaning_index(items, reading, wordnet)
        with contextlib.suppress(OSError):  # a cache: the next process builds it again
            self._keep(path, meaning_index.encode_index(index))
        return index

    def _keep(self, path: Path, data: bytes) -> None:
        self.seal.write(path, data)
        kept = sorted(self.folder.glob("*.msgpack"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-KEEP]:
            old.unlink(missing_ok=True)


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
