"""An entry's render is kept by everything it reads (``orbital.grammar.render``): a render
found kept is the render from nothing, and a change to any input is a new key."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from orbital.grammar import render
from orbital.grammar.model import Entry

texts = st.sampled_from(
    ["## Use SQLite\nChose: it.\n", "3. Retry the lock.\n\n", "- Ship on Friday", "## A"]
)
days = st.dates(dt.date(2026, 1, 1), dt.date(2026, 12, 31))
metas = st.dictionaries(st.sampled_from(["tag", "x"]), st.sampled_from(["pinned", "v"]))
entries = st.builds(
    Entry,
    entry_id=st.sampled_from(["use-sqlite", "a1b2c3"]),
    file=st.just("decisions"),
    text=texts,
    created=days,
    touched=days,
    meta=metas,
)
changes = st.sampled_from(["text", "entry_id", "created", "touched", "meta"])


def fresh(entry: Entry, key: str, number: int | None) -> str:
    render._rendered.cache_clear()
    return render.render_entry(entry, key, number)


@given(entries, st.sampled_from(["decisions", "lessons", "state"]), st.integers(1, 9), changes)
def test_a_kept_render_is_the_fresh_one_and_a_changed_input_misses(
    entry: Entry, key: str, number: int, change: str
) -> None:
    first = fresh(entry, key, number)
    before = render._rendered.cache_info()
    assert render.render_entry(entry, key, number) == first
    assert render._rendered.cache_info().hits == before.hits + 1
    changed = {
        "text": replace(entry, text=entry.text + "More.\n"),
        "entry_id": replace(entry, entry_id=entry.entry_id + "-2"),
        "created": replace(entry, created=entry.created - dt.timedelta(days=1)),
        "touched": replace(entry, touched=entry.touched + dt.timedelta(days=1)),
        "meta": replace(entry, meta={**entry.meta, "tag": "other"}),
    }[change]
    before = render._rendered.cache_info()
    again = render.render_entry(changed, key, number)
    assert render._rendered.cache_info().misses == before.misses + 1
    assert again == fresh(changed, key, number) != first
    if key == "lessons":  # the number is read too (LESSONS alone are numbered)
        assert render.render_entry(entry, key, number + 1) == fresh(entry, key, number + 1)
