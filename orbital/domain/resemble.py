"""Does a new text *possibly* ask for what an earlier one asked? The wider reading behind a
held line: what the rephrasing guard (:mod:`orbital.domain.rephrase`) cannot call the same
with certainty, but a person might.

It reads a text as the guard does (its terms, typos, order, politeness and negation) and
lets two terms match on more than a shared stem:

- a sense in common in WordNet (:mod:`orbital.domain.wordnet`, the one the shell hands
  over): "reserve" / "book",
  "purchase" / "buy", "organise" / "plan";
- a usual sense of one (one met in WordNet's tagged corpus) one level broader than a sense
  of the other: "conference" / "meeting". Two kinds of one thing ("French" / "Italian")
  never match;
- an abbreviation: a short word (2-5 letters) that begins the other ("prod" / "production",
  "cert", "docs"), is its first letter and one or up to three of its later consonants in
  order ("db" / "database", "cfg" / "config", "pwd" / "password"), or its numeronym ("k8s",
  "i18n"); a letter before a number is read apart from it ("Q3" / "the third quarter",
  "v2.4" / "version 2.4");
- an acronym: a short word made of the initials of consecutive terms of the other text
  ("SSO" / "single sign-on", "CSV" / "comma-separated values");
- a letter left out of a five-letter word ("ordr" / "order");
- and a *light* word, one used often and mostly as a verb, adjective or adverb in WordNet's
  tagged corpus ("find", "bring", "old"), may go unmatched, as the guard's generic nouns
  may. A word used mostly as a noun names the object and must be matched.

A term of one text that WordNet gives as the antonym of a term of the other ("raise" /
"lower", "start" / "stop") asks for the opposite, as a negation on one side does (and with
one, for the same). Two texts resemble when one lacks nothing, and the terms matched are at
least :data:`MIN_SHARED` of both texts' terms together (an acronym counts as the words it
stands for).

Identifiers are read as words (``pool_size``, ``poolSize`` -> "pool size"). No list of words
here was written for the labelled pairs: the lexical database and these rules are general.
"""

from __future__ import annotations

import functools
import itertools
import re

from orbital.domain import rephrase_lexicon as lex
from orbital.domain.meaning_index import Reading
from orbital.domain.rephrase import Meaning, Overlap, Term, _typo, meaning
from orbital.domain.wordnet import WordNet

#: A word met at least this often in WordNet's tagged corpus as a verb, adjective or adverb
#: (and no less as a noun) is light; two texts have at least this share of both texts' terms
#: matched. Both chosen together on the dev pairs and the first fresh set: the most held
#: rewordings with at most about 10 % of different asks held.
LIGHT = 3
MIN_SHARED = 0.8
#: A short word is filed as ``S:<word>``; a longer word or a run of terms as ``L:<x>`` for
#: each short word ``x`` that may stand for it. The two match each other, never themselves:
#: two long words that begin alike are not abbreviations of each other.
_SHORT_KEY, _LONG_KEY = "S:", "L:"
_SENSE = "#"
#: A term is also filed as ``H:<sense>`` for each sense one level broader than one of its
#: own: it matches a term with that sense ("conference" / "meeting"), never another term
#: filed under the same broader sense (French and Italian are both languages).
_BROADER = "H:"
#: ``O:<sense>``: the antonym of one of a term's usual senses (never looked up).
_OPPOSITE = "O:"
#: A letter or two before a number, read apart from it: "Q3" is the third of something.
_LETTERED_NUMBER = re.compile(r"\b([^\W\d_]{1,2})(\d+(?:\.\d+)*)\b")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SHORT = re.compile(r"[^\W_]{2,5}")
_VOWELS = frozenset("aeiouy")


def _short_forms(term: Term) -> set[str]:
    """The forms of ``term`` that are short words (2-5 letters or digits, not a number)."""
    return {w for w in (term.word, term.stem) if _SHORT.fullmatch(w) and not w.isdigit()}


def _abbreviations(word: str) -> set[str]:
    """The short words that may stand for ``word``: its beginnings; its first letter with
    each later one, or with two or three of its later consonants in order ("cfg" /
    "config", "pwd" / "password", "mgmt" / "management"); and its numeronym ("k8s" /
    "kubernetes", "i18n")."""
    if not word.isalpha() or len(word) < 4:
        return set()
    found = {word[:n] for n in range(2, min(5, len(word) - 2) + 1)}
    found.update(word[0] + c for c in set(word[1:]))
    consonants = [c for c in word[1:] if c not in _VOWELS]
    for n in (2, 3):
        found.update(word[0] + "".join(c) for c in itertools.combinations(consonants, n))
    if len(word) >= 5:
        found.add(f"{word[0]}{len(word) - 2}{word[-1]}")
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


def _light(word: str, wordnet: WordNet) -> bool:
    """A word used mostly as a verb, adjective or adverb, and often: the light words of any
    ask ("find", "make", "bring", "old"). A noun names the object, which a rewording keeps."""
    uses = wordnet.tagged_as(word)
    other = sum(n for pos, n in uses.items() if pos != "n")
    return other >= LIGHT and other >= uses.get("n", 0)


