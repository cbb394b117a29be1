"""The user's words, verified: quote spans, how they are compared, and the agent's closes and
reopens that carry them (issue 14 "The user's words, verified"; issue 13 item 4)."""

from __future__ import annotations

import pytest

from orbital.domain.asks import decide_agent_change
from orbital.domain.asks import fold as fold_asks
from orbital.domain.asks_write import decide_agent_write
from orbital.domain.quotes import UserWords, fold, quoted
from orbital.events import Actor
from orbital.events.asks import AskClosed, AskReopened, AskReopenProposed
from orbital.grammar.asks_md import FORMAT_HEADER
from tests.asks.helpers import TODAY, asks_of, minter

VENUE = "Choose the venue for the launch party"
SAID = UserWords.of(
    [
        "Let's go with the Rooftop   bar for the launch party, it's cheaper.",
        "I don't want the basement venue at all",
        "no",
        "yes",
    ]
)


@pytest.mark.parametrize(
    ("note", "spans"),
    [
        ('"go with the rooftop"', ["go with the rooftop"]),
        ("the user said \u201cship it\u201d and \u300c\u597d\u300d", ["ship it", "\u597d"]),
        ('"a" then "b"', ["a", "b"]),
        ('"" and " "', []),
        ('"unbalanced', []),
        ("no quotes at all", []),
    ],
)
def test_quoted_spans(note: str, spans: list[str]) -> None:
    assert quoted(note) == spans


def test_fold_unifies_width_quotes_case_and_whitespace() -> None:
    assert fold("  Don\u2019t \uff33hip\n\tIT\u2026 ") == "don't ship it..."


@pytest.mark.parametrize(
    ("note", "verdict"),
    [
        ('"go with the Rooftop bar"', "verified"),
        ('"let\u2019s go with the rooftop bar"', "verified"),  # typographic apostrophe
        ('"LET\'S GO WITH THE ROOFTOP BAR."', "verified"),  # case, trailing period
        ('"go with the rooftop \u2026 it\'s cheaper"', "verified"),  # words left out, in order
        ('"it\'s cheaper ... go with the rooftop"', "not_found"),  # not in that order
        ('"go with the rooftop bar" and "book it now"', "not_found"),  # one invented quote
        ('"go with the roof"', "not_found"),  # not on a word boundary
        ('"go with the terrace"', "not_found"),
        ('"no"', "off_topic"),  # short: its message does not name the ask's topic
        ('"yes"', "off_topic"),
        ('"basement venue"', "verified"),  # short, and its message names "venue"
        ("the user agreed", "unquoted"),
        ('"..."', "unquoted"),
    ],
)
def test_a_note_is_verified_only_by_the_users_own_words(note: str, verdict: str) -> None:
    assert SAID.check(note, VENUE).verdict == verdict


def test_an_unreadable_transcript_verifies_nothing() -> None:
    words = UserWords(problem="/x.jsonl: No such file or directory")
    assert words.check('"go with the rooftop"', VENUE).verdict == "unreadable"
    assert words.check("no quote", VENUE).verdict == "unquoted"


# -- the agent's close and reopen ------------------------------------------------------------


def _asks(*events: str) -> str:
    return f"{FORMAT_HEADER}\n- open a1b2c3 2026-09-01 {VENUE}\n" + "".join(
        f"{e}\n" for e in events
    )


def test_a_verified_close_is_recorded_verified_and_stays_by_agent() -> None:
    asks = asks_of(_asks())
    d = decide_agent_change(
        asks, "done", "a1b2c3", '"go with the rooftop bar"', TODAY, Actor.AGENT, SAID
    )
    assert d.events == [
        AskClosed(
            ask_id="a1b2c3",
            kind="done",
            date=TODAY,
            by="agent",
            note='"go with the rooftop bar"',
            verified=True,
        )
    ]
    assert d.warnings == []


def test_an_unverified_close_is_kept_with_a_warning() -> None:
    asks = asks_of(_asks())
    d = decide_agent_change(asks, "done", "a1b2c3", '"book the terrace"', TODAY, Actor.AGENT, SAID)
    assert [(e.verified, e.note) for e in d.events if isinstance(e, AskClosed)] == [
        (False, '"book the terrace"')
    ]
    assert d.warnings == [
        'ASKS.md: done [a1b2c3] with a quote that is not verified — "book the terrace" is '
        "not in the user's messages of this session; quote the user's own words."
    ]


def test_without_a_transcript_a_quoted_close_is_kept_unverified_and_said_so() -> None:
    asks = asks_of(_asks())
    d = decide_agent_change(asks, "done", "a1b2c3", '"book the terrace"', TODAY, Actor.AGENT)
    assert [(e.verified, e.by) for e in d.events if isinstance(e, AskClosed)] == [(False, "agent")]
    assert d.warnings == [
        "ASKS.md: done [a1b2c3]; its quote is not verified (no session transcript of yours to "
        "check it against): the user sees it marked unverified, with Undo."
    ]


