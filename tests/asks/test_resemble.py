"""The wider reading behind a held line (:mod:`orbital.domain.resemble`) and the WordNet it
reads (:mod:`orbital.domain.wordnet`, loaded by the service: :data:`WORDNET`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbital.domain.asks import index_dropped
from orbital.domain.meaning_index import MeaningIndex
from orbital.domain.rephrase import same_intent
from orbital.domain.resemble import resembles, resembling
from orbital.domain.wordnet import NONE, WordNet, exceptions_of
from orbital.events.asks import AskOpened
from orbital.grammar.asks_md import parse_line, render_event
from tests.asks.helpers import TODAY, asks_of
from tests.wordnet_helpers import WORDNET, needs_wordnet


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Renew the certificate for the shop", "Renew the cert for the shop"),
        ("Set up single sign-on with Okta", "Set up SSO with Okta"),
        ("Increase poolSize to 50", "Increase the pool size to 50"),
    ],
)
def test_abbreviations_acronyms_and_identifiers_resemble(earlier: str, later: str) -> None:
    assert not same_intent(earlier, later)
    assert resembles(earlier, later, WORDNET()) and resembles(later, earlier, WORDNET())


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Translate the pricing page into French", "Translate the pricing page into Italian"),
        ("Archive the old Jira project", "Archive the old Confluence space"),
        ("Enable dark mode in the mobile app", "Disable dark mode in the mobile app"),
    ],
)
def test_a_different_object_or_the_opposite_does_not_resemble(earlier: str, later: str) -> None:
    assert not resembles(earlier, later, WORDNET())


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # a letter before a number is a short word for the term beside it; ordinals
        ("Close the books for Q2", "Close the books for the second quarter"),
        ("Ship the v2 importer", "Ship the version 2 importer"),
        # a word's first letter and later consonants; numeronyms
        ("Move the cfg loader into its own module", "Move the config loader into its own module"),
        ("Hash the pwd before storing it", "Hash the password before storing it"),
        ("Add i18n to the signup form", "Add internationalization to the signup form"),
        # an acronym counts as the words it stands for in the share of both sides
        (
            "Sign the DPA with our hosting provider",
            "Sign the data processing agreement with our hosting provider before launch",
        ),
        # identifiers in any case read as words; a letter left out of a five-letter word
        ("Raise maxRetries on the client", "Raise max_retries on the client"),
        ("Merge the two search branches", "Mrge the two search branches"),
    ],
)
def test_general_abbreviation_and_spelling_rules_resemble(earlier: str, later: str) -> None:
    assert not same_intent(earlier, later)
    assert resembles(earlier, later, WORDNET()) and resembles(later, earlier, WORDNET())


@needs_wordnet
@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Book a room for the conference", "Book a room for the meeting"),  # one level broader
        ("Pick a name for the mascot", "Choose what we call the mascot"),  # a sense in common
        ("Do not lower the payment service timeout", "Raise the payment service timeout"),
    ],
)
def test_wordnet_relations_resemble(earlier: str, later: str) -> None:
    assert resembles(earlier, later, WORDNET()) and resembles(later, earlier, WORDNET())


@needs_wordnet
@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Close the books for Q2", "Close the books for Q3"),  # another number
        # "staging" is a kind of "production" only in a sense WordNet's corpus never met
        ("Deploy the v2 importer to production", "Deploy the v2 importer to staging"),
        # a word used mostly as a noun names the object, however common: never a light word
        ("Interview two people for the support team", "Interview two people for the sales team"),
        # antonyms are the opposite action
        ("Lower the timeout for the payment service", "Raise the timeout for the payment service"),
        ("Start the weekly newsletter", "Stop the weekly newsletter"),
    ],
)
def test_near_misses_do_not_resemble(earlier: str, later: str) -> None:
    assert not resembles(earlier, later, WORDNET()) and not resembles(later, earlier, WORDNET())


@needs_wordnet
def test_wordnet_usual_senses_broader_and_opposite() -> None:
    wordnet = WORDNET()
    meeting = wordnet.senses("meeting")
    assert any(wordnet.broader(s) & meeting for s in wordnet.usual_senses("conference"))
    assert wordnet.usual_senses("staging") < wordnet.senses("staging")
    assert any(wordnet.opposite(s) & wordnet.senses("lower") for s in wordnet.usual_senses("raise"))
    assert wordnet.tagged_as("support")["n"] > wordnet.tagged_as("support")["v"] > 0


@needs_wordnet
def test_wordnet_senses_and_base_forms() -> None:
    assert WORDNET().senses("reserve") & WORDNET().senses("book")
    assert WORDNET().senses("databases") == WORDNET().senses("database")
    assert WORDNET().senses("set up") and WORDNET().senses("zzqx") == frozenset()
    assert WORDNET().tagged("find") > WORDNET().tagged("french")
    assert resembles(
        "Book a meeting room for the retro", "Reserve a meeting room for the retro", WORDNET()
    )


@needs_wordnet
def test_the_index_finds_what_comparing_each_finds() -> None:
    texts = [
        "Book a meeting room for the retro",
        "Set up SSO with Okta",
        "Translate the pricing page into French",
        "Buy a standing desk for the office",
    ]
    index = MeaningIndex[str](reading=resembling(WORDNET())).added(
        (str(i), t) for i, t in enumerate(texts)
    )
    for query in [
        "Reserve a meeting room for the retro",
        "Set up single sign-on with Okta",
        "Purchase a standing desk for the office",
        "Translate the pricing page into Italian",
    ]:
        found = set(index.restated_by(query))
        assert found == {str(i) for i, t in enumerate(texts) if resembles(t, query, WORDNET())}


def test_distinct_from_round_trips_on_an_open_line() -> None:
    line = "- open a1b2c3 2026-09-19 Check the German VAT (distinct from d4e5f6, 0a0b0c)"
    parsed = parse_line(line)
    assert parsed is not None and parsed.distinct_from == ("d4e5f6", "0a0b0c")
    event = AskOpened(
        ask_id="a1b2c3", text=parsed.text, date=TODAY, distinct_from=parsed.distinct_from
    )
    assert render_event(event) == line
    assert asks_of(f"{line}\n")["a1b2c3"].text == "Check the German VAT"
    assert index_dropped(asks_of(f"{line}\n")).by_id == {}


WIDE_WORDS = st.sampled_from(
    ["book", "reserve", "db", "database", "sso", "single", "sign", "on", "prod", "production",
     "product", "poolSize", "pool", "size", "find", "the", "room", "not", "cert", "certificate"]
)  # fmt: skip
WIDE_TEXT = st.lists(WIDE_WORDS, min_size=1, max_size=5).map(" ".join)
WIDE_TEXTS = st.lists(WIDE_TEXT, min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(WIDE_TEXT, min_size=1, max_size=12), split=st.integers(0, 12), query=WIDE_TEXT
)
def test_the_wide_index_finds_what_comparing_each_finds(
    texts: list[str], split: int, query: str
) -> None:
    items = [(f"{n:06x}", text) for n, text in enumerate(texts)]
    index = MeaningIndex[str](reading=resembling(WORDNET())).added(items[:split])
    for item in items[split:]:  # grown one by one, as drops come in
        index = index.added([item])
    reading = resembling(WORDNET())
    wide = reading.meaning
    expected = {
        item: found.strength
        for item, text in items
        if reading.same(found := reading.overlap(wide(text), wide(query)))
    }
    assert index.restated_by(query) == expected


#: A WordNet index file of two lemmas (sorted; the licence lines first, as in the real one).
TINY_INDEX = b"  licence\nbook n 2 1 @ 2 1 00000001 00000002 \nmouse n 1 0 1 3 00000003 \n"


def test_the_core_reads_the_wordnet_it_is_handed() -> None:
    """The core opens no file: the shell hands it the index files' bytes (mapped) and the
    exception lists parsed."""
    tiny = WordNet(
        {"noun": TINY_INDEX, "verb": b"", "adj": b"", "adv": b""},
        {"noun": exceptions_of("mice mouse\n\n")},
    )
    assert tiny.senses("mice") == tiny.senses("mouse") == frozenset({"n00000003"})
    assert tiny.senses("books") == frozenset({"n00000001", "n00000002"})
    assert tiny.tagged("mouse") == 3 and tiny.tagged("book") == 1
    assert NONE.senses("mouse") == frozenset() and NONE.tagged("mouse") == 0
