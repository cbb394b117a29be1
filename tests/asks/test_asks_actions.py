"""Programmatic actions (reference §11.1 cases 21-25)."""

from __future__ import annotations

import pytest

from orbital.domain.ask_requests import decide_change, decide_open
from orbital.domain.asks import fold
from orbital.errors import InvalidInput, UnknownAsk
from orbital.events import Event
from orbital.events.asks import AskClosed, AskOpened, AskReopened
from orbital.grammar.asks_md import (
    FORMAT_HEADER,
    append_lines,
    parse_file,
    render_event,
    render_file,
)
from tests.asks.helpers import TODAY, asks_of, minter


def test_open_then_close_then_reopen() -> None:
    log: list[Event] = []
    opened = decide_open({}, "Choose the venue", "2026-10-01", TODAY, minter())
    assert isinstance(opened, AskOpened)
    log.append(opened)
    asks = fold(enumerate(log, 1))
    assert asks[opened.ask_id].state == "open" and asks[opened.ask_id].due == "2026-10-01"
    done = decide_change(asks, "done", opened.ask_id, TODAY, by="editor", note='"rooftop"')
    assert isinstance(done, AskClosed)
    assert render_event(done) == f'- done {opened.ask_id} 2026-09-19 by:editor "rooftop"'
    log.append(done)
    asks = fold(enumerate(log, 1))
    assert decide_change(asks, "dropped", opened.ask_id, TODAY) is None
    reopened = decide_change(asks, "reopen", opened.ask_id.upper(), TODAY)
    assert isinstance(reopened, AskReopened)
    log.append(reopened)
    asks = fold(enumerate(log, 1))
    assert asks[opened.ask_id].state == "open"
    assert decide_change(asks, "reopen", opened.ask_id, TODAY) is None
    assert render_file(log).startswith(FORMAT_HEADER + "\n")


def test_open_of_an_open_text_is_a_no_op() -> None:
    asks = asks_of("- open a1b2c3 2026-09-01 Choose the venue\n")
    assert decide_open(asks, " choose  THE venue ", None, TODAY, minter()) is None


def test_open_never_reuses_an_id() -> None:
    asks = asks_of("- open a1b2c3 2026-09-01 Choose the venue\n")
    ids = iter(["a1b2c3", "a1b2c3", "0f0f0f"])
    opened = decide_open(asks, "Other", None, TODAY, lambda: next(ids))
    assert opened is not None and opened.ask_id == "0f0f0f"


def test_unknown_id_raises() -> None:
    with pytest.raises(UnknownAsk) as raised:
        decide_change({}, "done", "abcdef", TODAY)
    assert raised.value.ask_id == "abcdef"


def test_bad_kind_or_writer_raises() -> None:
    asks = asks_of("- open a1b2c3 2026-09-01 Choose the venue\n")
    with pytest.raises(InvalidInput):
        decide_change(asks, "open", "a1b2c3", TODAY)
    with pytest.raises(InvalidInput):
        decide_change(asks, "done", "a1b2c3", TODAY, by="robot")
    with pytest.raises(InvalidInput):
        decide_open(asks, "  \n ", None, TODAY, minter())


def test_append_normalizes_idless_lines_so_ids_line_up() -> None:
    on_disk = "- open External ask\n"
    events = parse_file(on_disk, TODAY)
    asks = fold(enumerate(events, 1))
    (ask_id,) = asks
    closed = decide_change(asks, "done", ask_id, TODAY, by="user")
    assert closed is not None
    text = render_file([*events, closed])
    assert f"- open {ask_id} 2026-09-19 External ask\n" in text
    assert asks_of(text)[ask_id].state == "done"


def test_newlines_in_notes_never_break_the_one_line_grammar() -> None:
    opened = decide_open({}, "multi\nline\ntext", None, TODAY, minter())
    assert opened is not None
    asks = fold([(1, opened)])
    closed = decide_change(asks, "done", opened.ask_id, TODAY, note='"a\nb"')
    assert closed is not None
    text = append_lines("", [line for e in (opened, closed) if (line := render_event(e))])
    assert text.count("\n") == 3
    ask = asks_of(text)[opened.ask_id]
    assert (ask.text, ask.state, ask.note) == ("multi line text", "done", '"a b"')


def test_append_lines_adds_a_missing_newline_first() -> None:
    assert append_lines("x", ["- y"]) == "x\n- y\n"
    assert append_lines("x\n", []) == "x\n"
