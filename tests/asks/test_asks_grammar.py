"""Fold and grammar (reference §11.1 cases 1-6, 59, 61) and the file projection."""

from __future__ import annotations

import datetime as dt

from orbital.domain.asks import fold
from orbital.domain.asks_legacy import Retraction, plan_migration
from orbital.events import decode_event, encode_event
from orbital.events.asks import (
    AskBytesReplaced,
    AskClosed,
    AskFileLine,
    AskOpened,
    AskOpenRefused,
    stream_of,
)
from orbital.grammar.asks_md import (
    FORMAT_HEADER,
    AskLine,
    decode_asks_bytes,
    normalize_newlines,
    parse_file,
    parse_line,
    render_event,
    render_file,
    synthetic_id,
)
from tests.asks.helpers import TODAY, asks_of, minter

TRIGGER = (
    'or a decision the user put off for later ("I\'ll decide after …") while you carry on. '
    "A TBD note in a file or in chat is not an ask — only ASKS.md reaches the user's Workbench."
)

EXAMPLE = (
    f"{FORMAT_HEADER}\n"
    "- open a1b2c3 2026-09-01 Choose the venue\n"
    "- open d4e5f6 2026-09-02 due:2026-10-01 Send the deck\n"
    '- done a1b2c3 2026-09-03 by:agent "go with the rooftop"\n'
    "- dropped d4e5f6 2026-09-04 by:user\n"
    "- reopen d4e5f6 2026-09-05 by:user\n"
)


def test_header_is_one_comment_line_with_the_trigger_sentence() -> None:
    assert FORMAT_HEADER.startswith("<!--format ") and FORMAT_HEADER.endswith("-->")
    assert "\n" not in FORMAT_HEADER and FORMAT_HEADER.count("-->") == 1
    assert TRIGGER in FORMAT_HEADER


def test_state_is_the_last_event() -> None:
    asks = asks_of(EXAMPLE)
    first, second = asks["a1b2c3"], asks["d4e5f6"]
    assert (first.state, first.closed_by, first.note) == ("done", "agent", '"go with the rooftop"')
    assert first.opened == dt.date(2026, 9, 1)
    assert (second.state, second.due, second.text) == ("open", "2026-10-01", "Send the deck")
    assert second.updated == dt.date(2026, 9, 5)
    assert list(asks) == ["a1b2c3", "d4e5f6"]


def test_prose_and_unknown_lines_are_ignored() -> None:
    text = (
        "# Asks\n"
        "Some prose about asks.\n"
        "- a plain bullet\n"
        "- done ffffff 2026-09-01 by:user\n"
        "- open a1b2c3 2026-09-01 Choose the venue\n"
    )
    assert list(asks_of(text)) == ["a1b2c3"]


def test_idless_open_gets_a_stable_text_derived_id() -> None:
    first = asks_of("- open Decide the booth budget\n")
    second = asks_of("- open Decide the booth budget\n")
    assert list(first) == list(second) == ["cd10c4"]
    ask = first["cd10c4"]
    assert (ask.state, ask.text) == ("open", "Decide the booth budget")


def test_idless_open_id_avoids_explicit_ids() -> None:
    taken = synthetic_id("Something", set())
    asks = asks_of(f"- open {taken} 2026-09-01 Other thing\n- open Something\n")
    assert len(asks) == 2
    assert asks[taken].text == "Other thing"
    assert [a.text for a in asks.values()] == ["Other thing", "Something"]


def test_repeated_idless_open_takes_the_next_seed() -> None:
    asks = asks_of("- open Same\n- open same\n")
    assert len(asks) == 2


def test_due_token_anywhere_and_bracketed_ids_are_tolerated() -> None:
    asks = asks_of(
        "- open [a1b2c3] 2026-09-01 Call the vendor due:2026-09-30T15:00\n"
        '- done [a1b2c3] by:agent "called"\n'
    )
    ask = asks["a1b2c3"]
    assert (ask.due, ask.text, ask.state) == ("2026-09-30T15:00", "Call the vendor", "done")


def test_render_round_trips() -> None:
    event = AskOpened(
        ask_id="a1b2c3", text="Send the deck", date=dt.date(2026, 9, 1), due="2026-10-01"
    )
    line = render_event(event)
    assert line == "- open a1b2c3 2026-09-01 due:2026-10-01 Send the deck"
    assert parse_file(f"{line}\n", TODAY) == [event]


