"""Shared fixtures for the editor tests (TODAY and the webinar ask as in reference §11.2)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from orbital.domain.asks import Ask, fold
from orbital.domain.editor.apply import EntriesOutcome
from orbital.domain.editor.choices import EntryChoices
from orbital.events import Event
from orbital.events.asks import AskOpened

TODAY = dt.date(2026, 9, 19)
ASK_ID = "a1b2c3"
ASK_TEXT = "Decide the webinar language (EN or ZH)"
USER_SAID = "I talked to my cofounder: the webinar will be in English, final."
ASSISTANT_SAID = "Noted — English it is, and I will ship it today."
VERBATIM = "the webinar will be in English, final"
SESSION_A = "proj_aaaa1111"
SESSION_B = "proj_bbbb2222"


def webinar_asks(*more: Event) -> dict[str, Ask]:
    """The open webinar ask, then ``more`` events folded on top."""
    opened = AskOpened(ask_id=ASK_ID, text=ASK_TEXT, date=dt.date(2026, 9, 18))
    return fold(enumerate([opened, *more], start=1))


def write_jsonl(path: Path, rows: Iterable[Mapping[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def reference_sessions(directory: Path) -> Path:
    """The two sessions of reference §11.2, in Orbital's own row format."""
    write_jsonl(
        directory / f"{SESSION_A}.jsonl",
        [
            {"type": "meta", "session": SESSION_A, "started": "2026-09-18T10:00:00Z"},
            {"role": "user", "source": "user", "content": USER_SAID},
            {"role": "assistant", "source": "management", "content": ASSISTANT_SAID},
        ],
    )
    write_jsonl(directory / f"{SESSION_B}.jsonl", [{"role": "user", "content": "unrelated"}])
    return directory


class RecordingApplier:
    """Stands in for the entries applier: records what it was given, applies nothing."""

    def __init__(self, outcome: EntriesOutcome | None = None) -> None:
        self.outcome = outcome or EntriesOutcome()
        self.calls: list[tuple[EntryChoices, dt.date]] = []

    def __call__(self, choices: EntryChoices, today: dt.date) -> EntriesOutcome:
        self.calls.append((choices, today))
        return self.outcome
