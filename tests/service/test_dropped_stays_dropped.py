"""Issue 28, finding 1: a dropped ask stays dropped in any wording. A rewording the guard is
certain of is refused as before; one that possibly repeats the drop is held (not appended, the
agent told which ask it resembles), and taken when written again ``distinct from`` that ask,
which records the agent's claim."""

from __future__ import annotations

import pytest

from orbital.events import Actor
from orbital.events.asks import AskOpened, AskOpenRefused
from orbital.service import Orbital
from tests.service.conftest import Env
from tests.wordnet_helpers import needs_wordnet

DROPPED = "Confirm the VAT rate for German customers"
REWORDED = "Find out which VAT rate applies to German customers"

pytestmark = needs_wordnet


def _drop(env: Env) -> str:
    opened = env.orbital.ask_open(env.project, DROPPED, actor=Actor.AGENT)
    ask_id = opened.events[0].stream.removeprefix("ask:")
    env.orbital.ask_close(
        env.project, ask_id, "dropped", "we only sell in Austria", actor=Actor.USER
    )
    return ask_id


def _held_message(text: str, ask_id: str) -> str:
    return (
        f'ASKS.md: held, not added — "{text}" may be [{ask_id}] "{DROPPED}", which the user '
        "dropped on 2026-09-19 (their words: we only sell in Austria). If it really is a "
        f"different thing, write it again naming that ask: `- open <text> (distinct from "
        f"{ask_id})` (CLI --distinct-from {ask_id}, MCP and HTTP distinct_from)."
    )


def _opened(service: Orbital, project: str) -> list[AskOpened]:
    return [
        r.event
        for r in service.history(project)
        if isinstance(r.event, AskOpened) and r.event.text != DROPPED
    ]


def test_a_rewording_through_the_file_is_held_and_the_file_is_unchanged(env: Env) -> None:
    ask_id = _drop(env)
    before = env.file("ASKS.md")
    result = env.orbital.write_file(
        env.project, "ASKS.md", before + f"- open {REWORDED}\n".encode(), actor=Actor.AGENT
    )
    assert env.file("ASKS.md") == before
    assert result.content.encode() == before
    assert result.warnings == [_held_message(REWORDED, ask_id)]
    assert [(h.text, h.id) for h in result.held] == [(REWORDED, ask_id)]
    assert result.refused is False
    assert result.to_builtins()["held"] == [{"text": REWORDED, "id": ask_id}]
    [audit] = [
        r.event for r in env.orbital.history(env.project) if isinstance(r.event, AskOpenRefused)
    ]
    assert (audit.reason, audit.ask_id, audit.text) == ("held", ask_id, REWORDED)
    assert _opened(env.orbital, env.project) == []


def test_written_again_distinct_from_the_drop_it_is_taken_with_the_claim(env: Env) -> None:
    ask_id = _drop(env)
    before = env.file("ASKS.md")
    line = f"- open {REWORDED} (distinct from {ask_id})\n"
    result = env.orbital.write_file(
        env.project, "ASKS.md", before + line.encode(), actor=Actor.AGENT
    )
    assert result.held == []
    [opened] = _opened(env.orbital, env.project)
    assert (opened.text, opened.distinct_from) == (REWORDED, (ask_id,))
    assert (
        env.file("ASKS.md")
        == before
        + (f"- open {opened.ask_id} 2026-09-19 {REWORDED} (distinct from {ask_id})\n").encode()
    )


def test_the_open_command_holds_and_takes_distinct_from(env: Env) -> None:
    ask_id = _drop(env)
    held = env.orbital.ask_open(env.project, REWORDED, actor=Actor.AGENT)
    assert ([e.type for e in held.events], held.refused) == (["ask.open_refused"], False)
    assert held.warnings == [_held_message(REWORDED, ask_id)]
    assert [(h.text, h.id) for h in held.held] == [(REWORDED, ask_id)]
    taken = env.orbital.ask_open(
        env.project, REWORDED, actor=Actor.AGENT, distinct_from=[ask_id.upper()]
    )
    assert taken.warnings == [] and taken.held == []
    [opened] = _opened(env.orbital, env.project)
    assert opened.distinct_from == (ask_id,)


def test_a_certain_repeat_is_refused_as_before_even_named_distinct(env: Env) -> None:
    ask_id = _drop(env)
    before = env.file("ASKS.md")
    line = f"- open Please confirm the VAT rate for German customers (distinct from {ask_id})\n"
    result = env.orbital.write_file(
        env.project, "ASKS.md", before + line.encode(), actor=Actor.AGENT
    )
    assert env.file("ASKS.md") == before
    assert result.warnings == [
        f"ASKS.md: not added — the user dropped this as [{ask_id}] on 2026-09-19 (their "
        "words: we only sell in Austria); never re-propose it. If the user asked for it "
        f'again, add `- reopen {ask_id} "<their words>"`.'
    ]
    assert result.held == []
    assert result.refused is True
    assert _opened(env.orbital, env.project) == []


@pytest.mark.parametrize(
    "different",
    [
        "Confirm the VAT rate for French customers",
        "File the German VAT return for Q3",
        "Confirm the shipping cost for German customers",
        "Book a meeting room for the Friday retro",
    ],
)
def test_different_asks_are_taken(env: Env, different: str) -> None:
    _drop(env)
    result = env.orbital.ask_open(env.project, different, actor=Actor.AGENT)
    assert result.warnings == [] and result.held == []
    [opened] = _opened(env.orbital, env.project)
    assert (opened.text, opened.distinct_from) == (different, ())
