"""The dropped asks' meaning indexes kept in the store (``asks-restates``, ``asks-resembles``)
find what an index built afresh from the dropped asks finds, for every labelled candidate,
after drops, more drops and reopens caught up a few at a time; their stamp names the code and
WordNet's files, not where the files lie nor when they were written."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from orbital.domain.lazy_meanings import READINGS, ReadingName, build_meaning_index
from orbital.domain.wordnet import NONE, WordNet
from orbital.events import Actor
from orbital.service import Orbital, _meaning_keys, _stream_keys
from orbital.service._meaning_keys import caught_up, family, stamp
from orbital.store import Projected
from orbital.store._engine import create_write_engine
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


@contextlib.contextmanager
def _two_processes(store_url: str, root: Path) -> Iterator[tuple[Orbital, Orbital, str]]:
    """Two services on one store (a day apart), as two processes, and a new project."""
    root.mkdir()
    with (
        Orbital.open(store_url, clock=MovingClock(START)) as service,
        Orbital.open(store_url, clock=MovingClock(START + dt.timedelta(days=1))) as other,
    ):
        yield service, other, service.init_project(root, timezone="UTC").project_id


def test_a_family_made_ahead_files_with_no_lock_held_and_is_caught_up_to_the_writes_meanwhile(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's decision makes a family whole before its unit begins: other writers go on
    while the dropped asks are filed (minutes at a million events), and what they wrote is in
    the family the decision then reads."""
    monkeypatch.setenv("ORBITAL_BUSY_TIMEOUT_MS", "300")  # a held lock fails a writer fast
    texts = list(dict.fromkeys(str(row["dropped"]) for row in _rows()))[:12]
    with _two_processes(store_url, tmp_path / "project") as (service, other, project):
        for text in texts:
            service.ask_open(project, text, actor=Actor.USER)
        ids = sorted(every_ask(service, project))
        for ask_id in ids[:8]:
            service.ask_close(project, ask_id, "dropped", actor=Actor.USER)
        with service.store.writing() as w:  # as another version left them: made again whole
            for reading in READINGS:
                w.keys_at(project, family(reading), Projected(1, "other code", {}))
        filing = _meaning_keys.made_whole
        meanwhile: list[int] = []  # the asks' head after the other process's writes

        def made_while_another_writes(*args: object, **kwargs: object) -> _meaning_keys.Made:
            made = filing(*args, **kwargs)  # type: ignore[arg-type]
            if not meanwhile:  # the first family: another process drops one and reopens one
                other.ask_close(project, ids[8], "dropped", actor=Actor.USER)
                other.ask_reopen(project, ids[0], "back on", actor=Actor.USER)
                with other.store.reader() as r:
                    meanwhile.append(r.prefix_head(project, "ask:"))
            return made

        monkeypatch.setattr(_meaning_keys, "made_whole", made_while_another_writes)
        opened = service.ask_open(project, "Order the blue folding chairs", actor=Actor.AGENT)
        assert opened.events and not opened.refused and len(meanwhile) == 1
        for reading in READINGS:  # as of the decision: the other's writes filed, not the open
            with service.store.reader() as r:
                found = r.keys_projected(project, family(reading))
            assert found is not None and found.stamp == stamp(reading, _lexicon(reading))
            assert found.position == meanwhile[0]
        _assert_finds_as_built(service, project, "restates")


def test_an_upgrade_files_every_project_s_asks_by_the_keys_of_this_code(
    store_url: str, tmp_path: Path
) -> None:
    """``orbital db upgrade``: the keys another version left are made again for this one
    there and then, not in the first write that needs them."""
    with Orbital.open(store_url, clock=MovingClock(START)) as service:
        projects = []
        for name in ("one", "two"):
            (tmp_path / name).mkdir()
            project = service.init_project(tmp_path / name, timezone="UTC").project_id
            for text in ("Book the hall", "Print the flyers"):
                service.ask_open(project, text, actor=Actor.USER)
            service.ask_close(project, sorted(every_ask(service, project))[0], "dropped",
                              actor=Actor.USER)  # fmt: skip
            projects.append(project)
            with service.store.writing() as w:
                for kept in (_stream_keys.ASK_KEYS.name, *map(family, READINGS)):
                    w.keys_at(project, kept, Projected(1, "other code", {}))
        assert sorted(p.project_id for p in service.make_keys()) == sorted(projects)
        wanted = {family(reading): stamp(reading, _lexicon(reading)) for reading in READINGS}
        wanted[_stream_keys.ASK_KEYS.name] = _stream_keys.stamp(_stream_keys.ASK_KEYS)
        with service.store.reader() as r:
            for project in projects:
                head = r.prefix_head(project, "ask:")
                for kept, code in wanted.items():
                    found = r.keys_projected(project, kept)
                    assert found is not None and found[:2] == (head, code)


def test_a_family_filed_before_a_purge_is_not_written_after_it(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dropped asks are filed in a read transaction; a purge that lands before the lists
    are written makes them from the purged states instead, under the lock: no key holds the
    purged text's words."""
    with _two_processes(store_url, tmp_path / "project") as (service, other, project):
        service.ask_open(project, "Call Zanzibarian Trust about the wire", actor=Actor.USER)
        service.ask_open(project, "Water the plants", actor=Actor.USER)
        for ask_id in every_ask(service, project):
            service.ask_close(project, ask_id, "dropped", actor=Actor.USER)
        filing = _meaning_keys.filed_ahead
        purged: list[int] = []  # the asks' head after the purge

        def purged_meanwhile(*args: Any, **kwargs: Any) -> tuple[int, _meaning_keys.Made] | None:
            filed = filing(*args, **kwargs)
            if not purged:  # lands between the first family's read and its write
                other.purges.purge(project, text="Zanzibarian", reason="a client's name",
                                   actor=Actor.USER, state=tmp_path / "s")  # fmt: skip
                with other.store.reader() as r:
                    purged.append(r.prefix_head(project, "ask:"))
            return filed

        monkeypatch.setattr(_meaning_keys, "filed_ahead", purged_meanwhile)
        service.ask_open(project, "Order the folding chairs", actor=Actor.AGENT)
        with service.store.reader() as r:
            assert r.key_drops(project) == 1 and len(purged) == 1
            for reading in READINGS:
                found = r.keys_projected(project, family(reading))
                assert found is not None and found.position == purged[0]
        engine = create_write_engine(store_url)
        try:
            with engine.connect() as conn:
                rows = conn.execute(sa.text("SELECT key, items FROM key_lists")).all()
        finally:
            engine.dispose()
        assert rows and not any("zanzibar" in f"{key} {items}".lower() for key, items in rows)
        _assert_finds_as_built(service, project, "restates")
