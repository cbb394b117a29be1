"""WordNet 3.0 found where an operating-system package installed it, and handed to the pure
core (:class:`orbital.domain.wordnet.WordNet`) loaded.

Debian's and Ubuntu's ``wordnet-base`` put it in ``/usr/share/wordnet`` (Homebrew's
``wordnet`` under its prefix); ``ORBITAL_WORDNET`` names another folder. 28 MB, read only,
nothing fetched at run time. Its sorted ``index.<pos>`` files (and its ``data.<pos>`` files,
where a sense's neighbours are) are mapped, not read: the core
bisects them and the pages it touches are read in. Its exception lists (100 KB of text, about
30 M instructions to parse) are kept parsed in the state folder, the output store's way: under
the source files' identity (path, size and modification time of each) and Orbital's own
sources, signed with the store's key (:class:`~orbital.service._outputs.Seal`); anything
missing, unreadable or not confirmed is parsed from the source again, so the kept copy never
decides anything.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.domain.lazy_meanings import ReadingName, build_meaning_index
from orbital.domain.wordnet import NONE, POS, Index, WordNet, exceptions_of

if TYPE_CHECKING:
    from orbital.domain.meaning_index import MeaningIndex
    from orbital.service._outputs import Seal

#: Where a package manager installs the database.
PLACES = (
    "/usr/share/wordnet",
    "/usr/local/share/wordnet",
    "/opt/homebrew/share/wordnet/dict",
    "/usr/local/share/wordnet/dict",
    "/usr/share/wordnet/dict",
)


@functools.cache
def folder() -> Path | None:
    """Where the database is, if installed (``ORBITAL_WORDNET`` first)."""
    named = os.environ.get("ORBITAL_WORDNET")
    for place in (named,) if named else PLACES:
        if (Path(place) / "index.noun").is_file():
            return Path(place)
    return None


def _identity(where: Path) -> str:
    """The files the core reads, as they are: each one's name, size and modification time."""
    parts = [str(where)]
    for pos in POS:
        for name in (f"index.{pos}", f"{pos}.exc", f"data.{pos}"):
            with contextlib.suppress(OSError):
                info = os.stat(where / name)
                parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
    return ";".join(parts)


def _mapped(path: Path) -> Index:
    import mmap

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:  # nothing to map (and mmap refuses to)
            return b""
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def _parsed(where: Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """The exception lists, read and parsed from the source."""
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos in POS:
        path = where / f"{pos}.exc"
        if path.is_file():
            found[pos] = exceptions_of(path.read_text(encoding="latin-1"))
    return found


def _exceptions(
    where: Path, identity: str, kept: Path | None, seal: Seal | None
) -> dict[str, dict[str, tuple[str, ...]]]:
    """The exception lists: the kept parse of these very files, else parsed (and kept)."""
    if kept is None or seal is None:
        return _parsed(where)
    import msgspec

    from orbital.service._outputs import code_stamp

    digest = hashlib.sha256(code_stamp())
    digest.update(identity.encode())
    path = kept / f"{digest.hexdigest()[:32]}.msgpack"
    raw = seal.read(path)
    if raw is not None:
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            kept_lists: dict[str, dict[str, tuple[str, ...]]] = msgspec.msgpack.decode(
                raw, type=dict[str, dict[str, tuple[str, ...]]]
            )
            return kept_lists
    parsed = _parsed(where)
    with contextlib.suppress(OSError):  # a cache: the next process parses them again
        for old in kept.glob("*.msgpack"):
            old.unlink(missing_ok=True)
        seal.write(path, msgspec.msgpack.encode(parsed))
    return parsed


class LoadedWordNet:
    """The installed WordNet (or :data:`~orbital.domain.wordnet.NONE`), loaded at the first
    call and then the same object: a process that compares no text never opens it. With a
    ``kept`` folder and the store's ``seal``, the parsed exception lists are kept there."""

    def __init__(self, kept: Path | None = None, seal: Seal | None = None) -> None:
        self.kept, self.seal = kept, seal
        self._loaded: WordNet | None = None

    def __call__(self) -> WordNet:
        if self._loaded is None:
            where = folder()
            if where is None:
                self._loaded = NONE
            else:
                identity = _identity(where)
                self._loaded = WordNet(
                    {pos: _mapped(where / f"index.{pos}") for pos in POS},
                    _exceptions(where, identity, self.kept, self.seal),
                    identity,
                    {
                        pos: _mapped(where / f"data.{pos}")
                        for pos in POS
                        if (where / f"data.{pos}").is_file()
                    },
                )
        return self._loaded


class Indexing:
    """An index builder (:data:`orbital.domain.lazy_meanings.IndexBuilder`) that reads the
    wide way with the WordNet ``wordnet`` loads (only then: the guard's reading needs none)."""

    def __init__(self, wordnet: Callable[[], WordNet]) -> None:
        self.wordnet = wordnet

    def __call__(
        self, items: tuple[tuple[str, str], ...], reading: ReadingName = "restates"
    ) -> MeaningIndex[str]:
        return build_meaning_index(items, reading, self.lexicon(reading))

    def lexicon(self, reading: ReadingName) -> WordNet:
        """The WordNet ``reading`` reads with."""
        return self.wordnet() if reading == "resembles" else NONE
