"""Offline cl100k counting: pinned hash, lazy load, per-text cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.errors import TokenizerUnavailable
from orbital.tokens import CachedCounter, load_encoding, offline_data_path


def test_counts_with_the_offline_cl100k_data() -> None:
    count = CachedCounter()
    assert count("") == 0
    assert count("hello world") == 2
    assert count("<|endoftext|>") > 1  # special tokens are counted as ordinary text


def test_an_unchanged_text_is_counted_once_and_the_cache_is_bounded() -> None:
    count = CachedCounter(max_entries=2)
    for text in ("a", "b", "a", "a"):
        count(text)
    assert count.misses == 2
    count("c")  # evicts "b", the least recently used
    count("b")  # evicts "a"
    count("a")
    assert count.misses == 5


def test_a_tampered_data_file_is_refused(tmp_path: Path) -> None:
    data = offline_data_path().read_bytes()
    tampered = tmp_path / "cl100k_base.tiktoken"
    tampered.write_bytes(data.replace(b"IQ== 0", b"IQ== 1", 1))
    assert tampered.read_bytes() != data
    with pytest.raises(TokenizerUnavailable, match="not the official cl100k_base data"):
        load_encoding(tampered)


def test_kept_counts_serve_the_next_process_without_the_encoding(tmp_path: Path) -> None:
    kept = tmp_path / "cache" / "tokens"
    first = CachedCounter()
    first.keep(kept)
    assert first("Chose: PostgreSQL for the shared store.") == 9
    with kept.open("ab") as file:
        file.write(b"torn")  # a record cut short by a crash is ignored

    class NoEncoding:
        def encode_ordinary(self, text: str) -> list[int]:
            raise AssertionError(f"counted again: {text!r}")

    second = CachedCounter(NoEncoding())  # type: ignore[arg-type]
    second.keep(kept)
    assert second("Chose: PostgreSQL for the shared store.") == 9
    assert second.misses == 0


def test_a_kept_file_past_its_bound_starts_over(tmp_path: Path) -> None:
    kept = tmp_path / "tokens"
    small = CachedCounter(max_entries=2)
    small.keep(kept)
    for text in ("one", "two", "three", "four", "five"):
        small(text)
    assert kept.stat().st_size == 5 * 20
    again = CachedCounter(max_entries=2)
    again.keep(kept)
    assert not kept.exists()
    again("six")
    assert kept.stat().st_size == 20
