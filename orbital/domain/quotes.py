"""The user's words, verified: is the quote an agent wrote on a close or reopen something the
user typed in that session?

Pure: the user's messages come in as text (read and classified by
:mod:`orbital.domain.transcripts`); nothing here reads a file.

**What is checked.** The quoted spans of the note — text between ``"…"``, ``“…”``, ``「…」``
or ``『…』`` — each of them (an invented quote beside a real one is not verified). A note with
no complete quoted span has nothing to verify.

**How a span is compared** (both sides folded the same way, :func:`fold`):

* Unicode NFKC, so full-width letters, ligatures and ``…`` read as their plain forms;
* curly and straight quotes and apostrophes are one character each (U+2019 is ``'``): an
  agent retyping ``don't`` with a typographic apostrophe did not change the user's words;
* case-insensitive (``casefold``): re-capitalising the first word of a quote is what writers
  do, and no two different answers differ only by case;
* every run of whitespace is one space; punctuation at either end of the quote is ignored
  (``"ship it."`` quotes ``ship it``);
* an ellipsis (``...`` or ``…``) inside a quote marks words left out: the pieces must occur in
  that order **in one message**;
* a piece must start and end on word boundaries: ``"no"`` is not found in ``not now``.

Nothing else is forgiven: a paraphrase, a translation or a corrected typo is not the user's
words. **Short quotes name the ask's topic** (the editor's rule, shared here): a quote of fewer
than 3 words or a bare acknowledgement ("yes", "sounds good") is verified only when a user
message holding it also shares a content word with the ask's text, so a "yes" typed about
something else never verifies a close.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

#: A verdict on a note's quotes: ``verified``, or why not.
Verdict = Literal["verified", "unquoted", "not_found", "off_topic", "unreadable"]

SHORT_QUOTE_WORDS = 3
CONTENT_WORD_MIN = 4
ACKNOWLEDGEMENTS = frozenset(
    {
        "yes", "yeah", "yep", "yup", "ok", "okay", "sure", "done", "fine", "agreed", "correct",
        "right", "exactly", "approved", "confirmed", "go ahead", "go for it", "do it",
        "let's do it", "lets do it", "sounds good", "sounds great", "looks good", "lgtm",
        "ship it", "that works", "works for me", "fine by me", "makes sense", "yes please",
        "ok do it", "perfect", "great", "good", "thanks", "thank you",
    }
)  # fmt: skip
STOP_WORDS = frozenset(
    {
        "about", "above", "after", "again", "also", "been", "before", "being", "both", "could",
        "does", "doing", "done", "down", "each", "even", "from", "further", "have", "having",
        "here", "into", "just", "like", "made", "make", "many", "more", "most", "much", "must",
        "need", "only", "other", "over", "please", "same", "should", "some", "such", "sure",
        "than", "that", "their", "them", "then", "there", "these", "they", "thing", "things",
        "this", "those", "through", "under", "until", "very", "want", "well", "were", "what",
        "when", "where", "which", "while", "will", "with", "would", "yeah", "your", "yours",
        "okay", "thanks", "think", "going", "sounds", "good", "great", "fine", "let's",
    }
)  # fmt: skip

_WORD = re.compile(r"\w+(?:'\w+)?")
_SPANS = re.compile(
    r'"([^"]*)"|\u201c([^\u201d]*)\u201d|\u300c([^\u300d]*)\u300d|\u300e([^\u300f]*)\u300f'
)
_SAME = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u00ab": '"', "\u00bb": '"',
    }
)  # fmt: skip
_ELLIPSIS = re.compile(r"\.{3,}")
_EDGE = " \t.,;:!?\"'()[]-"


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def content_words(text: str) -> set[str]:
    """The words that can name a topic: 4+ letters, not a stop word, casefolded."""
    return {w for w in _words(text) if len(w) >= CONTENT_WORD_MIN and w not in STOP_WORDS}


def is_short_quote(quote: str) -> bool:
    """Too little to identify an ask alone: under 3 words, or a bare acknowledgement."""
    return len(quote.split()) < SHORT_QUOTE_WORDS or " ".join(_words(quote)) in ACKNOWLEDGEMENTS


def fold(text: str) -> str:
    """``text`` as quotes are compared: NFKC, one quote and apostrophe style, casefolded,
    whitespace runs as one space."""
    text = unicodedata.normalize("NFKC", text).translate(_SAME).casefold()
    return " ".join(text.split())


def quoted(note: str) -> list[str]:
    """The quoted spans of a note, in order (empty spans left out)."""
    spans = (next((g for g in m.groups() if g is not None), "") for m in _SPANS.finditer(note))
    return [s.strip() for s in spans if s.strip()]


def _pieces(quote: str) -> list[str]:
    """A folded quote's pieces between ellipses, each trimmed of edge punctuation."""
    pieces = (p.strip(_EDGE) for p in _ELLIPSIS.split(fold(quote)))
    return [p for p in pieces if any(c.isalnum() for c in p)]


