"""The agent write path (reference §11.1 cases 7-20) and the fuzzy dropped refusal."""

from __future__ import annotations

from orbital.domain.asks_write import WriteResult, decide_agent_append, decide_agent_write
from orbital.events import Actor
from orbital.events.asks import AskClosed, AskOpened, AskOpenRefused
from orbital.grammar.asks_md import FORMAT_HEADER, parse_file, render_file
from tests.asks.helpers import PREV, TODAY, asks_of, minter


def write(new: str, prev: str = PREV) -> WriteResult:
    return decide_agent_write(asks_of(prev), prev, new, TODAY, minter(), actor=Actor.AGENT)


def test_new_open_is_stamped_and_appended() -> None:
    result = write(PREV + "- open due:2026-10-02 Book the flights\n")
    assert result.text.startswith(PREV)
    (event,) = result.events
    assert isinstance(event, AskOpened)
    assert (event.date, event.due, event.text) == (TODAY, "2026-10-02", "Book the flights")
    assert (
        result.text == PREV + f"- open {event.ask_id} 2026-09-19 due:2026-10-02 Book the flights\n"
    )
    assert any(f"[{event.ask_id}]" in w for w in result.warnings)
    assert asks_of(result.text)[event.ask_id].opened == TODAY


def test_note_quotes_the_stamped_last_line_for_the_next_edit() -> None:
    result = write(PREV + "- open Book the flights\n")
    last = result.text.rstrip("\n").split("\n")[-1]
    assert result.lines == [last]
    assert result.warnings[-1].endswith(f"ends with: {last}")
    (event,) = result.events
    assert isinstance(event, AskOpened)
    assert result.warnings[-1].startswith(f"ASKS.md: opened [{event.ask_id}].")


def test_deleted_and_altered_lines_are_restored_with_a_warning() -> None:
    new = (
        f"{FORMAT_HEADER}\n"
        "- open a1b2c3 2026-09-01 Choose the venue (rooftop)\n"
        '- done a1b2c3 "rooftop, final"\n'
    )
    result = write(new)
    assert result.text.startswith(PREV)
    asks = asks_of(result.text)
    assert asks["d4e5f6"].state == "open"
    assert (asks["a1b2c3"].state, asks["a1b2c3"].closed_by) == ("done", "agent")
    assert result.warnings[0] == (
        "ASKS.md is append-only: restored 2 line(s) you removed or changed. Record a change as "
        'a new line instead, e.g. `- done <id> "<the user\'s words>"`.'
    )


def test_close_is_forced_to_by_agent_and_dated_today() -> None:
    result = write(PREV + '- done d4e5f6 2020-01-01 by:user "sent it this morning"\n')
    assert result.text.endswith('- done d4e5f6 2026-09-19 by:agent "sent it this morning"\n')
    assert result.events == [
        AskClosed(
            ask_id="d4e5f6", kind="done", date=TODAY, by="agent", note='"sent it this morning"'
        )
    ]


def test_reopen_is_forced_to_by_agent_too() -> None:
    prev = PREV + "- dropped d4e5f6 2026-09-03 by:editor\n"
    result = write(prev + '- reopen d4e5f6 2026-01-01 by:user "do send it"\n', prev)
    assert result.text == prev + '- reopen d4e5f6 2026-09-19 by:agent "do send it"\n'


def test_close_without_quote_is_kept_but_warned() -> None:
    result = write(PREV + "- done d4e5f6 sent\n")
    assert asks_of(result.text)["d4e5f6"].state == "done"
    assert (
        "ASKS.md: closed [d4e5f6] without quoting the user — close an ask only with the user's "
        "own words in quotes."
    ) in result.warnings


def test_close_with_cjk_quotes_is_not_warned() -> None:
    result = write(PREV + "- done d4e5f6 「发了」\n")
    assert not any("without quoting" in w for w in result.warnings)


def test_close_of_unknown_id_is_rejected() -> None:
    result = write(PREV + '- done 999999 "yes"\n')
    assert result.text == PREV
    assert result.events == result.audit == []
    assert result.warnings == [
        "ASKS.md: ignored `done` — no ask with id 999999; use an id from the Open asks list."
    ]


def test_close_without_id_names_the_missing_id() -> None:
    result = write(PREV + '- dropped "no"\n')
    assert result.text == PREV
    assert result.warnings == [
        "ASKS.md: ignored `dropped` — no ask with id (missing); use an id from the Open asks list."
    ]


