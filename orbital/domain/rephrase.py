"""Does a new text ask for what an earlier one asked? The rephrasing guard's matcher.

Pure and offline: a text becomes its *terms* (content words, stemmed, with their synonyms and
abbreviations as extra keys; Chinese as character pairs), and two texts mean the same when
one's terms all appear in the other — the other may add context ("before the renewal on the
1st"), or leave some out ("Move cron off Heroku") — with no negation on one side only.

The rule that carries the precision is the *substitution*: a term of each side that the other
lacks ("pricing" vs "careers", "staging" vs "production", "raise" vs "lower", "Redis" vs
"Postgres") is a different object or decision. Character similarity of whole texts and sentence
embeddings both score such pairs as near-identical; see ``bench/rephrase.py`` for the measured
rates of each.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

import msgspec

from orbital.domain import rephrase_lexicon as lex
from orbital.domain.rephrase_lexicon import Phrases
from orbital.lazy import submodule_alone

K = TypeVar("K")


class Stemmer(Protocol):
    """A Snowball stemmer (the pure-Python one of ``snowballstemmer``)."""

    def stemWord(self, word: str) -> str: ...


#: The least share of the longer text's terms the two must have in common.
MIN_SHARED = 0.25

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RUN = re.compile(f"[{_HAN}]+")
WORD = re.compile(rf"\d+(?:[.,]\d+)+|[{_HAN}]+|[^\W_{_HAN}]+")
_EXTENSION = re.compile(rf"(?<=\w)\.(?:{'|'.join(sorted(lex.EXTENSIONS))})\b")
_GERMAN_LETTERS = frozenset("äöüß")


@dataclass(frozen=True)
class Term:
    """One content word or phrase: ``keys`` (the stem and the synonym groups it belongs to) are
    what two terms share to be the same; or else their ``word`` as written is one typo apart,
    which needs a shared ``slips`` key (see :func:`_slips`)."""

    stem: str
    keys: frozenset[str]
    word: str
    generic: bool = False

    @functools.cached_property
    def slips(self) -> frozenset[str]:
        return _slips(self.word)


@dataclass(frozen=True)
class Meaning:
    terms: tuple[Term, ...]
    negated: bool

    @functools.cached_property
    def needed(self) -> int:
        """Terms that must be matched when this side is the one covered (generic nouns
        need not)."""
        return sum(1 for term in self.terms if not term.generic)

    @functools.cached_property
    def term_marks(self) -> tuple[frozenset[str], ...]:
        """Per term, its keys and slip keys (slip keys start with ``~``, keys never)."""
        return tuple(t.keys | t.slips for t in self.terms)

    @functools.cached_property
    def marks(self) -> frozenset[str]:
        """Every key and slip key of the terms (kept: a text is compared with each entry of
        its file on every write)."""
        return frozenset().union(*self.term_marks)

    def may_be_covered_by(self, other: Meaning) -> bool:
        """Whether every needed term can be matched by ``other``: as many of these terms
        share a key or a slip key with a term of ``other`` as are needed. Stops at the
        first miss too many (without a Python loop): most entries of a file fail early."""
        spare = len(self.term_marks) - self.needed  # terms that may go unmatched
        misses = filter(other.marks.isdisjoint, self.term_marks)
        return next(itertools.islice(misses, spare, None), None) is None


class Overlap(msgspec.Struct, frozen=True):
    """How two meanings line up: terms of each side the other has (``shared_*``) and lacks."""

    shared_a: int
    missing_a: int
    shared_b: int
    missing_b: int
    negation_differs: bool

    @property
    def same(self) -> bool:
        return self.same_at(MIN_SHARED)

    def same_at(self, min_shared: float) -> bool:
        """Same intent: nothing substituted (one side lacks nothing), no negation on one side
        only, and at least ``min_shared`` of the longer side in common."""
        longer = max(self.shared_a + self.missing_a, self.shared_b + self.missing_b)
        return (
            not self.negation_differs
            and min(self.missing_a, self.missing_b) == 0
            and self.shared_a > 0
            and self.shared_a >= min_shared * longer
        )

    @property
    def strength(self) -> float:
        """Share of the longer side in common (ranks several matches; higher is closer)."""
        longer = max(self.shared_a + self.missing_a, self.shared_b + self.missing_b)
        return self.shared_a / longer if longer else 0.0


@functools.lru_cache(maxsize=1 << 16)
def stem_of(word: str, german: bool) -> str:
    """A word's stem (numbers and irregular forms mapped first)."""
    word = lex.NUMBERS.get(word, word)
    word = lex.IRREGULAR.get(word, word)
    if not word.isalpha():
        return word
    return str(_stemmer(german).stemWord(word))


