"""cl100k's ranks as a file a process maps instead of decoding: an open-addressed hash table.

A process that counts a few new texts (the entry another session added) needs a rank lookup
for a few hundred byte strings, not tiktoken's encoder, whose build (≈ 0.1 s) and import
(≈ 0.08 s) dominate a hook's time. Mapping this file costs a digest of its 2 MB; each lookup
is a CRC and one or two slot probes. The file is built once from the official table and
carries its own SHA-256, so a damaged copy is never used.

Layout (native byte order, named in the magic): magic, SHA-256 of the rest, then ``u32``
token count ``n`` and slot count ``m`` (a power of two), ``n + 1`` offsets into the blob (the
token of rank ``r`` is ``blob[offsets[r]:offsets[r + 1]]``), ``m`` slots (``rank + 1``, 0 for
empty), the blob.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path

_MAGIC = b"ORBRANK" + (b"L" if sys.byteorder == "little" else b"B")
_HEAD = struct.Struct("=II")
_DIGEST = 32


class RankTable:
    """``rank(token_bytes) -> rank | None`` over a mapped table file."""

    def __init__(self, data: mmap.mmap | bytes) -> None:
        start = len(_MAGIC) + _DIGEST
        count, slots = _HEAD.unpack_from(data, start)
        view = memoryview(data)
        at = start + _HEAD.size
        self._offsets = view[at : at + 4 * (count + 1)].cast("I")
        at += 4 * (count + 1)
        self._slots = view[at : at + 4 * slots].cast("I")
        self._blob = data
        self._blob_at = at + 4 * slots
        self._mask = slots - 1
        self.size = count

    def rank(self, token: bytes) -> int | None:
        slots, offsets, blob, base = self._slots, self._offsets, self._blob, self._blob_at
        size = len(token)
        slot = zlib.crc32(token) & self._mask
        while entry := slots[slot]:
            start, end = offsets[entry - 1], offsets[entry]
            if end - start == size and blob[base + start : base + end] == token:
                return int(entry) - 1
            slot = (slot + 1) & self._mask
        return None

    def ranks(self) -> dict[bytes, int]:
        """Every token and its rank (what tiktoken's encoder is built from)."""
        offsets, base = self._offsets, self._blob_at
        blob = bytes(self._blob[base : base + offsets[self.size]])
        return {blob[offsets[r] : offsets[r + 1]]: r for r in range(self.size)}


def encode_table(ranks: Mapping[bytes, int]) -> bytes | None:
    """The file's bytes for ``ranks`` (None unless the ranks are exactly 0 … n-1)."""
    by_rank = sorted(ranks.items(), key=lambda item: item[1])
    if [rank for _, rank in by_rank] != list(range(len(by_rank))):
        return None
    slots = 1 << (2 * len(by_rank)).bit_length()
    mask = slots - 1
    table = [0] * slots
    offsets = [0]
    for token, rank in by_rank:
        offsets.append(offsets[-1] + len(token))
        slot = zlib.crc32(token) & mask
        while table[slot]:
            slot = (slot + 1) & mask
        table[slot] = rank + 1
    body = b"".join(
        [
            _HEAD.pack(len(by_rank), slots),
            struct.pack(f"={len(offsets)}I", *offsets),
            struct.pack(f"={slots}I", *table),
            *(token for token, _ in by_rank),
        ]
    )
    return _MAGIC + hashlib.sha256(body).digest() + body


def open_table(path: Path) -> RankTable | None:
    """The table kept at ``path`` (None: absent, damaged, or written on another byte order)."""
    try:
        with path.open("rb") as file:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    start = len(_MAGIC) + _DIGEST
    if (
        len(data) < start + _HEAD.size
        or data[: len(_MAGIC)] != _MAGIC
        or hashlib.sha256(memoryview(data)[start:]).digest() != data[len(_MAGIC) : start]
    ):
        data.close()
        return None
    return RankTable(data)


def keep_table(path: Path, data: bytes) -> None:
    """Write the table where the next process finds it, whole or not at all."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temp.write_bytes(data)
        os.replace(temp, path)
    except OSError:
        pass  # a cache: the next process builds it again
