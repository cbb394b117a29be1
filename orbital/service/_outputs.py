"""The output store: every process gets an output by its projector's key (``projections/``).

One store for the hook, the CLI, the server and the MCP server: a bounded dict in the process
over, for a short-lived process, one folder of files in the state folder, so the next process
finds what this one rendered. A key names everything its output depends on (the projector's
contract), and each file's name is a digest of the key and of Orbital's own sources, so a
changed Orbital never reads an output an older one rendered. It is a cache and never the
authority for a decision: anything unreadable is rendered again, and a failed write costs the
next process only the render.

Anything running as the user can write the state folder, so every file kept there (outputs,
kept asks, meaning indexes, token counts) is signed (:class:`Seal`): an HMAC keyed by a
secret only the store holds, over the file's name and its bytes. A file the store's key does
not confirm is dropped as if it were missing: it decides nothing and shows nothing.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from projections import Key

#: Outputs kept in a process (each a view or a file at some key).
KEEP = 256
#: Files kept in the folder (twice this many are allowed before the oldest go).
KEEP_FILES = 64


@functools.cache
def code_stamp() -> bytes:
    """A digest of Orbital's source files (name, size, mtime): what renders an output."""
    digest = hashlib.sha256()
    for top in (Path(__file__).resolve().parents[1], _projections_folder()):
        for folder, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    info = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.digest()


def _projections_folder() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("projections")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).resolve().parent


def write_whole(path: Path, data: bytes) -> None:
    """Write a kept file whole or not at all (a temp file beside it, then a rename): a reader
    in another process sees the old bytes or the new, never part of them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


class Seal:
    """Signs a kept file and confirms it on reading, with the store's key (``key``: asked
    once, when first needed; None, or a failure to read it, keeps and trusts nothing)."""

    def __init__(self, key: Callable[[], bytes | None]) -> None:
        self._fetch: Callable[[], bytes | None] | None = key
        self._key: bytes | None = None

    def _known(self) -> bytes | None:
        if self._fetch is not None:
            fetch, self._fetch = self._fetch, None
            try:
                self._key = fetch()
            except Exception:  # no key, no cache: the caller computes it again
                self._key = None
        return self._key

    def _mac(self, key: bytes, path: Path, data: bytes) -> bytes:
        return hmac.new(key, path.name.encode() + b"\0" + data, hashlib.sha256).digest()

    def read(self, path: Path) -> bytes | None:
        """The bytes kept at ``path`` if they are what this store's Orbital signed there."""
        key = self._known()
        if key is None:
            return None
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        mac, data = raw[:32], raw[32:]
        return data if hmac.compare_digest(mac, self._mac(key, path, data)) else None

    def write(self, path: Path, data: bytes) -> None:
        """Keep ``data`` at ``path``, signed (nothing when there is no key)."""
        key = self._known()
        if key is not None:
            write_whole(path, self._mac(key, path, data) + data)


class Outputs:
    """Outputs by key, in the process and (with a ``folder`` and the store's ``seal``)
    between processes."""

    def __init__(self, folder: Path | None = None, seal: Seal | None = None) -> None:
        self.folder = folder if seal is not None else None
        self.seal = seal
        self._kept: dict[Key, str] = {}

    def _path(self, key: Key) -> Path:
        assert self.folder is not None
        digest = hashlib.sha256(code_stamp())
        digest.update(repr(key).encode())
        return self.folder / f"{digest.hexdigest()[:40]}.txt"

    def get(self, key: Key) -> str | None:
        """The output kept under ``key``, if any process kept it."""
        found = self._kept.get(key)
        if found is not None or self.folder is None or self.seal is None:
            return found
        raw = self.seal.read(self._path(key))
        if raw is None:
            return None
        try:
            found = raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None
        self._keep(key, found)
        return found

    def put(self, key: Key, text: str) -> None:
        """Keep ``text`` as the output of ``key`` (in the process, and in the folder)."""
        self._keep(key, text)
        if self.folder is None or self.seal is None:
            return
        with contextlib.suppress(OSError):  # a cache: the next process renders it again
            self.seal.write(self._path(key), text.encode("utf-8", "surrogatepass"))
            names = [n for n in os.listdir(self.folder) if n.endswith(".txt")]
            if len(names) > 2 * KEEP_FILES:
                paths = sorted((self.folder / n for n in names), key=lambda p: p.stat().st_mtime_ns)
                for old in paths[:-KEEP_FILES]:
                    old.unlink(missing_ok=True)

    def _keep(self, key: Key, text: str) -> None:
        self._kept.pop(key, None)
        self._kept[key] = text
        if len(self._kept) > KEEP:
            del self._kept[next(iter(self._kept))]
