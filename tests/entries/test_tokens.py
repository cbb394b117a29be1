"""Offline cl100k counting: pinned hash, lazy load, per-text cache."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from orbital import tokens
from orbital.errors import TokenizerUnavailable
from orbital.tokens import CachedCounter, _bpe, _table, kept_table, load_encoding, offline_data_path


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


EDGES = [
    "",
    "hello world",
    "I'll say it's done, they've gone; WE'RE here, you'D go, 'S 'll",
    "trailing spaces   ",
    "new\nlines\r\n\r\nand  \n  indents\n\n\n",
    "tabs\tand\x0bvertical\x0cfeeds\x1cunit\x1fseparators",
    "numbers 1234567 12.5e3 3,141,592",
    "no\u00a0break\u2003em\u3000ideographic\u2028line\u0085next",
    "café naïve Ünïcödé — arrows → ← and quotes “ok” \u2018fine\u2019",
    "中文的文字和日本語のテキスト、한국어 텍스트",
    "Ⅻ roman ² super ½ half ① circled ٣ arabic-indic",
    "emoji 😀👍🏽 and \U0001d518\U0001d52b\U0001d526 fraktur math letters",
    "x" * 300 + " " + "ab" * 200,
    "<|endoftext|> special tokens as text",
]


def corpus() -> list[str]:
    """Texts of every kind we hold: the labeled eval data, our own docs and code."""
    root = Path(__file__).resolve().parents[2]
    paths = [*(root.parent / "shared" / "eval").rglob("*"), root / "README.md"]
    paths += sorted((root / "orbital" / "tokens").glob("*.py"))
    return [p.read_text(encoding="utf-8") for p in paths if p.is_file() and p.suffix != ".gz"]


def test_python_counts_are_tiktokens(tmp_path: Path) -> None:
    table = kept_table(offline_data_path(), tmp_path / "cl100k.ranks")
    encode = load_encoding(offline_data_path()).encode_ordinary
    rng = random.Random(7)
    alphabet = "aZ09 '\n\r\t.,-—→é中Ⅻ²\u00a0\u2028😀sdmtlvreSDMTLVRE!?\x0b\x1c"
    randoms = ["".join(rng.choices(alphabet, k=rng.randint(1, 60))) for _ in range(3000)]
    texts = [*EDGES, *corpus(), *randoms]
    assert [_bpe.count(t, table) for t in texts] == [len(encode(t)) for t in texts]


def test_texts_python_cannot_classify_are_left_to_tiktoken(tmp_path: Path) -> None:
    table = kept_table(offline_data_path(), tmp_path / "cl100k.ranks")
    refused = ["the long \u017f's case", "lone \ud800 surrogate", "unassigned \U000e0080"]
    assert [_bpe.count(t, table) for t in refused] == [None, None, None]
    count = CachedCounter(kept_table=tmp_path / "cl100k.ranks")
    encode = load_encoding(offline_data_path()).encode_ordinary
    assert count(refused[0]) == len(encode(refused[0]))


def test_a_python_with_newer_unicode_data_leaves_non_ascii_to_tiktoken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = kept_table(offline_data_path(), tmp_path / "cl100k.ranks")
    monkeypatch.setattr(_bpe, "_UNICODE_HERE", (99, 0, 0))  # newer than the data tested
    assert _bpe.count("caf\u00e9 au lait", table) is None
    assert _bpe.count("plain ASCII is the same everywhere", table) == 6


def test_a_few_texts_are_counted_without_loading_the_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = tmp_path / "cl100k.ranks"
    kept_table(offline_data_path(), kept)
    encode = load_encoding(offline_data_path()).encode_ordinary
    loaded: list[object] = []
    real = tokens.default_encoding

    def loading(*args: Path | None) -> object:
        loaded.append(args)
        return real(*args)

    monkeypatch.setattr("orbital.tokens.default_encoding", loading)
    count = CachedCounter(kept_table=kept)
    small = "Chose: count a new entry in Python. Reason: the encoder loads in 0.2 s."
    assert count(small) == len(encode(small)) and loaded == []
    big = "word " * (tokens.PYTHON_BUDGET // 5 + 1)  # over the process's budget
    assert count(big) == len(encode(big)) and loaded == [(kept,)]
    loaded.clear()
    server = CachedCounter(kept_table=kept, python_budget=None)  # never the encoder
    assert server(big) == len(encode(big)) and server(small) == count(small) and loaded == []


def test_a_damaged_rank_table_is_built_again(tmp_path: Path) -> None:
    kept = tmp_path / "cl100k.ranks"
    kept_table(offline_data_path(), kept)
    whole = kept.read_bytes()
    kept.write_bytes(whole[:-1] + bytes([whole[-1] ^ 0xFF]))
    assert _table.open_table(kept) is None
    table = kept_table(offline_data_path(), kept)
    assert kept.read_bytes() == whole and _bpe.count("hello world", table) == 2
