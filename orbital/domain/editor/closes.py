"""Quote-checked ask closes: the editor may mark an ask done only with the user's own words.

Per proposed close (reference §8.4, rejection texts verbatim):

1. not an object ⇒ ``close_asks: not an object`` (found while parsing the choices);
2. the id (stripped, lowercased) must be open ⇒ else ``close_asks <id>: not an open ask``;
3. the quote, whitespace-normalised, must be 1 to 500 chars ⇒ else ``…: missing or oversized
   quote``;
4. the session must be a bare name (:func:`~orbital.domain.transcripts.is_session_name`) ⇒ else
   ``…: bad session '<s>'``;
5. the quote must be a case-sensitive substring of one of the user's messages of that session,
   both sides whitespace-normalised ⇒ else ``…: quote not in the user's messages of <s>``. Only
   words the user typed count (see :mod:`orbital.domain.transcripts`); a missing session has
   no messages.

Beyond the reference — **the topic rule for short quotes.** A bare "yes" occurs in almost
every session, so on its own it proves nothing about *this* ask. A quote is *short* when it
has fewer than 3 words, or when, lowercased and stripped of punctuation, it is one of
:data:`~orbital.domain.quotes.ACKNOWLEDGEMENTS` ("sounds good", "go ahead", "let's do it"…).
A short quote is accepted only if a user message containing it also names the ask's topic: it
shares at least one *content word* with the ask text — a word of 4 or more letters, compared
case-insensitively, that is not in :data:`~orbital.domain.quotes.STOP_WORDS` (both shared with
the agent's verified quotes, :mod:`orbital.domain.quotes`). Otherwise: ``…: short quote "<q>"
does not name the ask's topic in <s>``. So "yes" from "yes, go with English for the webinar"
closes "Decide the webinar language (EN or ZH)" (they share "webinar"), while a message that
is only "yes" does not. (Scripts without spaces between words form one long "word" per run,
so there the rule asks for a message that repeats a run of the ask text; a longer quote is
the better evidence.)

An accepted close is ``AskClosed(kind="done", by="editor", note='"<quote>"')``. The editor can
only mark asks done, never dropped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from orbital.domain.ask_requests import decide_change
from orbital.domain.asks import Ask, Asks, fold
from orbital.domain.editor.choices import Applied, CloseAskChoice
from orbital.domain.quotes import content_words, is_short_quote
from orbital.domain.transcripts import is_session_name
from orbital.errors import OrbitalError
from orbital.events.asks import AskClosed
from orbital.grammar.text import one_line

#: Session name -> the messages the user typed in it (empty when the session does not exist).
MessagesOf = Callable[[str], Sequence[str]]

QUOTE_MAX = 500


@dataclass(frozen=True, slots=True)
class CloseOutcome:
    """What a batch of proposed closes came to: events to append (actor ``editor``)."""

    events: tuple[AskClosed, ...] = ()
    applied: tuple[Applied, ...] = ()
    rejected: tuple[str, ...] = ()


def _names_topic(message: str, ask: Ask) -> bool:
    return bool(content_words(message) & content_words(ask.text))


def verify_close(
    asks: Asks, item: CloseAskChoice, today: dt.date, messages_of: MessagesOf
) -> AskClosed | str:
    """The close event for a proposed close, or the reason it is rejected."""
    ask_id = item.id.strip().lower()
    label = f"close_asks {ask_id or '?'}"
    ask = asks.get(ask_id)
    if ask is None or ask.state != "open":
        return f"{label}: not an open ask"
    quote = one_line(item.quote)
    if not quote or len(quote) > QUOTE_MAX:
        return f"{label}: missing or oversized quote"
    session = item.session
    if not is_session_name(session):
        return f"{label}: bad session '{session}'"
    try:
        messages = [one_line(m) for m in messages_of(session)]
    except OrbitalError as exc:
        return f"{label}: session {session} unreadable: {exc}"
    holding = [m for m in messages if quote in m]
    if not holding:
        return f"{label}: quote not in the user's messages of {session}"
    if is_short_quote(quote) and not any(_names_topic(m, ask) for m in holding):
        return f'{label}: short quote "{quote}" does not name the ask\'s topic in {session}'
    try:
        event = decide_change(asks, "done", ask.id, today, by="editor", note=f'"{quote}"')
    except OrbitalError as exc:
        return f"{label}: {exc}"
    assert isinstance(event, AskClosed), "an open ask closes into an AskClosed"
    return event


def apply_close_asks(
    asks: Asks, items: Sequence[CloseAskChoice], today: dt.date, messages_of: MessagesOf
) -> CloseOutcome:
    """Check every proposed close in order; an ask closed earlier in the batch is not open."""
    current = dict(asks)
    events: list[AskClosed] = []
    applied: list[Applied] = []
    rejected: list[str] = []
    for item in items:
        verdict = verify_close(current, item, today, messages_of)
        if isinstance(verdict, str):
            rejected.append(verdict)
            continue
        events.append(verdict)
        applied.append(Applied(kind="close_ask", id=verdict.ask_id, session=item.session))
        current = fold([(current[verdict.ask_id].seq, verdict)], current)
    return CloseOutcome(tuple(events), tuple(applied), tuple(rejected))
