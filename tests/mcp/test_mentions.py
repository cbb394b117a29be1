"""What a reference names: mentions with their file, bare ids among entries then asks."""

from __future__ import annotations

import datetime as dt

import pytest

from orbital.domain.asks import Ask
from orbital.errors import InvalidInput, UnknownAsk, UnknownEntry
from projections.mentions import Mention, parse_mention, resolve_mention
from projections.workbench import EntryRow

DAY = dt.date(2026, 9, 19)


def row(file: str, entry_id: str) -> EntryRow:
    return EntryRow(file, entry_id, entry_id, "text", "live", False, DAY, DAY, None, [])


ENTRIES = [row("decisions", "use-postgres"), row("lessons", "7")]
ASKS = {"a1b2c3": Ask("a1b2c3", "Pick", None, DAY, "open", DAY, None, "", 1)}


@pytest.mark.parametrize(
    ("ref", "mention"),
    [
        ("use-postgres", Mention("use-postgres")),
        (" @decision.use-postgres ", Mention("use-postgres", "decisions")),
        ("@Lesson.7", Mention("7", "lessons")),
        ("@ask.A1B2C3", Mention("A1B2C3", "asks")),
    ],
)
def test_parse(ref: str, mention: Mention) -> None:
    assert parse_mention(ref) == mention


@pytest.mark.parametrize("ref", ["", "two words", "@note.x", "@decision", "@decision.", "@ask"])
def test_parse_refuses(ref: str) -> None:
    with pytest.raises(InvalidInput):
        parse_mention(ref)


def test_resolve() -> None:
    assert resolve_mention(Mention("use-postgres"), ENTRIES, ASKS) is ENTRIES[0]
    assert resolve_mention(Mention("7", "lessons"), ENTRIES, ASKS) is ENTRIES[1]
    assert resolve_mention(Mention("A1B2C3", "asks"), ENTRIES, ASKS) is ASKS["a1b2c3"]
    assert resolve_mention(Mention("a1b2c3"), ENTRIES, ASKS) is ASKS["a1b2c3"]
    with pytest.raises(UnknownEntry):
        resolve_mention(Mention("7", "decisions"), ENTRIES, ASKS)
    with pytest.raises(UnknownEntry):
        resolve_mention(Mention("nothing"), ENTRIES, ASKS)
    with pytest.raises(UnknownAsk):
        resolve_mention(Mention("ffffff", "asks"), ENTRIES, ASKS)
