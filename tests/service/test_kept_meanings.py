"""Built meaning indexes kept between processes: read back equal to a built one, rebuilt when
unreadable, keyed by the dropped asks filed, the newest few kept."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from orbital.domain.lazy_meanings import build_meaning_index
from orbital.domain.meaning_index import RESTATES, MeaningIndex
from orbital.domain.resemble import resembling
from orbital.service import _wordnet
from orbital.service._meanings import KEEP, KeptMeaningIndexes
from orbital.service._outputs import Seal
from orbital.service._wordnet import LoadedWordNet, folder
from tests.asks.test_resemble import TINY_INDEX
from tests.wordnet_helpers import WORDNET, needs_wordnet

#: What signs the kept files here (a store's key, as ``Orbital.keep_caches`` reads it).
SEAL = Seal(lambda: bytes(range(32)))
ITEMS = (("a1b2c3", "Move cron off Heroku"), ("d4e5f6", "Raise the price on the pricing page"))


def test_a_kept_index_is_read_back_not_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = KeptMeaningIndexes(tmp_path, SEAL)(ITEMS)
    assert built == build_meaning_index(ITEMS)
    assert len(list(tmp_path.glob("*.msgpack"))) == 1

    def no_build(*_args: object) -> MeaningIndex[str]:
        raise AssertionError("rebuilt")

    monkeypatch.setattr(MeaningIndex, "added", no_build)
    again = KeptMeaningIndexes(tmp_path, SEAL)(ITEMS)
    assert again == built
    assert dict(again.pivots) == dict(built.pivots)  # not compared by ==
    assert again.restated_by("move the cron jobs off Heroku") == built.restated_by(
        "move the cron jobs off Heroku"
    )
    assert set(again.restated_by("move the cron jobs off Heroku")) == {"a1b2c3"}


def test_an_unreadable_index_is_rebuilt_and_other_sets_get_their_own(tmp_path: Path) -> None:
    kept = KeptMeaningIndexes(tmp_path, SEAL)
    built = kept(ITEMS)
    (path,) = tmp_path.glob("*.msgpack")
    path.write_bytes(b"not an index")
    assert kept(ITEMS) == built
    for n in range(KEEP + 2):
        items = (*ITEMS, (f"{n:06x}", f"Book venue number {n}"))
        assert kept(items) == build_meaning_index(items)
    assert len(list(tmp_path.glob("*.msgpack"))) == KEEP


@needs_wordnet
def test_the_wider_index_is_kept_apart_and_read_back_with_its_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = KeptMeaningIndexes(tmp_path, SEAL, WORDNET)
    restates, resembles = kept(ITEMS), kept(ITEMS, "resembles")
    assert len(list(tmp_path.glob("*.msgpack"))) == 2
    assert resembles.reading is resembling(WORDNET()) and restates.reading is RESTATES
    held = "Lift the price on the pricing page"  # "lift" is a sense of "raise" in WordNet
    expected = resembles.restated_by(held)
    assert set(expected) == {"d4e5f6"} and restates.restated_by(held) == {}

    def no_build(*_args: object) -> MeaningIndex[str]:
        raise AssertionError("rebuilt")

    monkeypatch.setattr(MeaningIndex, "added", no_build)
    again = KeptMeaningIndexes(tmp_path, SEAL, WORDNET)(ITEMS, "resembles")
    assert again.reading is resembling(WORDNET())
    assert again.restated_by(held) == expected
    assert again.restated_by("Move cron off Heroku") == {"a1b2c3": 1.0}


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
