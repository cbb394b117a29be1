"""The refusal indexes kept up to date by the asks that change equal indexes built afresh,
and the indexed dropped search finds what a comparison with every dropped ask finds."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from orbital.domain.asks import (
    DROPPED_SIMILARITY,
    Ask,
    AskState,
    OpenIndex,
    dropped_match,
    fuzzy_key,
    index_dropped,
    index_open,
    norm,
)
from orbital.domain.layered import Layered

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
    """The refusal's rule spelled out: exact (latest), else best ratio (latest on ties)."""
    dropped = [a for a in asks.values() if a.state == "dropped"]
    key, fkey = norm(text), fuzzy_key(text)
    exact = [a for a in dropped if norm(a.text) == key or (fkey and fuzzy_key(a.text) == fkey)]
    if exact:
        return max(exact, key=lambda a: a.seq)
    scored = [
        (fuzz.ratio(fkey, k), a.seq, a)
        for a in dropped
        if fkey and (k := fuzzy_key(a.text)) and fuzz.ratio(fkey, k) >= DROPPED_SIMILARITY * 100
    ]
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


def test_the_length_window_keeps_keys_exactly_at_the_threshold() -> None:
    # ratio("aaa", "aaaaa") = 2*3/8 = 75: a key 5/3 as long (or 3/5) still matches; 6 does not.
    asks = {
        "a00001": _ask("a00001", "aaaaa", "dropped", 1),
        "a00002": _ask("a00002", "bbb", "dropped", 2),
        "a00003": _ask("a00003", "cccccc", "dropped", 3),
    }
    index = index_dropped(asks)
    assert dropped_match(asks, "aaa", index) == asks["a00001"]
    assert dropped_match(asks, "bbbbb", index) == asks["a00002"]
    assert dropped_match(asks, "ccc", index) is None


def test_a_layered_mapping_update_leaves_the_old_version_as_it_was() -> None:
    first = Layered({"a": 1, "b": 2}, max_delta=2)
    second = first.updated([("b", 20), ("c", 3)])
    third = second.updated([("d", 4)])  # the delta outgrows max_delta: merged into a new base
    assert dict(first) == {"a": 1, "b": 2}
    assert dict(second) == {"a": 1, "b": 20, "c": 3}
    assert list(third.items()) == [("a", 1), ("b", 20), ("c", 3), ("d", 4)]
    assert "c" in second and "c" not in first and second["b"] == 20 and len(third) == 4
