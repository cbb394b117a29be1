"""Entries' meanings outlive the process: a new entry is compared with every entry of its
file on each write, and the next process (a hook, a CLI write) reads what the last one
worked out instead of stemming them all again; a changed Orbital reads none of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orbital.domain import rephrase
from orbital.domain import rephrase_lexicon as lex
from orbital.service._meanings import KeptMeanings
from orbital.service._outputs import Seal

FILE = {
    "d-1": "Chose: Postgres for the event store. Reason: the team outgrew one machine.",
    "d-2": "Chose: move the nightly cron off Heroku to a systemd timer.",
    "d-3": "Chose: render the Workbench on the server, no client framework.",
}
NEW = "Chose: the event store on Postgres, as the team outgrew one machine."

#: What signs the kept files here (a store's key, as ``Orbital.keep_caches`` reads it).
SEAL = Seal(lambda: bytes(range(32)))


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A new process's matcher: nothing cached, nothing seeded; yields the texts it works out."""
    worked: list[str] = []
    real = rephrase._worked_out

    def working_out(text: str) -> rephrase.Meaning:
        worked.append(text)
        return real(text)

    monkeypatch.setattr(rephrase, "_seeded", {})
    monkeypatch.setattr(rephrase, "compared", {})
    monkeypatch.setattr(rephrase, "_tables", {})
    monkeypatch.setattr(rephrase, "_worked_out", working_out)
    rephrase.meaning.cache_clear()
    yield worked
    rephrase.meaning.cache_clear()


def new_process(monkeypatch: pytest.MonkeyPatch, worked: list[str]) -> None:
    monkeypatch.setattr(rephrase, "_seeded", {})
    monkeypatch.setattr(rephrase, "compared", {})
    monkeypatch.setattr(rephrase, "_tables", {})
    rephrase.meaning.cache_clear()
    worked.clear()


def compared_in_a_process(path: Path) -> str | None:
    """A write's restatement check of ``NEW`` against ``FILE``, with meanings kept at ``path``
    (as ``Orbital.keep_caches`` wires them: loaded before the check, saved at close)."""
    kept = KeptMeanings(path, SEAL)
    kept.load()
    found = rephrase.restated(NEW, FILE)
    kept.save()
    return found


def test_the_next_process_works_out_only_the_new_text(
    tmp_path: Path, fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "entry-meanings.msgpack"
    assert compared_in_a_process(path) == "d-1"
    assert sorted(fresh) == sorted([NEW, *FILE.values()])

    new_process(monkeypatch, fresh)
    assert compared_in_a_process(path) == "d-1"
    assert fresh == [NEW]  # the file's entries were read, not stemmed again


def test_meanings_kept_by_another_orbital_are_not_read(
    tmp_path: Path, fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "entry-meanings.msgpack"
    compared_in_a_process(path)

    new_process(monkeypatch, fresh)
    monkeypatch.setattr("orbital.service._outputs.code_stamp", lambda: b"another Orbital")
    KeptMeanings(path, SEAL).load()
    assert rephrase.restated(NEW, FILE) == "d-1"
    assert sorted(fresh) == sorted([NEW, *FILE.values()])
    path.write_bytes(b"not meanings")
    new_process(monkeypatch, fresh)
    KeptMeanings(path, SEAL).load()  # unreadable: worked out again, as a cache
    assert rephrase.restated(NEW, FILE) == "d-1" and len(fresh) == 4


def test_the_synonym_table_is_stemmed_once_and_handed_to_the_next_process(
    tmp_path: Path, fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "entry-meanings.msgpack"
    compared_in_a_process(path)
    stemmed = rephrase.phrases_made()
    assert stemmed == {False: rephrase.phrase_table(lex.SYNONYMS, False)}

    def no_stemming(*_args: object) -> lex.Phrases:
        raise AssertionError("stemmed again")

    new_process(monkeypatch, fresh)
    with monkeypatch.context() as patched:
        patched.setattr(rephrase, "phrase_table", no_stemming)
        assert compared_in_a_process(path) == "d-1"
    assert rephrase.phrases_made() == stemmed

    new_process(monkeypatch, fresh)  # another Orbital's tables are never handed over
    monkeypatch.setattr("orbital.service._outputs.code_stamp", lambda: b"another Orbital")
    KeptMeanings(path, SEAL).load()
    assert rephrase.phrases_made() == {}
    assert compared_in_a_process(path) == "d-1" and rephrase.phrases_made() == stemmed