def test_already_closed_and_already_open_are_refused() -> None:
    prev = PREV + "- done a1b2c3 2026-09-03 by:user\n"
    result = write(prev + '- dropped a1b2c3 "x"\n- reopen d4e5f6\n', prev)
    assert result.text == prev
    assert result.warnings == [
        "ASKS.md: [a1b2c3] is already done — not closed again.",
        "ASKS.md: [d4e5f6] is already open.",
    ]


def test_duplicate_open_text_is_skipped() -> None:
    result = write(PREV + "- open Choose the venue\n")
    assert result.text == PREV
    assert result.events == []
    message = "ASKS.md: [a1b2c3] is already open with that text — not added again."
    assert result.warnings == [message]
    assert result.audit == [
        AskOpenRefused(
            text="Choose the venue", reason="duplicate_open", message=message, ask_id="a1b2c3"
        )
    ]


def test_reopening_a_dropped_text_is_refused() -> None:
    prev = PREV + "- dropped d4e5f6 2026-09-03 by:user\n"
    result = write(prev + "- open Send the deck\n", prev)
    assert result.text == prev
    message = (
        "ASKS.md: not added — the user dropped this as [d4e5f6] on 2026-09-03; never re-propose "
        'it. If the user asked for it again, add `- reopen d4e5f6 "<their words>"`.'
    )
    assert result.warnings == [message]
    assert result.events == []
    assert result.audit == [
        AskOpenRefused(text="Send the deck", reason="dropped", message=message, ask_id="d4e5f6")
    ]


def test_rephrased_dropped_ask_is_refused() -> None:
    prev = (
        f"{FORMAT_HEADER}\n"
        "- open d4e5f6 2026-09-02 send the deck\n"
        "- dropped d4e5f6 2026-09-03 by:user\n"
    )
    for attempt in ("Send the deck!", "Send the decks", "send: the deck"):
        result = write(prev + f"- open {attempt}\n", prev)
        assert result.text == prev, attempt
        assert result.events == []
        (audit,) = result.audit
        assert isinstance(audit, AskOpenRefused)
        assert (audit.reason, audit.ask_id, audit.text) == ("dropped", "d4e5f6", attempt)
        assert "dropped this as [d4e5f6] on 2026-09-03" in result.warnings[0]
        assert '`- reopen d4e5f6 "<their words>"`' in result.warnings[0]


def test_unrelated_text_is_not_refused_as_dropped() -> None:
    prev = PREV + "- dropped d4e5f6 2026-09-03 by:user\n"
    result = write(prev + "- open Book the flights\n", prev)
    assert len(result.events) == 1 and result.audit == []


def test_done_text_may_be_opened_again() -> None:
    prev = PREV + '- done d4e5f6 2026-09-03 by:user "sent"\n'
    result = write(prev + "- open Send the deck\n", prev)
    (event,) = result.events
    assert isinstance(event, AskOpened) and event.ask_id != "d4e5f6"


def test_rewording_a_known_id_is_refused() -> None:
    result = write(PREV + "- open a1b2c3 2026-09-19 Choose the rooftop\n")
    assert result.text == PREV
    message = "ASKS.md: [a1b2c3] can't be reworded — close it and open a new ask if it changed."
    assert result.warnings == [message]
    assert [a.reason for a in result.audit if isinstance(a, AskOpenRefused)] == ["reworded"]


def test_typed_unknown_id_and_date_are_discarded() -> None:
    result = write(PREV + "- open abcdef 2020-01-01 Book the flights\n")
    (event,) = result.events
    assert isinstance(event, AskOpened)
    assert event.date == TODAY


def test_legacy_user_bullet_becomes_an_open_ask() -> None:
    result = write(PREV + "- [user due:2026-10-03] Approve the budget\n")
    (event,) = result.events
    assert isinstance(event, AskOpened)
    assert (event.text, event.due) == ("Approve the budget", "2026-10-03")
    assert asks_of(result.text)[event.ask_id].due == "2026-10-03"


def test_prose_is_dropped_with_a_warning() -> None:
    result = write(PREV + "I think we should also book the flights.\n")
    assert result.text == PREV
    assert result.warnings == [
        'ASKS.md: ignored "I think we should also book the flights." — not an ask event. Add '
        '`- open <text>`, or `- done <id> "<the user\'s words>"`.'
    ]


