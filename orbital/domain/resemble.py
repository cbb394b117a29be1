"""Does a new text *possibly* ask for what an earlier one asked? The wider reading behind a
held line: what the rephrasing guard (:mod:`orbital.domain.rephrase`) cannot call the same
with certainty, but a person might.

It reads a text as the guard does (its terms, typos, order, politeness and negation) and
lets two terms match on more than a shared stem:

- a sense in common in WordNet (:mod:`orbital.domain.wordnet`, the one the shell hands
  over): "reserve" / "book",
  "purchase" / "buy", "organise" / "plan";
- an abbreviation: a short word (2-5 letters) that begins the other ("prod" / "production",
  "cert", "docs") or, of two letters, is its first letter and a later one ("db" /
  "database");
- an acronym: a short word made of the initials of consecutive terms of the other text
  ("SSO" / "single sign-on", "CSV" / "comma-separated values");
- and a *light* word, one of many tagged senses in WordNet ("find", "make", "keep"), may go
  unmatched, as the guard's generic nouns may.

Identifiers are read as words (``pool_size``, ``poolSize`` -> "pool size"). No list of words
here was written for the labelled pairs: the lexical database and these rules are general.
"""

from __future__ import annotations

import functools
import re

from orbital.domain.meaning_index import Reading
from orbital.domain.rephrase import Meaning, Term, _typo, meaning
from orbital.domain.wordnet import WordNet

#: A word with at least this many senses met in WordNet's tagged corpus is light; two texts
#: have at least this share of the longer one's terms in common (both chosen together on the
#: dev pairs: the most held rewordings with at most 10 % of different asks held).
LIGHT = 5
MIN_SHARED = 0.55
#: A short word is filed as ``S:<word>``; a longer word or a run of terms as ``L:<x>`` for
#: each short word ``x`` that may stand for it. The two match each other, never themselves:
#: two long words that begin alike are not abbreviations of each other.
_SHORT_KEY, _LONG_KEY = "S:", "L:"
_SENSE = "#"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SHORT = re.compile(r"[^\W_]{2,5}")


def _short_forms(term: Term) -> set[str]:
    """The forms of ``term`` that are short words (2-5 letters or digits, not a number)."""
    return {w for w in (term.word, term.stem) if _SHORT.fullmatch(w) and not w.isdigit()}


def _abbreviations(word: str) -> set[str]:
    """The short words that may stand for ``word``: its beginnings, and its first letter
    with each later one."""
    if not word.isalpha() or len(word) < 4:
        return set()
    found = {word[:n] for n in range(2, min(5, len(word) - 2) + 1)}
    found.update(word[0] + c for c in set(word[1:]))
    return found


def _acronyms(terms: tuple[Term, ...]) -> list[set[str]]:
    """Per term: the initials of each run of 2-5 consecutive terms it is in."""
    found: list[set[str]] = [set() for _ in terms]
    firsts = ["".join(w[0] for w in t.word.split()) for t in terms]
    for start in range(len(terms)):
        for end in range(start + 2, min(len(terms), start + 5) + 1):
            initials = "".join(firsts[start:end])
            for i in range(start, end):
                found[i].add(initials)
    return found


@functools.lru_cache(maxsize=1 << 16)
def wide_meaning(text: str, wordnet: WordNet) -> Meaning:
    """``text`` read as the guard reads it, each term with its wider keys."""
    base = meaning(_CAMEL.sub(" ", text))
    terms = []
    for term, acronyms in zip(base.terms, _acronyms(base.terms), strict=True):
        longs = acronyms | _abbreviations(term.word)
        keys = (
            term.keys
            | {_SENSE + s for s in wordnet.senses(term.word)}
            | {_SHORT_KEY + w for w in _short_forms(term)}
            | {_LONG_KEY + x for x in longs}
        )
        light = term.generic or wordnet.tagged(term.word) >= LIGHT
        terms.append(Term(term.stem, keys, term.word, light))
    return Meaning(tuple(terms), base.negated)


@functools.lru_cache(maxsize=1 << 16)
def probes(term: Term) -> frozenset[str]:
    """What a term looks up: its plain keys, and each short key for the long ones."""
    found = set()
    for key in term.keys:
        if key.startswith(_SHORT_KEY):
            found.add(_LONG_KEY + key[2:])
        elif key.startswith(_LONG_KEY):
            found.add(_SHORT_KEY + key[2:])
        else:
            found.add(key)
    return frozenset(found)


def wide_matches(a: Term, b: Term) -> bool:
    """Two terms that may mean the same (see the module docstring)."""
    if any(key[1:2] != ":" for key in a.keys & b.keys):
        return True  # a stem, a synonym group or a sense in common
    if any(_LONG_KEY + w in b.keys for w in _short_forms(a)):
        return True
    if any(_LONG_KEY + w in a.keys for w in _short_forms(b)):
        return True
    slips = a.slips
    return bool(slips) and not slips.isdisjoint(b.slips) and _typo(a.word, b.word)


@functools.cache
def resembling(wordnet: WordNet) -> Reading:
    """The wide reading, with ``wordnet``'s senses: a held line, possibly the same ask."""

    def read(text: str) -> Meaning:
        return wide_meaning(text, wordnet)

    return Reading(read, wide_matches, probes, MIN_SHARED)


def resembles(earlier: str, later: str, wordnet: WordNet) -> bool:
    """Whether ``later`` possibly asks for what ``earlier`` did (the guard's certain sameness
    included)."""
    wide = resembling(wordnet)
    return wide.overlap(wide.meaning(earlier), wide.meaning(later)).same_at(MIN_SHARED)