USER_DROPPED = _asks("- dropped a1b2c3 2026-09-05 by:user too expensive")
REFUSED_BARE = (
    "ASKS.md: [a1b2c3] was dropped by the user on 2026-09-05 — not reopened. Reopen it only if "
    'the user asked for it again, quoting their words: `- reopen a1b2c3 "<their words>"`.'
)


@pytest.mark.parametrize("line", ["- reopen a1b2c3", "- reopen a1b2c3 the user wants it back"])
def test_an_agent_reopen_of_a_user_drop_without_the_users_words_is_refused(line: str) -> None:
    result = decide_agent_write(
        asks_of(USER_DROPPED), USER_DROPPED, USER_DROPPED + line + "\n", TODAY, minter(),
        actor=Actor.AGENT,
    )  # fmt: skip
    assert result.text == USER_DROPPED
    assert (result.events, result.audit, result.lines) == ([], [], [])
    assert result.warnings == [REFUSED_BARE]


def test_an_agent_reopen_of_a_user_drop_needs_a_verified_quote_when_a_transcript_is_given() -> None:
    asks = asks_of(USER_DROPPED)
    line = '- reopen a1b2c3 "let\'s book the terrace for the launch party"'
    refused = decide_agent_write(
        asks, USER_DROPPED, USER_DROPPED + line + "\n", TODAY, minter(), actor=Actor.AGENT,
        words=SAID,
    )  # fmt: skip
    assert refused.text == USER_DROPPED and refused.events == []
    assert refused.warnings == [
        "ASKS.md: [a1b2c3] was dropped by the user on 2026-09-05 — not reopened: \"let's book "
        "the terrace for the launch party\" is not in the user's messages of this session. "
        'Quote the user\'s own words: `- reopen a1b2c3 "<their words>"`.'
    ]
    line = '- reopen a1b2c3 "go with the Rooftop bar for the launch party"'
    kept = decide_agent_write(
        asks, USER_DROPPED, USER_DROPPED + line + "\n", TODAY, minter(), actor=Actor.AGENT,
        words=SAID,
    )  # fmt: skip
    assert kept.events == [
        AskReopened(
            ask_id="a1b2c3",
            date=TODAY,
            by="agent",
            note='"go with the Rooftop bar for the launch party"',
            verified=True,
        )
    ]
    assert kept.text == USER_DROPPED + (
        '- reopen a1b2c3 2026-09-19 by:agent "go with the Rooftop bar for the launch party"\n'
    )


HELD = (
    "ASKS.md: [a1b2c3] was dropped by the user on 2026-09-05 — not reopened: nothing ties your "
    "quote to your own session's transcript, so the reopen is held as a proposal and now waits "
    "on the user, who confirms or declines it in the Workbench. Treat the ask as dropped until "
    "then."
)


@pytest.mark.parametrize("actor", [Actor.AGENT, Actor.FILE])
def test_a_quoted_reopen_of_a_user_drop_without_a_transcript_waits_on_the_person(
    actor: Actor,
) -> None:
    d = decide_agent_change(
        asks_of(USER_DROPPED), "reopen", "a1b2c3", '"I want it back"', TODAY, actor
    )
    by = "file" if actor is Actor.FILE else "agent"
    assert d.events == [
        AskReopenProposed(ask_id="a1b2c3", date=TODAY, by=by, note='"I want it back"')
    ]
    assert d.warnings == [HELD]
    held = fold_asks(enumerate(d.events, 100), asks_of(USER_DROPPED))["a1b2c3"]
    assert (held.state, held.proposal) == ("dropped", '"I want it back"')
    again = decide_agent_change({"a1b2c3": held}, "reopen", "a1b2c3", '"x y z"', TODAY, actor)
    assert again.events == []
    assert again.warnings == ["ASKS.md: [a1b2c3] already has a reopen waiting on the user."]


def test_a_short_quote_does_not_reopen_a_user_drop() -> None:
    d = decide_agent_change(
        asks_of(USER_DROPPED), "reopen", "a1b2c3", '"yes"', TODAY, Actor.AGENT, SAID
    )
    assert d.events == []
    assert d.warnings == [
        'ASKS.md: [a1b2c3] was dropped by the user on 2026-09-05 — not reopened: "yes" is too '
        "short to stand for this ask: no message of the user's that holds it names the ask's "
        'topic. Quote the user\'s own words: `- reopen a1b2c3 "<their words>"`.'
    ]


@pytest.mark.parametrize("by", ["agent", "editor", "file"])
def test_a_drop_that_was_not_the_users_reopens_bare_as_before(by: str) -> None:
    asks = asks_of(_asks(f"- dropped a1b2c3 2026-09-05 by:{by}"))
    d = decide_agent_change(asks, "reopen", "a1b2c3", "", TODAY, Actor.AGENT)
    assert [type(e) for e in d.events] == [AskReopened]
    assert d.warnings == []


def test_a_hand_edit_reopen_of_a_user_drop_is_held_to_the_same_rule() -> None:
    d = decide_agent_change(asks_of(USER_DROPPED), "reopen", "a1b2c3", "", TODAY, Actor.FILE)
    assert d.events == [] and d.warnings == [REFUSED_BARE]
