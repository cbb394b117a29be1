"""The person's, a command's and the editor's asks actions (reference §6.6): open, close,
reopen on request, and the person's answer to a reopen held for them. Pure, like
:mod:`orbital.domain.asks` (the agent's deciders)."""

from __future__ import annotations

import datetime as dt

from orbital.domain.asks import Asks, CloseKind, Minter, OpenIndex, mint_id, open_with_text
from orbital.errors import InvalidInput, Refused, UnknownAsk
from orbital.events import Actor
from orbital.events.asks import AskClosed, AskOpened, AskReopenDeclined, AskReopened
from orbital.grammar.asks_md import valid_due
from orbital.grammar.text import one_line

WRITERS = ("user", "agent", "editor")


def check_request(text: str, due: str | None) -> None:
    """What a person or a command asks to open must be usable: a text, and a due date that
    is a real ``YYYY-MM-DD`` (optionally ``THH:MM``), since views compare it as a date."""
    if not one_line(text):
        raise InvalidInput("an ask needs a text")
    if due is not None and not valid_due(due):
        raise InvalidInput(
            f"due {due!r} is not a date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM (a real day)"
        )


def decide_open(
    asks: Asks,
    text: str,
    due: str | None,
    today: dt.date,
    mint: Minter,
    open_index: OpenIndex | None = None,
) -> AskOpened | None:
    """Open an ask on request; ``None`` when an ask with the same text is already open."""
    check_request(text, due)
    text = one_line(text)
    if open_with_text(asks, text, open_index) is not None:
        return None
    return AskOpened(ask_id=mint_id(mint, asks), text=text, date=today, due=due)


def decide_reopen_proposal(
    asks: Asks, ask_id: str, confirm: bool, today: dt.date, actor: Actor, note: str = ""
) -> AskReopened | AskReopenDeclined:
    """The person's answer to a reopen held for them: confirmed, the ask is reopened by the
    person with the proposer's words; declined, it stays dropped. Only the person answers."""
    if actor is not Actor.USER:
        raise Refused(
            f"only the person can confirm or decline the reopen of [{ask_id}] ({actor} asked)"
        )
    ask = asks.get(ask_id.strip().lower())
    if ask is None:
        raise UnknownAsk(ask_id)
    if ask.proposal is None:
        raise Refused(f"[{ask.id}] has no reopen waiting on you")
    if confirm:
        return AskReopened(ask_id=ask.id, date=today, by="user", note=ask.proposal)
    return AskReopenDeclined(ask_id=ask.id, date=today, note=one_line(note))


def decide_change(
    asks: Asks,
    kind: str,
    ask_id: str,
    today: dt.date,
    by: str = "user",
    note: str = "",
) -> AskClosed | AskReopened | None:
    """Close (``done``/``dropped``) or ``reopen`` an ask on request.

    Closing a closed ask or reopening an open one is a no-op (``None``). Raises
    :class:`InvalidInput` for a bad kind or writer and :class:`UnknownAsk` for an unknown id.
    """
    if kind not in ("done", "dropped", "reopen"):
        raise InvalidInput(f"unknown ask action {kind!r}: use done, dropped or reopen")
    if by not in WRITERS:
        raise InvalidInput(f"unknown writer {by!r}: use one of {', '.join(WRITERS)}")
    ask = asks.get(ask_id.strip().lower())
    if ask is None:
        raise UnknownAsk(ask_id)
    note = one_line(note)
    if kind == "reopen":
        if ask.state == "open":
            return None
        return AskReopened(ask_id=ask.id, date=today, by=by, note=note)
    if ask.state != "open":
        return None
    close_kind: CloseKind = "done" if kind == "done" else "dropped"
    return AskClosed(ask_id=ask.id, kind=close_kind, date=today, by=by, note=note)
