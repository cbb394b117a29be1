"""Lessons from the person's corrections: what the editor may add, and only on their words.

The second product's rule — "you make a correction once and the system keeps it as a lesson"
— is the one place the editor adds text. At session end it may propose lessons from that
session's transcript; each carries the person's words, checked as an agent's quote is
(:meth:`~orbital.domain.quotes.UserWords.check_quote`: only what the person typed, folded the
same way, a short quote naming the lesson's topic). Per proposed lesson, in order:

1. not an object ⇒ ``lessons: not an object`` (found while parsing the choices);
2. a title (one line, at most :data:`TITLE_MAX` characters) and a text (at most
   :data:`TEXT_MAX`) ⇒ else ``lessons "<title>": missing or oversized title or text``;
3. more than :data:`PER_PASS` in one pass ⇒ ``…: at most 3 lessons a pass``;
4. the quote, one-lined, 1 to 500 characters ⇒ else ``…: missing or oversized quote``;
5. the session a bare name ⇒ else ``…: bad session '<s>'``;
6. the quote the person's words in that session ⇒ else ``…: <why, as an agent is told>``.

A verified lesson becomes a LESSONS entry (:func:`lesson_text`) whose last line says it is the
editor's proposal and quotes the person, so the person sees whose it is and can dispute or
retract it like any entry; the entries applier refuses one that repeats a live lesson's title
or says again what the person retracted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orbital.domain.editor.choices import LessonChoice
from orbital.domain.editor.closes import QUOTE_MAX, MessagesOf
from orbital.domain.quotes import UserWords
from orbital.domain.transcripts import is_session_name
from orbital.errors import OrbitalError
from orbital.grammar.text import one_line

PER_PASS = 3
TITLE_MAX = 120
TEXT_MAX = 1_000


@dataclass(frozen=True, slots=True)
class CheckedLessons:
    verified: tuple[LessonChoice, ...] = ()
    rejected: tuple[str, ...] = ()


def label(item: LessonChoice) -> str:
    return f'lessons "{one_line(item.title)[:60] or "?"}"'


def _verify(item: LessonChoice, messages_of: MessagesOf) -> LessonChoice | str:
    title, text, quote = one_line(item.title), item.text.strip(), one_line(item.quote)
    if not title or len(title) > TITLE_MAX or not text or len(text) > TEXT_MAX:
        return f"{label(item)}: missing or oversized title or text"
    if not quote or len(quote) > QUOTE_MAX:
        return f"{label(item)}: missing or oversized quote"
    if not is_session_name(item.session):
        return f"{label(item)}: bad session '{item.session}'"
    try:
        words = UserWords.of(messages_of(item.session))
    except OrbitalError as exc:
        return f"{label(item)}: session {item.session} unreadable: {exc}"
    check = words.check_quote(quote, f"{title} {text}")
    if not check.verified:
        return f"{label(item)}: {words.why(check)} ({item.session})"
    return LessonChoice(title=title, text=text, session=item.session, quote=quote)


def verify_lessons(items: Sequence[LessonChoice], messages_of: MessagesOf) -> CheckedLessons:
    """The lessons whose quote is the person's words, and why the others are refused."""
    verified: list[LessonChoice] = []
    rejected: list[str] = []
    for item in items:
        checked = _verify(item, messages_of)
        if isinstance(checked, str):
            rejected.append(checked)
        elif len(verified) == PER_PASS:
            rejected.append(f"{label(item)}: at most {PER_PASS} lessons a pass")
        else:
            verified.append(checked)
    return CheckedLessons(tuple(verified), tuple(rejected))


def lesson_text(item: LessonChoice) -> str:
    """The LESSONS entry of a verified lesson (numbered when the file is rendered): its title,
    its text, and the line saying whose proposal it is, with the person's words."""
    mark = (
        f"Proposed by the memory editor from the person's correction in session "
        f'{item.session}: "{item.quote}"'
    )
    return f"1. {item.title}\n{item.text}\n{mark}\n"
