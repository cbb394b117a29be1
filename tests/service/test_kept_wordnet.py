"""WordNet's exception lists kept parsed between processes, under the files' identity and
signed with the store's key."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from orbital.service import _wordnet
from orbital.service._outputs import Seal
from orbital.service._wordnet import LoadedWordNet, folder
from tests.asks.test_resemble import TINY_INDEX

#: What signs the kept files here (a store's key, as ``Orbital.keep_caches`` reads it).
SEAL = Seal(lambda: bytes(range(32)))


def test_wordnet_exception_lists_are_kept_parsed_under_the_files_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parsed lists are read back by the next process; a kept file the store's key does
    not confirm, or one of other source files, is never read: the source is parsed again."""
    db, kept = tmp_path / "wordnet", tmp_path / "kept"
    db.mkdir()
    (db / "index.noun").write_bytes(TINY_INDEX)
    for pos in ("verb", "adj", "adv"):
        (db / f"index.{pos}").write_bytes(b"")
    (db / "noun.exc").write_text("mice mouse\n", encoding="latin-1")
    monkeypatch.setenv("ORBITAL_WORDNET", str(db))
    folder.cache_clear()
    try:
        assert LoadedWordNet(kept, SEAL)().senses("mice") == frozenset({"n00000003"})
        (path,) = kept.glob("*.msgpack")

        def no_parse(_text: str) -> dict[str, tuple[str, ...]]:
            raise AssertionError("parsed again")

        with monkeypatch.context() as patched:
            patched.setattr(_wordnet, "exceptions_of", no_parse)
            assert LoadedWordNet(kept, SEAL)().exceptions == {"noun": {"mice": ("mouse",)}}
        path.write_bytes(path.read_bytes()[:-1] + b"\x00")  # not what the store signed
        forged = {"noun": {"mice": ("book",)}}
        assert LoadedWordNet(kept, SEAL)().exceptions == {"noun": {"mice": ("mouse",)}}
        Seal(lambda: bytes(32)).write(path, msgspec.msgpack.encode(forged))  # another key
        assert LoadedWordNet(kept, SEAL)().senses("mice") == frozenset({"n00000003"})
        (db / "noun.exc").write_text("mice mouse\ngeese goose\n", encoding="latin-1")
        assert LoadedWordNet(kept, SEAL)().exceptions["noun"]["geese"] == ("goose",)
        assert [p.name for p in kept.glob("*.msgpack")] != [path.name]
    finally:
        folder.cache_clear()
