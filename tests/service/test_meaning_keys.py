"""The dropped asks' meaning indexes kept in the store (``asks-restates``, ``asks-resembles``)
find what an index built afresh from the dropped asks finds, for every labelled candidate,
after drops, more drops and reopens caught up a few at a time; their stamp names the code and
WordNet's files, not where the files lie nor when they were written."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

import pytest

from orbital.domain.lazy_meanings import ReadingName, build_meaning_index
from orbital.domain.wordnet import NONE, WordNet
from orbital.events import Actor
from orbital.service import Orbital, _meaning_keys, _stream_keys
from orbital.service._meaning_keys import caught_up, family, stamp
from orbital.store import Projected
from tests.service.test_stored_view import MovingClock, every_ask
from tests.wordnet_helpers import WORDNET, needs_wordnet

DATA = Path(__file__).resolve().parents[1] / "asks" / "data" / "rephrase-dev.jsonl"
START = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


def _rows() -> list[dict[str, object]]:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def _lexicon(reading: ReadingName) -> WordNet:
    return WORDNET() if reading == "resembles" else NONE


def _assert_finds_as_built(service: Orbital, project: str, reading: ReadingName) -> None:
    lexicon = _lexicon(reading)
    asks = every_ask(service, project)
    dropped = sorted((a for a in asks.values() if a.state == "dropped"), key=lambda a: a.seq)
    built = build_meaning_index(tuple((a.id, a.text) for a in dropped), reading, lexicon)
    candidates = [str(row["candidate"]) for row in _rows()] + [a.text for a in asks.values()]
    with service.store.writing() as w:
        stored = caught_up(w, project, reading, lexicon)
        for text in candidates:
            assert stored.restated_by(text) == built.restated_by(text), text


@pytest.mark.parametrize("page", [2_000, 7])
@pytest.mark.parametrize("reading", ["restates", pytest.param("resembles", marks=needs_wordnet)])
def test_the_stored_index_finds_what_one_built_afresh_finds(
    store_url: str,
    tmp_path: Path,
    reading: ReadingName,
    page: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``page``: stream states read at a time when a family is caught up (7: many pages)."""
    monkeypatch.setattr(_meaning_keys, "STATES_PAGE", page)
    monkeypatch.setattr(_stream_keys, "STATES_PAGE", page)
    rng = random.Random(5)
    texts = list(dict.fromkeys(str(row["dropped"]) for row in _rows()))[:60]
    root = tmp_path / "project"
    root.mkdir()
    with Orbital.open(store_url, clock=MovingClock(START)) as service:
        project = service.init_project(root, timezone="UTC").project_id
        for text in texts:
            service.ask_open(project, text, actor=Actor.USER)
        ids = sorted(every_ask(service, project))
        rng.shuffle(ids)
        _assert_finds_as_built(service, project, reading)  # nothing dropped yet
        _assert_finds_as_built(service, project, reading)  # nothing dropped yet
        for start in (0, 25, 45):  # drops caught up a batch at a time
            for ask_id in ids[start : start + 20]:
                service.ask_close(project, ask_id, "dropped", actor=Actor.USER)
            _assert_finds_as_built(service, project, reading)
        for ask_id in ids[:6]:  # reopened: out of the index
            service.ask_reopen(project, ask_id, "back on", actor=Actor.USER)
        _assert_finds_as_built(service, project, reading)
        with service.store.writing() as w:  # as another Orbital left it: made again whole
            w.keys_at(project, family(reading), Projected(1, "other code", {}))
        _assert_finds_as_built(service, project, reading)
        with service.store.reader() as r:
            head = r.prefix_head(project, "ask:")
            found = r.keys_projected(project, family(reading))
            assert found is not None
            assert found[:2] == (head, stamp(reading, _lexicon(reading)))


def test_the_stamp_is_of_the_files_not_where_they_lie_nor_when_written() -> None:
    files = ["index.noun:100:1", "noun.exc:20:2", "data.noun:300:3"]
    here = WordNet({}, {}, ";".join(["/usr/share/wordnet", *files]))
    moved = ["index.noun:100:9", "noun.exc:20:8", "data.noun:300:7"]
    there = WordNet({}, {}, ";".join(["/opt/wordnet", *moved]))
    other = WordNet({}, {}, ";".join(["/usr/share/wordnet", "index.noun:101:1", *files[1:]]))
    assert stamp("resembles", here) == stamp("resembles", there)
    assert stamp("resembles", here) != stamp("resembles", other)
    assert stamp("restates", here) == stamp("restates", other) != stamp("resembles", here)