@functools.cache
def _stemmer(german: bool) -> Stemmer:
    """Snowball's English or German stemmer, only its own module imported (the package's
    ``__init__`` imports every language: 15-20 ms of a cold process)."""
    if german:
        stemmer: Stemmer = submodule_alone("snowballstemmer", "german_stemmer").GermanStemmer()
    else:
        stemmer = submodule_alone("snowballstemmer", "english_stemmer").EnglishStemmer()
    return stemmer


def phrase_table(synonyms: Iterable[str], german: bool) -> Phrases:
    """The synonym table of ``synonyms`` (lines of :data:`rephrase_lexicon.SYNONYMS`): each
    member's words stemmed as a text's are -> the keys of the groups it is in."""
    table: dict[tuple[str, ...], set[str]] = {}
    for line in synonyms:
        members = line.split("|")
        key = "=" + members[0].replace(" ", "_")
        for member in members:
            if HAN_RUN.fullmatch(member):
                continue
            words = tuple(stem_of(w, german) for w in WORD.findall(member))
            table.setdefault(words, set()).add(key)
    return {k: frozenset(v) for k, v in table.items()}


#: The synonym tables this process stemmed or was handed (:func:`seed_phrases`), by whether
#: German, with their longest sequence's length.
_tables: dict[bool, tuple[Phrases, int]] = {}


def seed_phrases(tables: Mapping[bool, Phrases]) -> None:
    """Take the synonym tables another process stemmed from this lexicon with these stemmers
    (stemming one again is about 100 M instructions, 20 ms, of a write's process)."""
    for german, table in tables.items():
        _tables.setdefault(german, (table, max(map(len, table))))


def phrases_made() -> dict[bool, Phrases]:
    """The synonym tables this process has (stemmed, or handed over)."""
    return {german: table for german, (table, _) in _tables.items()}


def _phrases(german: bool) -> tuple[Phrases, int]:
    """The synonym table, stemmed once per process at the first meaning worked out unless
    handed over; the longest sequence's length."""
    found = _tables.get(german)
    if found is None:
        table = phrase_table(lex.SYNONYMS, german)
        found = _tables[german] = (table, max(map(len, table)))
    return found


@functools.lru_cache(maxsize=1)
def _han_words() -> tuple[tuple[str, frozenset[str]], ...]:
    """Chinese members of the synonym groups with their keys, longest first."""
    found: dict[str, set[str]] = {}
    for line in lex.SYNONYMS:
        members = line.split("|")
        for member in members:
            if HAN_RUN.fullmatch(member):
                found.setdefault(member, set()).add("=" + members[0].replace(" ", "_"))
    return tuple(sorted(((w, frozenset(k)) for w, k in found.items()), key=lambda p: -len(p[0])))


def _han_terms(run: str) -> tuple[list[Term], bool]:
    """A run of Han characters: its synonym words, then pairs of the characters left once the
    function characters are gone (Chinese has no spaces to split words on); and whether it
    negates."""
    for pattern in lex.ZH_QUESTION_NOT:
        run = run.replace(pattern, " ")
    negated = any(c in lex.NEGATION_CHARS_ZH for c in run)
    terms = []
    for word, keys in _han_words():
        if word in run:
            run = run.replace(word, " ")
            terms.append(Term(word, keys | {word}, word))
    run = "".join(" " if c in lex.STOP_CHARS_ZH else c for c in run)
    for part in run.split():
        pairs = [part] if len(part) == 1 else [part[i : i + 2] for i in range(len(part) - 1)]
        terms += [Term(pair, frozenset({pair}), pair) for pair in pairs]
    return terms, negated


#: Meanings another process worked out, by text (:func:`seed`): read before working one out.
_seeded: dict[str, Meaning] = {}
#: The texts :func:`restated` compared a new entry with in this process, and their meanings:
#: what the next process compares with again (a file's every entry, on every write).
compared: dict[str, Meaning] = {}
_COMPARED_MAX = 1 << 13


def seed(known: Mapping[str, Meaning]) -> None:
    """Take meanings another process worked out (stemming a file's entries again in every
    process was most of a cold write's restatement check)."""
    _seeded.update(known)


@functools.lru_cache(maxsize=1 << 16)
def meaning(text: str) -> Meaning:
    """The terms of ``text`` and whether it negates (cached: asks are compared many times)."""
    found = _seeded.get(text)
    return found if found is not None else _worked_out(text)