def _pattern(piece: str) -> re.Pattern[str]:
    start = r"(?<!\w)" if piece[0].isalnum() or piece[0] == "_" else ""
    end = r"(?!\w)" if piece[-1].isalnum() or piece[-1] == "_" else ""
    return re.compile(start + re.escape(piece) + end)


def _holds(message: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    at = 0
    for pattern in patterns:
        found = pattern.search(message, at)
        if found is None:
            return False
        at = found.end()
    return True


class QuoteCheck(msgspec.Struct, frozen=True):
    """The verdict on a note's quotes, and the quote it is about (the first one that failed,
    else the first one)."""

    verdict: Verdict
    quote: str = ""

    @property
    def verified(self) -> bool:
        return self.verdict == "verified"


class UserWords(msgspec.Struct, frozen=True):
    """What the user typed in one session, folded once for every check of a write.

    ``problem`` says why the transcript could not be read (then nothing verifies)."""

    messages: tuple[str, ...] = ()
    problem: str = ""

    @classmethod
    def of(cls, messages: Iterable[str], problem: str = "") -> UserWords:
        return cls(tuple(fold(m) for m in messages), problem)

    def check(self, note: str, topic: str) -> QuoteCheck:
        """Whether every quoted span of ``note`` is the user's words (see the module);
        ``topic`` is the ask's text, which a short quote's message must name."""
        quotes = quoted(note)
        if not quotes:
            return QuoteCheck("unquoted")
        if self.problem:
            return QuoteCheck("unreadable", quotes[0])
        for quote in quotes:
            verdict = self._check_one(quote, topic)
            if verdict != "verified":
                return QuoteCheck(verdict, quote)
        return QuoteCheck("verified", quotes[0])

    def check_quote(self, quote: str, topic: str) -> QuoteCheck:
        """Whether ``quote`` itself (not a note holding quoted spans) is the user's words,
        by the same rules; ``topic``: what a short quote's message must name."""
        if self.problem:
            return QuoteCheck("unreadable", quote)
        return QuoteCheck(self._check_one(quote, topic), quote)

    def _check_one(self, quote: str, topic: str) -> Verdict:
        pieces = _pieces(quote)
        if not pieces:
            return "unquoted"
        patterns = [_pattern(p) for p in pieces]
        holding = [m for m in self.messages if _holds(m, patterns)]
        if not holding:
            return "not_found"
        if is_short_quote(" ".join(pieces)):
            subject = content_words(topic)
            if not any(content_words(m) & subject for m in holding):
                return "off_topic"
        return "verified"

    def said(self, words: str) -> bool:
        """Whether the user typed ``words`` (an ellipsis marks words left out) in one message
        of theirs: the check of a quote, with its own words as the topic a short one names."""
        return not self.problem and self._check_one(words, words) == "verified"

    def why(self, check: QuoteCheck) -> str:
        """Why ``check`` is not verified, in words for the agent."""
        if check.verdict == "unreadable":
            return f"the session transcript could not be read ({self.problem})"
        if check.verdict == "off_topic":
            return (
                f'"{check.quote}" is too short to stand for this ask: no message of the '
                "user's that holds it names the ask's topic"
            )
        if check.verdict == "unquoted":
            return "the note quotes no words of the user's"
        return f'"{check.quote}" is not in the user\'s messages of this session'


def reopen_refusal(
    ask_id: str, dropped_on: dt.date, topic: str, note: str, words: UserWords | None
) -> str | None:
    """Why an agent may not reopen an ask the user dropped: only on the user's words, quoted,
    and found in the session's transcript when one is given (``words``); ``None`` when it
    may. ``topic`` is the ask's text."""
    said = f'- reopen {ask_id} "<their words>"'
    head = f"ASKS.md: [{ask_id}] was dropped by the user on {dropped_on} — not reopened"
    if not quoted(note):
        return (
            f"{head}. Reopen it only if the user asked for it again, quoting their words: `{said}`."
        )
    if words is None:
        return None
    check = words.check(note, topic)
    if check.verified:
        return None
    return f"{head}: {words.why(check)}. Quote the user's own words: `{said}`."
