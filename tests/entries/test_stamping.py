"""DECISIONS/LESSONS writes: stamping, re-attachment, ids, no-op rewrites (§2.4 + DESIGN §5)."""

from __future__ import annotations

import datetime as dt
import re

import msgspec

from orbital.events import decode_event, encode_event
from orbital.events.entries import (
    EntryCreated,
    EntryPinned,
    EntryRetired,
    EntryRetitled,
    EntryRevised,
)
from orbital.events.files import FileLayoutSet, FileStoredRaw
from tests.entries.entry_helpers import TODAY, Memory, header

LATER = dt.date(2026, 9, 30)
DECISIONS = (
    "# DECISIONS\n\n## Use Postgres for storage\nChose: Postgres.\n\n"
    "## Ship weekly\nReason: cadence.\n"
)


def _strip_comments(text: str) -> str:
    return re.sub(r" <!--mem [^>]*-->", "", text)


def test_new_entries_are_stamped_on_the_title_line() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    assert mem.text == header("decisions") + (
        "# DECISIONS\n\n"
        "## Use Postgres for storage <!--mem id:use-postgres-for-storage created:2026-09-18 "
        "touched:2026-09-18-->\nChose: Postgres.\n\n"
        "## Ship weekly <!--mem id:ship-weekly created:2026-09-18 touched:2026-09-18-->\n"
        "Reason: cadence.\n"
    )


def test_normalise_ids_new_decision() -> None:
    mem = Memory("decisions")
    mem.write("## New decision\nx\n", dt.date(2026, 9, 19))
    assert "<!--mem id:new-decision created:2026-09-19 touched:2026-09-19-->" in mem.text


def test_comment_stripped_rewrite_makes_no_events_and_renders_byte_identical() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    before = mem.text
    decision = mem.write(_strip_comments(before), LATER)
    assert decision.events == ()
    assert mem.text == before
    # the agent dropping the contract line too changes nothing either
    assert mem.write(_strip_comments(mem.body), LATER).events == ()
    # and the exact file read back is a no-op as well
    assert mem.write(before, LATER).events == ()


def test_touched_bumps_only_when_the_body_changed() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    changed = _strip_comments(mem.text).replace("Chose: Postgres.", "Chose: Postgres 16.")
    decision = mem.write(changed, LATER)
    assert [type(e) for e in decision.events] == [EntryRevised]
    assert "id:use-postgres-for-storage created:2026-09-18 touched:2026-09-30" in mem.text
    assert "id:ship-weekly created:2026-09-18 touched:2026-09-18" in mem.text


def test_whitespace_only_body_change_keeps_touched() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    decision = mem.write(mem.text.replace("Chose: Postgres.\n", "Chose: Postgres.   \n"), LATER)
    # Whitespace at the end of an entry is spacing between entries: layout, no revision.
    assert [type(e) for e in decision.events] == [FileLayoutSet]
    assert "Chose: Postgres.   \n\n## Ship" in mem.text
    assert "touched:2026-09-18" in mem.text and "touched:2026-09-30" not in mem.text


def test_retitle_with_comment_kept_is_a_retitle_without_touch() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    decision = mem.write(mem.text.replace("## Ship weekly", "## Ship every week"), LATER)
    assert [type(e) for e in decision.events] == [EntryRetitled]
    assert "## Ship every week <!--mem id:ship-weekly created:2026-09-18 touched:2026-09-18-->" in (
        mem.text
    )


def test_retitle_without_comment_is_a_new_entry_and_the_old_one_retires() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    retitled = _strip_comments(mem.text).replace("## Ship weekly", "## Ship daily")
    decision = mem.write(retitled, LATER)
    kinds = [type(e) for e in decision.events]
    assert kinds == [EntryCreated, EntryRetired, FileLayoutSet]
    assert "## Ship daily <!--mem id:ship-daily created:2026-09-30 touched:2026-09-30-->" in (
        mem.text
    )
    assert mem.state.entries["ship-weekly"].status == "retired"


def test_duplicate_titles_get_distinct_ids_and_keep_them() -> None:
    mem = Memory("decisions")
    mem.write("## Same\none\n\n## Same\ntwo\n")
    assert re.findall(r"id:([\w-]+)", mem.text) == ["same", "same-2"]
    assert mem.write(_strip_comments(mem.text), LATER).events == ()
    assert re.findall(r"id:([\w-]+)", mem.text) == ["same", "same-2"]


