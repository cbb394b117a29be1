"""Recall: on each prompt, a few one-line pointers to archived entries that match the prompt
strongly, so knowledge the backstop moved out of the view comes back when it matters.

The database's full-text engine finds the candidates (archived entries still held that share
any word with the prompt, best ranked first: :func:`orbital.store._search.recall_candidates`);
the rule here decides which of them match *strongly*, the same on both databases: at least
:data:`MIN_SHARED` distinct content words of the prompt (not a common word of English or of
requests to a coding agent; three letters or more, or two with a digit) appear in the entry,
compared by their first :data:`STEM` letters so that ``sessions`` meets ``session`` and
``stored`` meets ``store``. Measured on ``bench/data/recall.jsonl`` by ``bench/search.py``.

Light on purpose: a hook's quick lane imports it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from projections.words import title_of, words_of

#: Shared content words a strong match needs.
MIN_SHARED = 2
#: Words are compared by this many first letters.
STEM = 5
#: A pointer's title, at most.
TITLE_SHOWN = 100

#: Words that say nothing of a topic: common English, and what every request to a coding
#: agent says.
_COMMON_WORDS = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    few for from further had has have having he her here hers him his how i if in into is it
    its just me more most my no nor not now of off on once only or other our out over own
    same she should so some such than that the their them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours us let lets get got gets one two new old way ok okay yes
    please thanks thank hi hey need want like see look make made use used using add added
    adding fix fixed change changed update updated write wrote run runs ran try tried check
    show tell work works working find know think keep keeps put set code file files project
    thing things something anything everything still again right wrong good bad better best
    well sure help able going go via per instead without within always never every many much
"""
COMMON = frozenset(_COMMON_WORDS.split())


class Pointer(NamedTuple):
    """One archived entry to point at: its id (``memory_get``), memory file key and title."""

    entry_id: str
    file: str
    title: str


def prompt_terms(prompt: str, most: int = 32) -> list[str]:
    """The prompt's content words (lower case, distinct, in order): what the engine is asked
    for and what a strong match is counted in."""
    seen: dict[str, None] = {}
    for word in words_of(prompt.casefold()):
        if _content(word):
            seen.setdefault(word, None)
    return list(seen)[:most]


def _stems(words: Sequence[str]) -> set[str]:
    return {w[:STEM] for w in words if _content(w)}


def _content(word: str) -> bool:
    """A word that may say what a text is about: not common, not a number, three letters or
    more, or two with a digit (``s3``, ``k8``: names of things)."""
    if word in COMMON or word.isdigit():
        return False
    return len(word) >= 3 or (len(word) == 2 and any(c.isdigit() for c in word))


def strong(terms: Sequence[str], entry_id: str, text: str) -> bool:
    """Whether an entry matches the prompt's ``terms`` strongly (see the module)."""
    entry = _stems(words_of(f"{entry_id} {text}".casefold()))
    return len(_stems(terms) & entry) >= MIN_SHARED


def recall_pointers(
    terms: Sequence[str],
    candidates: Sequence[tuple[str, str, str]],
    limit: int,
    given: Collection[str] = (),
) -> list[Pointer]:
    """The first ``limit`` candidates (entry id, file key, text; best ranked first) that
    match strongly, but for those the session was ``given`` already (it has them)."""
    found: list[Pointer] = []
    for entry_id, file, text in candidates:
        if len(found) >= limit:
            break
        if entry_id not in given and strong(terms, entry_id, text):
            found.append(Pointer(entry_id, file, title_of(text, TITLE_SHOWN)))
    return found


def render_pointers(pointers: Sequence[Pointer]) -> str:
    """The pointers as the agent reads them: a line saying what they are, then one a pointer
    ("" for none)."""
    if not pointers:
        return ""
    lines = [f"- {p.title} (archived; memory_get {p.entry_id})" for p in pointers]
    return "Orbital recall: archived memory that matches this prompt:\n" + "\n".join(lines)