def test_whole_file_overwrite_with_one_line_appends_it() -> None:
    result = write("- open Pick a date\n")
    assert result.text.startswith(PREV)
    assert "Pick a date" in result.text.rstrip("\n").split("\n")[-1]
    assert "restored 2 line(s)" in result.warnings[0]


def test_new_file_gets_the_header() -> None:
    result = decide_agent_write({}, "", "- open Pick a date\n", TODAY, minter(), actor=Actor.AGENT)
    assert result.text.startswith(FORMAT_HEADER + "\n")
    assert [a.text for a in asks_of(result.text).values()] == ["Pick a date"]
    assert result.text == render_file(result.events)


def test_moved_line_is_not_reprocessed() -> None:
    lines = PREV.split("\n")
    swapped = "\n".join([lines[0], lines[2], lines[1], ""])
    result = write(swapped)
    assert result.text == PREV
    assert result.events == result.audit == []
    assert result.warnings == []


def test_unchanged_file_is_byte_identical() -> None:
    result = write(PREV)
    assert result.text == PREV and result.warnings == []


def test_crlf_proposal_is_not_a_rewrite() -> None:
    result = write(PREV.replace("\n", "\r\n") + "- open Book the flights\r\n")
    assert result.text.startswith(PREV)
    assert not any("restored" in w for w in result.warnings)
    assert len(result.events) == 1


def test_idless_lines_on_disk_are_stamped_in_place() -> None:
    on_disk = PREV + "- open Written by an external agent\n"
    canonical = render_file(parse_file(on_disk, TODAY))
    assert "- open Written by an external agent\n" not in canonical
    stamped = [line for line in canonical.split("\n") if "Written by" in line]
    assert len(stamped) == 1
    assert stamped[0].endswith(" 2026-09-19 Written by an external agent")
    result = write(canonical + '- done a1b2c3 "rooftop"\n', canonical)
    assert result.text == canonical + '- done a1b2c3 2026-09-19 by:agent "rooftop"\n'


def test_two_opens_of_the_same_text_in_one_write() -> None:
    result = write(PREV + "- open Book the flights\n- open book  the flights\n")
    assert len(result.events) == 1
    assert len(result.audit) == 1
    assert "is already open with that text" in result.warnings[0]


def test_open_date_is_today_for_every_new_open() -> None:
    result = write(PREV + "- open A\n- open B\n")
    assert [e.date for e in result.events if isinstance(e, AskOpened)] == [TODAY, TODAY]
    assert len({e.ask_id for e in result.events if isinstance(e, AskOpened)}) == 2


def refusals(result: WriteResult) -> list[str]:
    """The reason of each audit event (an audit of another kind shows as its type, and fails)."""
    return [a.reason if isinstance(a, AskOpenRefused) else type(a).__name__ for a in result.audit]


def test_later_lines_see_what_earlier_lines_of_the_same_write_changed() -> None:
    dropped_then_repeated = write(
        PREV + '- dropped d4e5f6 "no deck, they said"\n- open Send the decks\n'
    )
    assert [type(e) for e in dropped_then_repeated.events] == [AskClosed]
    assert refusals(dropped_then_repeated) == ["dropped"]
    prev = PREV + "- dropped d4e5f6 2026-09-10 by:agent\n"
    reopened_then_repeated = write(prev + '- reopen d4e5f6 "send it"\n- open Send the deck\n', prev)
    assert refusals(reopened_then_repeated) == ["duplicate_open"]
    closed_then_reopened = write(
        PREV + '- done a1b2c3 "booked"\n- open Choose the venue\n- open Choose the venue\n'
    )
    assert [type(e) for e in closed_then_reopened.events] == [AskClosed, AskOpened]
    assert refusals(closed_then_reopened) == ["duplicate_open"]


def test_the_append_entry_decides_what_the_full_text_entry_decides() -> None:
    added = (
        '- done a1b2c3 "booked"\n- open Choose the venue\n- open Send the deck\n'
        "- open Choose the venue\n- open Book the flights\n" + PREV.splitlines(keepends=True)[1]
    )
    full = write(PREV + added)
    appended = decide_agent_append(
        asks_of(PREV), set(PREV.split("\n")), added, TODAY, minter(), actor=Actor.AGENT
    )
    assert (appended.events, appended.audit, appended.lines, appended.warnings) == (
        full.events,
        full.audit,
        full.lines,
        full.warnings,
    )
    assert full.text == PREV + "".join(f"{line}\n" for line in full.lines)
