"""Offline cl100k counting: pinned hash, lazy load, per-text cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital import tokens
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


def test_the_encoder_is_loaded_by_the_first_text_not_counted_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = tokens.default_encoding
    loaded: list[object] = []

    def loading() -> object:
        loaded.append(True)
        return real()

    monkeypatch.setattr("orbital.tokens.default_encoding", loading)
    count = CachedCounter()
    known = CachedCounter(load_encoding(offline_data_path()))
    known("hello world")
    count.seed(known.known())
    assert count("hello world") == 2 and loaded == []  # counted by another process
    assert count("hello there world") == 3 and loaded == [True]
    assert count("and again") == 2 and loaded == [True]  # loaded once
