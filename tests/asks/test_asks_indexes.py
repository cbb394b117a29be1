"""The refusal indexes kept up to date by the asks that change equal indexes built afresh,
and the indexed dropped search finds what a comparison with every dropped ask finds."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbital.domain import meaning_index
from orbital.domain.asks import (
    Ask,
    AskState,
    OpenIndex,
    dropped_match,
    fuzzy_key,
    index_dropped,
    index_open,
)
from orbital.domain.layered import Layered, Many
from orbital.domain.meaning_index import MeaningIndex
from orbital.domain.rephrase import Meaning, Overlap, Term, meaning, overlap
from orbital.grammar.text import norm

DAY = dt.date(2026, 9, 19)
TEXTS = ["Send the deck", "send the deck!", "Send the decks", "Book the venue", "!!!", "a", "ab"]
WORDS = st.sampled_from(["send", "the", "deck", "book", "venue", "s", "!", "decks", "a"])
# Short texts over a tiny alphabet reach every score, the threshold's neighbours included.
TEXT = st.one_of(
    st.sampled_from(TEXTS),
    st.lists(WORDS, min_size=1, max_size=6).map(" ".join),
    st.text(alphabet="ab !", min_size=1, max_size=14),
)
STATE: st.SearchStrategy[AskState] = st.sampled_from(["open", "done", "dropped"])


def _ask(ask_id: str, text: str, state: AskState, seq: int) -> Ask:
    return Ask(ask_id, text, None, DAY, state, DAY, None, "", seq)


def _brute_dropped(asks: dict[str, Ask], text: str) -> Ask | None:
    """The refusal's rule spelled out: exact (latest), else the closest rephrasing (latest on
    ties), comparing with every dropped ask."""
    dropped = [a for a in asks.values() if a.state == "dropped"]
    key, fkey = norm(text), fuzzy_key(text)
    exact = [a for a in dropped if norm(a.text) == key or (fkey and fuzzy_key(a.text) == fkey)]
    if exact:
        return max(exact, key=lambda a: a.seq)
    found = [(overlap(meaning(a.text), meaning(text)), a) for a in dropped]
    scored = [(match.strength, a.seq, a) for match, a in found if match.same]
    return max(scored, key=lambda s: (s[0], s[1]))[2] if scored else None


# Each step sets one ask (of six ids) to a text and state, at the next position.
STEPS = st.lists(st.tuples(st.integers(0, 5), TEXT, STATE), min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(steps=STEPS, split=st.integers(0, 25), query=TEXT)
def test_updated_indexes_equal_rebuilt_ones_and_find_what_brute_force_finds(
    steps: list[tuple[int, str, AskState]], split: int, query: str
) -> None:
    asks: dict[str, Ask] = {}
    texts: dict[str, str] = {}  # an ask keeps the text it was opened with
    history: list[Ask] = []
    for seq, (n, text, state) in enumerate(steps, start=1):
        ask_id = f"a{n:05d}"
        ask = _ask(ask_id, texts.setdefault(ask_id, text), state, seq)
        asks[ask_id] = ask
        history.append(ask)
    early = {a.id: a for a in history[:split]}
    dropped, opened = index_dropped(early), index_open(early)
    for ask in history[split:]:
        dropped, opened = dropped.changed([ask]), opened.changed([ask])

    assert dropped == index_dropped(asks)

    def open_by_text(index: OpenIndex) -> dict[str, dict[str, Ask]]:
        return {k: dict(v) for k, v in index.by_text.items() if v}

    assert open_by_text(opened) == open_by_text(index_open(asks))
    assert dropped_match(asks, query, dropped) == _brute_dropped(asks, query)
    expected_open = {
        a.id for a in asks.values() if a.state == "open" and norm(a.text) == norm(query)
    }
    found = opened.first(norm(query))
    if expected_open:
        assert found is not None and found.id in expected_open
    else:
        assert found is None


@settings(max_examples=200, deadline=None)
@given(steps=STEPS, split=st.integers(0, 25), looked=st.integers(0, 26))
def test_indexes_updated_by_the_asks_changed_equal_ones_built_afresh(
    steps: list[tuple[int, str, AskState]], split: int, looked: int
) -> None:
    """Indexes built from the first ``split`` asks, then updated by each ask changed after
    (as a decision folds a write's own events), equal the ones built afresh from the asks
    then (at step ``looked``, and at the end)."""
    texts: dict[str, str] = {}
    history = [
        _ask(f"a{n:05d}", texts.setdefault(f"a{n:05d}", text), state, seq)
        for seq, (n, text, state) in enumerate(steps, start=1)
    ]
    asks = {a.id: a for a in history[:split]}
    opened, dropped = index_open(asks), index_dropped(asks)
    for step, ask in enumerate(history[split:], start=split):
        if step == looked:
            assert dropped == index_dropped(asks)
        asks[ask.id] = ask
        opened, dropped = opened.changed([ask]), dropped.changed([ask])
    assert asks == {a.id: a for a in history}
    assert dropped == index_dropped(asks)
    assert {k: dict(v) for k, v in opened.by_text.items() if v} == {
        k: dict(v) for k, v in index_open(asks).by_text.items() if v
    }


def test_the_index_finds_asks_whose_words_match_only_by_typos() -> None:
    # Words one typo apart share no key; the index finds them through their spellings.
    asks = {
        "a00001": _ask("a00001", "Get quotes from three cleaning companies", "dropped", 1),
        "a00002": _ask("a00002", "Translate the onboarding emails into Spanish", "dropped", 2),
    }
    index = index_dropped(asks)
    assert dropped_match(asks, "Get qoutes from three claening companies", index) == asks["a00001"]
    typos = "Translate the onbaording emials into Spansih"
    assert dropped_match(asks, typos, index) == asks["a00002"]
    assert dropped_match(asks, "Translate the onboarding emails into French", index) is None


def test_an_open_compares_only_the_asks_that_could_be_restated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 400 dropped asks share the common words; each has one rare word, its pivot.
    items = [(f"{n:06x}", f"Deploy the service to region {_word(n)} tonight") for n in range(400)]
    index = MeaningIndex[str]().added(items[:300])
    for item in items[300:]:  # grown one by one, as drops come in
        index = index.added([item])
    compared: list[str] = []

    def counted(
        a: Meaning, b: Meaning, matches: Callable[[Term, Term], bool] | None = None
    ) -> Overlap:
        compared.append(" ".join(t.word for t in a.terms))
        return overlap(a, b, matches)

    monkeypatch.setattr(meaning_index, "overlap", counted)
    text = f"Tonight, deploy the service to region {_word(7)}"
    assert index.restated_by(text) == {items[7][0]: 1.0}
    assert len(compared) == 1
    compared.clear()
    # the text shares its common words with all 400, but none has "staging": none is compared
    assert index.restated_by("Deploy the service to staging tonight") == {}
    assert compared == []
    # a shorter text whose words one ask covers (it adds context) is that ask
    assert index.restated_by(f"Deploy to {_word(9)}") == {items[9][0]: 0.4}  # 2 of its 5 words
    assert len(compared) == 1


class _Counted(Many[str, tuple[str, ...]]):
    """Posting lists that count the items read (a store's rows)."""

    def __init__(self, lists: dict[str, tuple[str, ...]]) -> None:
        self.lists, self.read = lists, 0

    def many(self, keys: list[str]) -> dict[str, tuple[str, ...]]:
        found = {k: self.lists[k] for k in keys if k in self.lists}
        self.read += sum(map(len, found.values()))
        return found

    def sizes(self, keys: list[str]) -> dict[str, int]:
        return {k: len(self.lists[k]) for k in keys if k in self.lists}

    def __getitem__(self, key: str) -> tuple[str, ...]:
        return self.many([key])[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.lists)

    def __len__(self) -> int:
        return len(self.lists)


def test_a_lookup_reads_the_shortest_posting_lists_first_and_no_long_one_in_vain() -> None:
    items = [(f"{n:06x}", f"Deploy the service to region {_word(n)} tonight") for n in range(400)]
    built = MeaningIndex[str]().added(items)
    lists = _Counted(dict(built.postings.merged))
    index = MeaningIndex(built.meanings, Layered(lists), built.spellings, Layered(), built.reading)
    # "staging" is filed under nothing: the 400-long lists of the common words stay unread
    assert index.restated_by("Deploy the service to staging tonight") == {}
    assert lists.read == 0
    # the rare word's lists first (its key and its spelling's: the one item each); the
    # common words' terms are then looked at in that item's meaning
    assert index.restated_by(f"Tonight, deploy the service to region {_word(7)}") == {
        items[7][0]: 1.0
    }
    assert lists.read == 2


def _word(n: int) -> str:
    """A made-up word per number, no two one typo apart (each digit a doubled letter)."""
    return "".join("bdfgklmnpr"[int(d)] * 2 + "a" for d in f"{n:03d}")


def test_a_layered_mapping_update_leaves_the_old_version_as_it_was() -> None:
    first = Layered({"a": 1, "b": 2}, max_delta=2)
    second = first.updated([("b", 20), ("c", 3)])
    third = second.updated([("d", 4)])  # the delta outgrows max_delta: merged into a new base
    assert dict(first) == {"a": 1, "b": 2}
    assert dict(second) == {"a": 1, "b": 20, "c": 3}
    assert list(third.items()) == [("a", 1), ("b", 20), ("c", 3), ("d", 4)]
    assert "c" in second and "c" not in first and second["b"] == 20 and len(third) == 4
