"""Applying a choices document: entry edits through an injected applier, then ask closes.

The archive/merge/index/lesson rules need the durable-entries core (grammars, pointer
summaries, archive events), so they enter as an :class:`EntryChoicesApplier`; the quotes of
the closes and of the lessons are checked here (only verified lessons reach the applier).
Everything returns events for the shell to append with actor ``editor`` — nothing is written
by this module, so a rejected or failed run has nothing to undo.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal, Protocol

from msgspec.structs import replace

from orbital.domain.asks import Asks
from orbital.domain.editor.choices import Applied, Choices, EntryChoices
from orbital.domain.editor.closes import MessagesOf, apply_close_asks
from orbital.domain.editor.lessons import verify_lessons
from orbital.events import Event


@dataclass(frozen=True, slots=True)
class EntriesOutcome:
    """What the entry choices came to."""

    events: tuple[Event, ...] = ()
    applied: tuple[Applied, ...] = ()
    rejected: tuple[str, ...] = ()
    #: Files left alone because they changed since the run's baseline (optimistic concurrency).
    skipped_files: tuple[str, ...] = ()


class EntryChoicesApplier(Protocol):
    """Decides the events for ``archive``, ``merge``, ``index`` (reference §8.3) and the
    verified ``lessons`` (each a new LESSONS entry, :mod:`orbital.domain.editor.lessons`).

    An implementation is bound to the entries state and per-file baselines captured *before*
    the model was called, and must be pure: it returns events and touches nothing. Contract:

    * per file, merges are planned before archives; an id is used at most once; unknown,
      already-used and (DECISIONS/LESSONS) pinned ids are rejected; a merge longer than
      ``1.1 * sum(original lengths) + 20`` (one-lined) is rejected; a DECISIONS/LESSONS merge text
      must parse as exactly one entry of that file;
    * an empty ``pointer`` is replaced by a summary of the entry text;
    * ``index`` equal (after strip) to the current INDEX is rejected ``index: empty or
      unchanged``; otherwise it is applied first, and every old line naming a
      ``*_ARCHIVE.md`` file that the new text no longer mentions is kept;
    * a file whose stream moved since its baseline gets no events and is listed in
      ``skipped_files`` (its choices are neither applied nor rejected).

    Rejections are strings starting with the section and the id(s), e.g. ``archive x: pinned``.
    """

    def __call__(self, choices: EntryChoices, today: dt.date) -> EntriesOutcome: ...


@dataclass(frozen=True, slots=True)
class Application:
    """The events a choices document yields, with what was applied and what was refused."""

    events: tuple[Event, ...]
    applied: tuple[Applied, ...]
    rejected: tuple[str, ...]
    skipped_files: tuple[str, ...]

    @property
    def outcome(self) -> Literal["edited", "no_change"]:
        return "edited" if self.applied else "no_change"


def apply_choices(
    choices: Choices,
    asks: Asks,
    today: dt.date,
    messages_of: MessagesOf,
    apply_entries: EntryChoicesApplier,
) -> Application:
    """Entry choices first (with the lessons whose quote is verified), then the ask closes
    (which need no baseline: they only append)."""
    lessons = verify_lessons(choices.lessons, messages_of)
    entries = apply_entries(replace(choices.entries, lessons=lessons.verified), today)
    closes = apply_close_asks(asks, choices.close_asks, today, messages_of)
    return Application(
        events=entries.events + closes.events,
        applied=entries.applied + closes.applied,
        rejected=choices.rejected + lessons.rejected + entries.rejected + closes.rejected,
        skipped_files=entries.skipped_files,
    )