def _worked_out(text: str) -> Meaning:
    text = unicodedata.normalize("NFKC", text).casefold().replace("'", "").replace("\u2019", "")
    text = _EXTENSION.sub(" ", text)  # "don't" -> "dont", "form's" -> "forms"
    words = WORD.findall(text)
    latin = [w for w in words if not HAN_RUN.fullmatch(w)]
    german = sum(w in lex.STOP_WORDS_DE or not _GERMAN_LETTERS.isdisjoint(w) for w in latin) > sum(
        w in lex.STOP_WORDS for w in latin
    )
    stop_words = lex.STOP_WORDS_DE if german else lex.STOP_WORDS
    table, longest = _phrases(german)
    generic = {stem_of(w, german) for w in lex.GENERIC_NOUNS}
    terms: list[Term] = []
    negated = False
    stems = [stem_of(w, german) for w in words]
    i = 0
    while i < len(words):
        word = words[i]
        if HAN_RUN.fullmatch(word):
            found, negates = _han_terms(word)
            terms += found
            negated |= negates
            i += 1
            continue
        for n in range(min(longest, len(words) - i), 0, -1):
            keys = table.get(tuple(stems[i : i + n]))
            if keys is not None and (n > 1 or word not in stop_words):
                stem = " ".join(stems[i : i + n])
                terms.append(Term(stem, keys | {stem}, " ".join(words[i : i + n])))
                i += n
                break
        else:
            if word in lex.NEGATIONS:
                negated = True
            elif word not in stop_words and (len(word) > 1 or word.isdigit()):
                stem = stems[i]
                terms.append(Term(stem, frozenset({stem}), word, stem in generic))
            i += 1
    unique = {term.stem: term for term in terms}
    return Meaning(tuple(unique.values()), negated)


@functools.lru_cache(maxsize=1 << 16)
def _slips(word: str) -> frozenset[str]:
    """Keys that two words one typo apart share (each word with one letter left out, as in
    SymSpell), so that the index finds them; four-letter words only by swapping neighbours."""
    if not word.isalpha() or len(word) < 4:
        return frozenset()
    if len(word) == 4:
        variants = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(3)}
    else:
        variants = {word[:i] + word[i + 1 :] for i in range(len(word))}
    return frozenset("~" + v for v in (word, *variants))


def _typo(a: str, b: str) -> bool:
    """One slip of the keyboard apart; four-letter words only by swapping two neighbours
    ("drak"/"dark"), since one changed letter makes another word ("pool"/"tool")."""
    from rapidfuzz.distance import OSA  # imported when two words' keys differ, not before

    if min(len(a), len(b)) == 4:
        return len(a) == len(b) and sorted(a) == sorted(b) and OSA.distance(a, b) == 1
    return bool(OSA.distance(a, b, score_cutoff=1) == 1)


def _matches(a: Term, b: Term) -> bool:
    if not a.keys.isdisjoint(b.keys):
        return True
    slips = a.slips
    return bool(slips) and not slips.isdisjoint(b.slips) and _typo(a.word, b.word)


def overlap(a: Meaning, b: Meaning, matches: Callable[[Term, Term], bool] | None = None) -> Overlap:
    """Which terms of each side the other has (by ``matches``: the guard's own match when
    not given); generic nouns count only when shared."""
    match = matches or _matches

    def count(mine: tuple[Term, ...], theirs: tuple[Term, ...]) -> tuple[int, int]:
        hits = [any(match(t, u) for u in theirs) for t in mine]
        lacking = sum(1 for t, hit in zip(mine, hits, strict=True) if not hit and not t.generic)
        return sum(hits), lacking

    shared_a, missing_a = count(a.terms, b.terms)
    shared_b, missing_b = count(b.terms, a.terms)
    return Overlap(shared_a, missing_a, shared_b, missing_b, a.negated != b.negated)


def same_intent(earlier: str, later: str) -> bool:
    """Whether ``later`` asks for what ``earlier`` did (see the module docstring)."""
    return overlap(meaning(earlier), meaning(later)).same


def _may_restate(a: Meaning, b: Meaning) -> bool:
    """False when ``a`` and ``b`` cannot be the same intent: a restatement has every needed
    term of one side matched (the bound the meaning index files by), and a term can match only
    one that shares a key or a slip with it."""
    return a.may_be_covered_by(b) or b.may_be_covered_by(a)


def restated(text: str, existing: Mapping[K, str]) -> K | None:
    """The entry of ``existing`` (key -> text) that ``text`` restates most closely, if any:
    for warning when a new DECISIONS or LESSONS entry says again what one already says. The
    first of equally close ones wins."""
    new = meaning(text)
    best: tuple[float, K] | None = None
    if len(compared) > _COMPARED_MAX:  # a server's, after many files' worth
        compared.clear()
    for key, old_text in existing.items():
        known = compared[old_text] = meaning(old_text)
        if not _may_restate(known, new):
            continue  # the cheap bound first: a file of a hundred entries is compared per write
        found = overlap(known, new)
        if found.same and (best is None or found.strength > best[0]):
            best = (found.strength, key)
    return best[1] if best is not None else None