def test_lenient_forms_parse() -> None:
    assert parse_line("  * done [A1B2C3] by:User 2026-09-03 ok") == AskLine(
        "done", "a1b2c3", dt.date(2026, 9, 3), "ok", by="user"
    )
    assert parse_line("- open facade redesign") == AskLine("open", None, None, "facade redesign")
    assert parse_line("- open a1b2c3 2026-02-30 Bad date") == AskLine(
        "open", "a1b2c3", None, "Bad date"
    )
    assert parse_line("- Open a1b2c3 2026-09-01 x") is None
    assert parse_line("- opened a thing") is None
    assert parse_line("- done") == AskLine("done", None, None, "")


def test_close_without_by_is_not_the_users_consent() -> None:
    asks = asks_of("- open a1b2c3 2026-09-01 x\n- done a1b2c3 2026-09-02\n")
    assert asks["a1b2c3"].closed_by == "agent"


def test_hand_written_file_keeps_its_other_lines() -> None:
    text = (
        f"{FORMAT_HEADER}\n"
        "# Things for the user\n"
        "\n"
        "- open a1b2c3 2026-09-01 Choose the venue\n"
        "Some prose.\n"
        "- done ffffff 2026-09-01 by:user\n"
        "- done\n"
    )
    events = parse_file(text, TODAY)
    assert sum(isinstance(e, AskFileLine) for e in events) == 5
    assert render_file(events) == text


def test_old_header_is_replaced_and_idless_lines_stamped() -> None:
    text = "<!--format old header-->\n* open Written by an external agent\n"
    rendered = render_file(parse_file(text, TODAY))
    synthetic = synthetic_id("Written by an external agent", set())
    assert rendered == (
        f"{FORMAT_HEADER}\n- open {synthetic} 2026-09-19 Written by an external agent\n"
    )


def test_read_exact_normalises_line_endings() -> None:
    assert normalize_newlines("a\r\nb\r\n") == ("a\nb\n", True)
    assert normalize_newlines("a\nb\n") == ("a\nb\n", False)
    assert normalize_newlines("a\rb") == ("a\nb", True)


def test_crlf_log_keeps_one_line_per_event() -> None:
    crlf = "- open a1b2c3 2026-09-01 Choose the venue\r\n- done a1b2c3 2026-09-02 by:user\r\n"
    events = parse_file(crlf, TODAY)
    assert len(events) == 2 and isinstance(events[1], AskClosed)
    rendered = render_file(events)
    assert "\n\n" not in rendered and "\r" not in rendered
    assert asks_of(crlf)["a1b2c3"].state == "done"


def test_undecodable_bytes_are_replaced_and_audited() -> None:
    raw = b"- open a1b2c3 2026-09-01 Caf\xe9\r\nprose \xff\xfe\n- open d4e5f6 2026-09-02 ok\n"
    text, audits = decode_asks_bytes(raw)
    assert (
        text
        == "- open a1b2c3 2026-09-01 Caf\ufffd\nprose \ufffd\ufffd\n- open d4e5f6 2026-09-02 ok\n"
    )
    assert audits == [
        AskBytesReplaced(line=1, raw_hex=b"- open a1b2c3 2026-09-01 Caf\xe9".hex()),
        AskBytesReplaced(line=2, raw_hex=b"prose \xff\xfe".hex()),
    ]
    assert bytes.fromhex(audits[1].raw_hex) == b"prose \xff\xfe"
    assert decode_asks_bytes(b"a\nb\n") == ("a\nb\n", [])


def test_audit_events_have_no_line() -> None:
    assert render_event(AskBytesReplaced(line=1, raw_hex="ff")) is None


def test_ask_events_survive_the_store_encoding() -> None:
    plan = plan_migration({}, [Retraction("5e55c9", "t", "2026-07-26", "no")], [], TODAY, minter())
    events = [e for _, batch in plan for e in batch]
    events += [AskOpenRefused(text="t", reason="dropped", message="m", ask_id="5e55c9")]
    events += [AskFileLine(text="# prose"), AskBytesReplaced(line=2, raw_hex="ff")]
    assert [decode_event(encode_event(e)) for e in events] == events
    assert [stream_of(e) for e in events] == ["ask:5e55c9", "ask:5e55c9", "asks", "asks", "asks"]


def test_open_without_text_is_ignored_even_for_a_known_id() -> None:
    opened = AskOpened(ask_id="a1b2c3", text="x", date=TODAY)
    closed = AskClosed(ask_id="a1b2c3", kind="done", date=TODAY, by="user")
    asks = fold([(1, opened), (2, closed), (3, AskOpened(ask_id="a1b2c3", text="", date=TODAY))])
    assert asks["a1b2c3"].state == "done"