@functools.lru_cache(maxsize=1 << 16)
def wide_meaning(text: str, wordnet: WordNet) -> Meaning:
    """``text`` read as the guard reads it, each term with its wider keys."""
    base = meaning(_LETTERED_NUMBER.sub(r"\1 \2", _CAMEL.sub(" ", text)))
    terms = []
    for term, acronyms in zip(base.terms, _acronyms(base.terms), strict=True):
        longs = acronyms | _abbreviations(term.word)
        usual = set() if term.word[0].isdigit() else wordnet.usual_senses(term.word)
        keys = (
            term.keys
            | {_SENSE + s for s in wordnet.senses(term.word)}
            | {_BROADER + b for s in usual for b in wordnet.broader(s)}
            | {_OPPOSITE + o for s in usual for o in wordnet.opposite(s)}
            | {_SHORT_KEY + w for w in _short_forms(term)}
            | {_LONG_KEY + x for x in longs}
            | ({lex.ORDINALS[term.word]} if term.word in lex.ORDINALS else set())
        )
        light = term.generic or _light(term.word, wordnet)
        terms.append(Term(term.stem, keys, term.word, light))
    return Meaning(tuple(terms), base.negated)


@functools.lru_cache(maxsize=1 << 16)
def probes(term: Term) -> frozenset[str]:
    """What a term looks up: its plain keys, each short key for the long ones, and each
    sense for the broader ones (and the other way round)."""
    found = set()
    for key in term.keys:
        if key.startswith(_SHORT_KEY):
            found.add(_LONG_KEY + key[2:])
        elif key.startswith(_LONG_KEY):
            found.add(_SHORT_KEY + key[2:])
        elif key.startswith(_BROADER):
            found.add(_SENSE + key[2:])
        elif key.startswith(_OPPOSITE):
            continue
        else:
            found.add(key)
            if key.startswith(_SENSE):
                found.add(_BROADER + key[1:])
    return frozenset(found)


def wide_matches(a: Term, b: Term) -> bool:
    """Two terms that may mean the same (see the module docstring)."""
    if any(key[1:2] != ":" for key in a.keys & b.keys):
        return True  # a stem, a synonym group or a sense in common
    if any(_LONG_KEY + w in b.keys for w in _short_forms(a)):
        return True
    if any(_LONG_KEY + w in a.keys for w in _short_forms(b)):
        return True
    if _broader_of(a, b) or _broader_of(b, a):
        return True
    slips = a.slips
    return bool(slips) and not slips.isdisjoint(b.slips) and _slip(a.word, b.word)


def _slip(a: str, b: str) -> bool:
    """One slip of the keyboard apart, as the guard reads it, or a letter left out of a word
    of five ("ordr" / "order"), which the guard does not take as certain."""
    if _typo(a, b):
        return True
    short, long = sorted((a, b), key=len)
    return (
        len(short) == 4
        and len(long) == 5
        and any(long[:i] + long[i + 1 :] == short for i in range(5))
    )


def _broader_of(a: Term, b: Term) -> bool:
    """Whether a sense of ``a`` is one level broader than a sense of ``b``."""
    return any(_BROADER + key[1:] in b.keys for key in a.keys if key.startswith(_SENSE))


def opposed(a: Meaning, b: Meaning) -> bool:
    """Whether a term of one text is WordNet's antonym of a term of the other ("raise" /
    "lower", "start" / "stop"): the opposite action, as a negation on one side is."""
    return _opposes(a, b) or _opposes(b, a)


def _opposes(a: Meaning, b: Meaning) -> bool:
    senses = {key[1:] for t in b.terms for key in t.keys if key.startswith(_SENSE)}
    return any(key[2:] in senses for t in a.terms for key in t.keys if key.startswith(_OPPOSITE))


def alike(found: Overlap, min_shared: float) -> bool:
    """Possibly the same: one side lacks nothing, no negation on one side only, and at
    least ``min_shared`` of both sides' terms together matched (an acronym matching four
    words counts as the four it stands for, not as one of the longer side)."""
    matched = found.shared_a + found.shared_b
    terms = matched + found.missing_a + found.missing_b
    return (
        not found.negation_differs
        and min(found.missing_a, found.missing_b) == 0
        and found.shared_a > 0
        and matched >= min_shared * terms
    )


@functools.cache
def resembling(wordnet: WordNet) -> Reading:
    """The wide reading, with ``wordnet``'s senses: a held line, possibly the same ask."""

    def read(text: str) -> Meaning:
        return wide_meaning(text, wordnet)

    return Reading(read, wide_matches, probes, MIN_SHARED, alike, opposed)


def resembles(earlier: str, later: str, wordnet: WordNet) -> bool:
    """Whether ``later`` possibly asks for what ``earlier`` did. Ask the guard first: a
    certain restatement that adds much context may share too little to resemble."""
    wide = resembling(wordnet)
    return wide.same(wide.overlap(wide.meaning(earlier), wide.meaning(later)))
