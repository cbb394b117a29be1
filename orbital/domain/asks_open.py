"""An agent's ``- open`` (§6.5), and what keeps a dropped ask dropped in any wording.

Three outcomes besides the refusals for a reworded id or an open duplicate:

- *refused*: the text certainly repeats a dropped ask (the same text, or a restatement by
  :mod:`orbital.domain.rephrase`); the agent is told the dropped ask's id, date and the
  person's words. Naming the ask it differs from changes nothing.
- *held*: the text possibly repeats one (:mod:`orbital.domain.resemble`): not appended; the
  agent is told which dropped ask it resembles and that, if it really is a different thing,
  it may write it again naming that ask (``distinct from <id>``).
- *accepted*: a fresh id and today's date; an open written ``distinct from`` the asks it
  resembles records that claim in its event, for the person to judge.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TypeGuard

from orbital.domain.asks import (
    Ask,
    Asks,
    Decision,
    DroppedIndex,
    Minter,
    OpenIndex,
    dropped_match,
    dropped_resembled,
    index_dropped,
    mint_id,
    open_with_text,
)
from orbital.events import Event
from orbital.events.asks import AskOpened, AskOpenRefused
from orbital.grammar.text import one_line

#: The audit reason of a held line.
HELD = "held"


def is_held(event: Event) -> TypeGuard[AskOpenRefused]:
    """Whether ``event`` is the audit of a line held, not appended."""
    return isinstance(event, AskOpenRefused) and event.reason == HELD


def _in_their_words(ask: Ask) -> str:
    """The person's words when they dropped ``ask``, if they gave any."""
    return f" (their words: {ask.note})" if ask.note else ""


def held_message(text: str, ask: Ask) -> str:
    """What the agent is told of a held line: the dropped ask it resembles, and how to say it
    is a different thing."""
    return (
        f'ASKS.md: held, not added — "{one_line(text)[:80]}" may be [{ask.id}] "{ask.text}", '
        f"which the user dropped on {ask.updated.isoformat()}{_in_their_words(ask)}. If it "
        f"really is a different thing, write it again naming that ask: `- open <text> "
        f"(distinct from {ask.id})` (CLI --distinct-from {ask.id}, MCP and HTTP distinct_from)."
    )


def _refusal(
    asks: Asks,
    text: str,
    typed_id: str | None,
    dropped: DroppedIndex,
    open_index: OpenIndex | None,
    distinct_from: Sequence[str],
) -> tuple[str, str, str] | None:
    """Why an agent's ``- open`` of ``text`` is refused or held, as (reason, the ask it
    names, the agent's message), or None when it may open."""
    if typed_id is not None and typed_id in asks:
        return (
            "reworded",
            typed_id,
            f"ASKS.md: [{typed_id}] can't be reworded — close it and open a new ask if it changed.",
        )
    duplicate = open_with_text(asks, text, open_index)
    if duplicate is not None:
        return (
            "duplicate_open",
            duplicate.id,
            f"ASKS.md: [{duplicate.id}] is already open with that text — not added again.",
        )
    repeated = dropped_match(asks, text, dropped)
    if repeated is not None:
        return (
            "dropped",
            repeated.id,
            f"ASKS.md: not added — the user dropped this as [{repeated.id}] on "
            f"{repeated.updated.isoformat()}{_in_their_words(repeated)}; never re-propose it. "
            f'If the user asked for it again, add `- reopen {repeated.id} "<their words>"`.',
        )
    resembled = dropped_resembled(text, dropped, besides=distinct_from)
    if resembled is not None:
        return HELD, resembled.id, held_message(text, resembled)
    return None


def decide_agent_open(
    asks: Asks,
    text: str,
    due: str | None,
    today: dt.date,
    mint: Minter,
    typed_id: str | None = None,
    dropped_index: DroppedIndex | None = None,
    open_index: OpenIndex | None = None,
    distinct_from: Sequence[str] = (),
) -> Decision:
    """An agent's ``- open`` (§6.5): refused when it rewords a known id, repeats an open ask or
    repeats a dropped one (exactly or rephrased); held when it possibly repeats a dropped one
    it does not say it differs from; otherwise a fresh id and today's date.

    ``typed_id`` is the id the agent wrote on the line, if any: only used to detect rewording.
    ``distinct_from``: the dropped asks the agent says this one differs from; those among the
    dropped asks it resembles are recorded on the event.
    """
    text = one_line(text)
    if not text:
        return Decision()
    dropped = dropped_index if dropped_index is not None else index_dropped(asks)
    claimed = tuple(dict.fromkeys(i.strip().lower() for i in distinct_from if i.strip()))
    refused = _refusal(asks, text, typed_id, dropped, open_index, claimed)
    if refused is not None:
        reason, ask_id, message = refused
        audit = AskOpenRefused(text=text, reason=reason, message=message, ask_id=ask_id, due=due)
        return Decision(audit=[audit], warnings=[message])
    resembled = set(dropped.by_resemblance.restated_by(text)) if claimed else set()
    ask_id = mint_id(mint, asks)
    claim = tuple(i for i in claimed if i in resembled)
    return Decision(
        events=[AskOpened(ask_id=ask_id, text=text, date=today, due=due, distinct_from=claim)]
    )