def test_a_new_slug_never_reuses_an_id_the_project_ever_had() -> None:
    mem = Memory("decisions", ever_used={"ship-weekly", "ship-weekly-2", "abc123"})
    mem.write("## Ship weekly\nx\n")
    assert "id:ship-weekly-3 " in mem.text
    # an id copied from elsewhere that the project already used is not taken over
    mem2 = Memory("decisions", ever_used={"abc123"})
    mem2.write("## Other <!--mem id:abc123 created:2026-01-01 touched:2026-01-01-->\nx\n")
    assert "id:other created:2026-09-18" in mem2.text


def test_unknown_own_id_is_kept_with_its_dates() -> None:
    mem = Memory("decisions")
    comment = "<!--mem id:restored created:2026-01-02 touched:2026-03-04 tag:pinned-->"
    mem.write(f"## Restored {comment}\nx\n")
    assert "<!--mem id:restored created:2026-01-02 touched:2026-03-04 tag:pinned-->" in mem.text
    assert mem.state.entries["restored"].pinned


def test_own_id_wins_over_title_and_tag_is_copied_when_absent() -> None:
    mem = Memory("decisions")
    mem.write("## A\n1\n\n## B <!--mem id:b tag:pinned-->\n2\n")
    assert "tag:pinned" in mem.text
    decision = mem.write(_strip_comments(mem.text), LATER)
    assert decision.events == ()
    assert "## B <!--mem id:b created:2026-09-18 touched:2026-09-18 tag:pinned-->" in mem.text
    pin = mem.write(mem.text.replace("id:a created", "id:a tag:pinned created"), LATER)
    assert pin.events == (EntryPinned(entry_id="a"),)


def test_lessons_are_renumbered_contiguously_by_position() -> None:
    mem = Memory("lessons")
    mem.write("# LESSONS\n7. First lesson\nbody\n3. Second lesson\n3. Third lesson\n")
    assert mem.body == (
        "# LESSONS\n"
        "1. First lesson <!--mem id:first-lesson created:2026-09-18 touched:2026-09-18-->\nbody\n"
        "2. Second lesson <!--mem id:second-lesson created:2026-09-18 touched:2026-09-18-->\n"
        "3. Third lesson <!--mem id:third-lesson created:2026-09-18 touched:2026-09-18-->\n"
    )
    swapped = "# LESSONS\n1. Third lesson\n2. First lesson\nbody\n"
    mem.write(swapped, LATER)
    assert mem.body == (
        "# LESSONS\n"
        "1. Third lesson <!--mem id:third-lesson created:2026-09-18 touched:2026-09-18-->\n"
        "2. First lesson <!--mem id:first-lesson created:2026-09-18 touched:2026-09-18-->\nbody\n"
    )


def test_unparseable_file_is_stored_as_is_with_the_reference_warning() -> None:
    mem = Memory("lessons")
    mem.write("1. One\n")
    decision = mem.write("just prose, no numbered entries\n", LATER)
    assert decision.warnings == (
        "lessons: could not parse into entries (expected '^\\d+\\.\\s+' markers) "
        "— wrote as-is, metadata/caps not applied.",
    )
    assert [type(e) for e in decision.events] == [EntryRetired, FileStoredRaw]
    assert mem.text == header("lessons") + "just prose, no numbered entries\n"
    assert mem.write(mem.text, LATER).events == ()


def test_contract_line_is_replaced_by_the_current_one() -> None:
    mem = Memory("decisions")
    mem.write("<!--format my own rules-->\n## A\nx\n")
    assert mem.text.startswith(header("decisions") + "## A <!--mem id:a ")


def test_empty_write_is_empty_body() -> None:
    mem = Memory("decisions")
    mem.write("## A\nx\n")
    mem.write("")
    assert mem.text == header("decisions")


def test_every_event_round_trips_through_the_store_encoding() -> None:
    mem = Memory("decisions")
    mem.write(DECISIONS)
    mem.write(_strip_comments(mem.text).replace("## Ship weekly", "## Ship daily"), LATER)
    for event in mem.events:
        assert decode_event(encode_event(event)) == event
        assert b'"type":' in msgspec.json.encode(event)
    assert TODAY < LATER
