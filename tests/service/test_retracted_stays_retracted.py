"""Issue 28: a retracted entry stays retracted. An agent's new entry that says again what the
person retracted is refused when certain, held when possibly (with the person's reason), and
taken when written again with a ``Distinct from:`` line naming it (a hand edit is kept and
linked as before: ``test_hand_supersedes.py``)."""

from __future__ import annotations

from orbital.events import Actor
from orbital.events.trust import EntryRetractedRepeat
from tests.service.conftest import Env
from tests.wordnet_helpers import needs_wordnet

FRIDAYS = "## Deploy on Fridays\nChose: deploy on Fridays.\nReason: a weekly cadence.\n"
OLD = "deploy-on-fridays"

pytestmark = needs_wordnet


def _retracted(env: Env) -> bytes:
    env.orbital.write_file(env.project, "DECISIONS.md", FRIDAYS.encode(), actor=Actor.AGENT)
    env.orbital.trust.act(env.project, OLD, "retract", "broke prod twice", actor=Actor.USER)
    return env.file("DECISIONS.md")


def _write(env: Env, before: bytes, entry: str) -> object:
    return env.orbital.write_file(
        env.project, "DECISIONS.md", before + entry.encode(), actor=Actor.AGENT
    )


def _repeats(env: Env) -> list[EntryRetractedRepeat]:
    return [
        r.event
        for r in env.orbital.history(env.project)
        if isinstance(r.event, EntryRetractedRepeat)
    ]


def _live(env: Env) -> list[str]:
    return [b.id for b in env.orbital.trust.beliefs(env.project) if b.status == "live"]


def test_a_certain_restatement_is_refused_with_the_persons_reason(env: Env) -> None:
    before = _retracted(env)
    again = "\n## Deploy every Friday\nChose: deploy on Fridays.\nReason: weekly cadence.\n"
    result = env.orbital.write_file(
        env.project, "DECISIONS.md", before + again.encode(), actor=Actor.AGENT
    )
    assert env.file("DECISIONS.md") == before
    assert result.warnings == [
        f"DECISIONS: not added — new entry deploy-every-friday says again what {OLD} said, "
        "which was retracted by the person (broke prod twice) on 2026-09-19; never propose "
        f"it again. If the person wants it back, they reaffirm {OLD}."
    ]
    assert result.held == [] and result.refused is True
    [audit] = _repeats(env)
    assert (audit.entry_id, audit.new_entry, audit.held) == (OLD, "deploy-every-friday", False)
    assert _live(env) == []


def test_a_possible_restatement_is_held_then_taken_distinct_from_it(env: Env) -> None:
    before = _retracted(env)
    held_entry = "\n## Release on Fridays\nChose: release on Fridays.\nReason: a weekly beat.\n"
    result = env.orbital.write_file(
        env.project, "DECISIONS.md", before + held_entry.encode(), actor=Actor.AGENT
    )
    assert env.file("DECISIONS.md") == before
    assert result.warnings == [
        f"DECISIONS: held, not added — new entry release-on-fridays may say again what {OLD} "
        "said, which was retracted by the person (broke prod twice) on 2026-09-19. If it "
        f"really is a different thing, write it again with a line `Distinct from: {OLD}`."
    ]
    assert [(h.text, h.id) for h in result.held] == [("## Release on Fridays", OLD)]
    assert result.refused is False
    assert [(a.new_entry, a.held) for a in _repeats(env)] == [("release-on-fridays", True)]
    claimed = held_entry + f"Distinct from: {OLD}\n"
    taken = env.orbital.write_file(
        env.project, "DECISIONS.md", before + claimed.encode(), actor=Actor.AGENT
    )
    assert taken.held == [] and taken.warnings == []
    assert _live(env) == ["release-on-fridays"]
    assert f"Distinct from: {OLD}" in env.file("DECISIONS.md").decode()


def test_a_different_entry_is_taken(env: Env) -> None:
    before = _retracted(env)
    other = "\n## Use PostgreSQL for the store\nChose: PostgreSQL.\nReason: several writers.\n"
    result = env.orbital.write_file(
        env.project, "DECISIONS.md", before + other.encode(), actor=Actor.AGENT
    )
    assert result.warnings == [] and result.held == []
    assert _live(env) == ["use-postgresql-for-the-store"]
    assert _repeats(env) == []
