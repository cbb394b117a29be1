"""Quote-checked ask closes (reference §11.2 and §8.4, plus the short-quote topic rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbital.domain.ask_requests import decide_change
from orbital.domain.asks import fold
from orbital.domain.editor.choices import Applied, CloseAskChoice, parse_choices
from orbital.domain.editor.closes import apply_close_asks, verify_close
from orbital.domain.quotes import is_short_quote
from orbital.editor.sessions import SessionDir
from orbital.events.asks import AskClosed
from tests.editor.helpers import (
    ASK_ID,
    SESSION_A,
    SESSION_B,
    TODAY,
    VERBATIM,
    reference_sessions,
    webinar_asks,
    write_jsonl,
)


@pytest.fixture
def sessions(tmp_path: Path) -> SessionDir:
    return SessionDir(reference_sessions(tmp_path / "sessions"))


def close(quote: str, session: str = SESSION_A, ask_id: str = ASK_ID) -> CloseAskChoice:
    return CloseAskChoice(id=ask_id, session=session, quote=quote)


def test_close_with_a_verbatim_user_quote(sessions: SessionDir) -> None:
    asks = webinar_asks()
    done = apply_close_asks(asks, [close(VERBATIM)], TODAY, sessions.user_messages)
    assert done.rejected == ()
    assert done.applied == (Applied(kind="close_ask", id=ASK_ID, session=SESSION_A),)
    assert done.events == (
        AskClosed(ask_id=ASK_ID, kind="done", date=TODAY, by="editor", note=f'"{VERBATIM}"'),
    )
    after = fold([(2, done.events[0])], asks)[ASK_ID]
    assert (after.state, after.closed_by) == ("done", "editor")
    assert f'"{VERBATIM}"' in after.note


def test_quote_matching_ignores_whitespace_differences(sessions: SessionDir) -> None:
    quote = "the webinar  will be\nin English, final"
    done = apply_close_asks(webinar_asks(), [close(quote)], TODAY, sessions.user_messages)
    assert [a.id for a in done.applied] == [ASK_ID]
    assert done.events[0].note == f'"{VERBATIM}"'


def test_quote_matching_is_case_sensitive(sessions: SessionDir) -> None:
    done = apply_close_asks(
        webinar_asks(), [close(VERBATIM.upper())], TODAY, sessions.user_messages
    )
    assert done.applied == ()


NOT_IN_A = f"close_asks {ASK_ID}: quote not in the user's messages of {SESSION_A}"


@pytest.mark.parametrize(
    ("quote", "session", "reason"),
    [
        pytest.param("English it is", SESSION_A, NOT_IN_A, id="assistant-words"),
        pytest.param(
            VERBATIM,
            SESSION_B,
            f"close_asks {ASK_ID}: quote not in the user's messages of {SESSION_B}",
            id="other-session",
        ),
        pytest.param(
            VERBATIM,
            "proj_missing",
            f"close_asks {ASK_ID}: quote not in the user's messages of proj_missing",
            id="missing-session",
        ),
        pytest.param(
            VERBATIM,
            f"../{SESSION_A}",
            f"close_asks {ASK_ID}: bad session '../{SESSION_A}'",
            id="path-escape",
        ),
        pytest.param(
            "", SESSION_A, f"close_asks {ASK_ID}: missing or oversized quote", id="empty-quote"
        ),
        pytest.param(
            "x" * 600, SESSION_A, f"close_asks {ASK_ID}: missing or oversized quote", id="too-long"
        ),
    ],
)
def test_rejected_closes_leave_the_ask_open(
    sessions: SessionDir, quote: str, session: str, reason: str
) -> None:
    asks = webinar_asks()
    done = apply_close_asks(asks, [close(quote, session)], TODAY, sessions.user_messages)
    assert done.applied == ()
    assert done.events == ()
    assert done.rejected == (reason,)
    assert asks[ASK_ID].state == "open"


@pytest.mark.parametrize(
    "session", ["", "/etc/passwd", "..", "a/../b", ".hidden", "-x", "x..y", "a/b", "a\\b"]
)
def test_session_names_that_could_leave_the_directory_are_bad(
    sessions: SessionDir, session: str
) -> None:
    verdict = verify_close(webinar_asks(), close(VERBATIM, session), TODAY, sessions.user_messages)
    assert verdict == f"close_asks {ASK_ID}: bad session '{session}'"


def test_unknown_and_already_closed_ids_are_rejected(sessions: SessionDir) -> None:
    by_user = decide_change(webinar_asks(), "done", ASK_ID, TODAY, by="user", note='"EN"')
    assert by_user is not None
    asks = webinar_asks(by_user)
    choices = parse_choices(
        {
            "close_asks": [
                {"id": ASK_ID, "session": SESSION_A, "quote": VERBATIM},
                {"id": "ffffff", "session": SESSION_A, "quote": VERBATIM},
                "not an object",
            ]
        }
    )
    done = apply_close_asks(asks, choices.close_asks, TODAY, sessions.user_messages)
    assert done.applied == ()
    assert [*choices.rejected, *done.rejected] == [
        "close_asks: not an object",
        f"close_asks {ASK_ID}: not an open ask",
        "close_asks ffffff: not an open ask",
    ]
    assert asks[ASK_ID].closed_by == "user"


def test_no_close_asks_key_is_a_no_op(sessions: SessionDir) -> None:
    choices = parse_choices({"close_asks": None})
    done = apply_close_asks(webinar_asks(), choices.close_asks, TODAY, sessions.user_messages)
    assert (done.applied, done.rejected, choices.rejected) == ((), (), ())


def test_ids_are_stripped_and_lowercased_and_a_second_close_in_a_batch_is_refused(
    sessions: SessionDir,
) -> None:
    items = [close(VERBATIM, ask_id=f"  {ASK_ID.upper()} "), close(VERBATIM)]
    done = apply_close_asks(webinar_asks(), items, TODAY, sessions.user_messages)
    assert [a.id for a in done.applied] == [ASK_ID]
    assert done.rejected == (f"close_asks {ASK_ID}: not an open ask",)


def test_a_missing_id_is_named_with_a_question_mark(sessions: SessionDir) -> None:
    verdict = verify_close(
        webinar_asks(), close(VERBATIM, ask_id=""), TODAY, sessions.user_messages
    )
    assert verdict == "close_asks ?: not an open ask"


# --- Claude Code transcripts ------------------------------------------------------------------


def claude_rows(user_text: str, tool_output: str) -> list[dict[str, object]]:
    return [
        {"type": "summary", "summary": "Webinar planning"},
        {"type": "user", "message": {"role": "user", "content": user_text}, "uuid": "u1"},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me read the notes."},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "n.md"}},
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": tool_output}],
            },
            "toolUseResult": {"stdout": tool_output},
        },
        {
            "type": "user",
            "isMeta": True,
            "message": {"role": "user", "content": f"Caveat: {tool_output}"},
        },
    ]


def test_claude_code_words_in_a_tool_result_row_are_not_the_users(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "cc-session.jsonl",
        claude_rows("What did we settle for the webinar?", f"notes.md: {VERBATIM}."),
    )
    sessions = SessionDir(tmp_path)
    verdict = verify_close(
        webinar_asks(), close(VERBATIM, "cc-session"), TODAY, sessions.user_messages
    )
    assert verdict == f"close_asks {ASK_ID}: quote not in the user's messages of cc-session"


def test_claude_code_typed_words_close_the_ask(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "cc-session.jsonl", claude_rows(f"OK so {VERBATIM}.", "unrelated"))
    sessions = SessionDir(tmp_path)
    verdict = verify_close(
        webinar_asks(), close(VERBATIM, "cc-session"), TODAY, sessions.user_messages
    )
    assert isinstance(verdict, AskClosed)
    assert verdict.by == "editor"


# --- the short-quote topic rule ---------------------------------------------------------------


@pytest.fixture
def short_sessions(tmp_path: Path) -> SessionDir:
    write_jsonl(
        tmp_path / "s-topic.jsonl",
        [
            {"role": "assistant", "content": "Shall we run the webinar in English?"},
            {"role": "user", "content": "yes, go with English for the webinar"},
        ],
    )
    write_jsonl(
        tmp_path / "s-bare.jsonl",
        [
            {"role": "assistant", "content": "Shall we run the webinar in English?"},
            {"role": "user", "content": "yes"},
        ],
    )
    write_jsonl(tmp_path / "s-other.jsonl", [{"role": "user", "content": "go ahead, merge the PR"}])
    return SessionDir(tmp_path)


def test_a_short_quote_from_a_message_naming_the_topic_is_accepted(
    short_sessions: SessionDir,
) -> None:
    verdict = verify_close(
        webinar_asks(), close("yes", "s-topic"), TODAY, short_sessions.user_messages
    )
    assert isinstance(verdict, AskClosed)
    assert verdict.note == '"yes"'


def test_a_bare_yes_does_not_name_the_topic(short_sessions: SessionDir) -> None:
    verdict = verify_close(
        webinar_asks(), close("yes", "s-bare"), TODAY, short_sessions.user_messages
    )
    assert verdict == (
        f'close_asks {ASK_ID}: short quote "yes" does not name the ask\'s topic in s-bare'
    )


def test_an_acknowledgement_about_something_else_is_refused(short_sessions: SessionDir) -> None:
    verdict = verify_close(
        webinar_asks(), close("go ahead", "s-other"), TODAY, short_sessions.user_messages
    )
    assert isinstance(verdict, str)
    assert "does not name the ask's topic" in verdict


def test_a_long_quote_needs_no_topic_word(short_sessions: SessionDir) -> None:
    verdict = verify_close(
        webinar_asks(),
        close("go with English for the webinar", "s-topic"),
        TODAY,
        short_sessions.user_messages,
    )
    assert isinstance(verdict, AskClosed)


@pytest.mark.parametrize(
    ("quote", "short"),
    [
        ("yes", True),
        ("OK!", True),
        ("English, final", True),
        ("Sounds good.", True),
        ("let's do it", True),
        ("Go for it", True),
        ("the webinar will be in English", False),
        ("ship the English version", False),
    ],
)
def test_what_counts_as_a_short_quote(quote: str, short: bool) -> None:
    assert is_short_quote(quote) is short
