"""PROJECT_STATE id carry-forward (§5.3) — the reference's test_flag_chokepoint.py list."""

from __future__ import annotations

import datetime as dt
import re

from orbital.events.entries import EntryPinned
from orbital.grammar.state_blocks import strip_mem_comments
from tests.entries.entry_helpers import TODAY, Memory, header

LATER = dt.date(2026, 9, 25)
HEX = re.compile(r"<!--mem id:([0-9a-f]{6}) created:2026-09-18 touched:2026-09-18-->")


def _state(text: str) -> Memory:
    mem = Memory("state")
    mem.write(text)
    return mem


def _id(mem: Memory, n: int = 0) -> str:
    return [m[1] for m in re.finditer(r"id:(\w+)", mem.text)][n]


def test_plain_bullet_gets_a_hex_id_and_todays_dates_directly_under_it() -> None:
    mem = _state("- Shipping the installer.\n")
    body = mem.body.splitlines()
    assert body[0] == "- Shipping the installer."
    assert HEX.fullmatch(body[1].strip())
    assert body[1].startswith("  <!--mem ")


def test_numbered_marker_kept_and_flagged_or_dated_bullets_stamped() -> None:
    mem = _state("3. numbered\n12) paren\n- [due:2026-10-01] dated\n- [user] flagged\n")
    lines = mem.body.splitlines()
    assert lines[0::2] == [
        "3. numbered",
        "12) paren",
        "- [due:2026-10-01] dated",
        "- [user] flagged",
    ]
    assert all(HEX.fullmatch(line.strip()) for line in lines[1::2])


def test_continuation_lines_stay_in_their_block_with_one_comment() -> None:
    mem = _state("- parent\n  wrapped\n  - nested\n- next\n")
    assert mem.body.count("<!--mem") == 2
    lines = mem.body.splitlines()
    assert lines[0] == "- parent" and "<!--mem" in lines[1]
    assert lines[2:4] == ["  wrapped", "  - nested"]


def test_pointer_lines_and_prose_are_not_stamped() -> None:
    text = (
        "## Now\nprose line\n[archived 2026-09-01 id:abc] old → PROJECT_STATE_ARCHIVE.md\n* star\n"
    )
    mem = _state(text)
    assert mem.text == header("state") + text
    assert mem.state.entries == {}


def test_comment_stripped_rewrite_is_the_previous_bytes() -> None:
    mem = _state("## Now\n- a\n  more\n- b\n\nprose\n")
    before = mem.text
    decision = mem.write(strip_mem_comments(before), LATER)
    assert decision.events == ()
    assert mem.text == before


def test_legacy_fields_are_carried_verbatim() -> None:
    fields = 'id:abc123 from:user evidence:"she said so" created:2026-09-01'
    mem = _state(f"- a\n  <!--mem {fields}-->\n")
    assert f"<!--mem {fields} touched:2026-09-01-->" in mem.text
    mem.write(strip_mem_comments(mem.text), LATER)
    assert 'from:user evidence:"she said so"' in mem.text


def test_whitespace_only_change_keeps_the_id() -> None:
    mem = _state("- keep   this line\n")
    first = _id(mem)
    mem.write("-   keep this   line\n", LATER)
    assert _id(mem) == first
    assert "touched:2026-09-18" in mem.text


def test_rewording_keeps_the_id_and_fields_touched_today() -> None:
    # Issue 13 item 5 (upstream gave a new id): a reworded line is the same line.
    mem = _state("- old wording\n  <!--mem id:abc123 from:user created:2026-09-01-->\n")
    mem.write("- new wording\n", LATER)
    assert "<!--mem id:abc123 from:user created:2026-09-01 touched:2026-09-25-->" in mem.text
    assert mem.state.entries["abc123"].status == "live"
    assert mem.state.entries["abc123"].text == "- new wording\n"


def test_reworded_line_with_the_old_comment_attached_keeps_its_id() -> None:
    mem = _state("- old wording\n")
    old = _id(mem)
    mem.write(mem.text.replace("old wording", "new wording"), LATER)
    assert _id(mem) == old


def test_a_line_that_says_something_else_gets_a_new_id() -> None:
    mem = _state("- Focus: the v2 release\n")
    old = _id(mem)
    mem.write("- Blocked on CI flakiness in the Postgres job\n", LATER)
    assert _id(mem) != old
    assert mem.state.entries[old].status == "retired"


def test_a_pinned_line_reworded_keeps_its_id_and_pin() -> None:
    mem = _state("- Deploy target is staging\n- Next: write the migration tests\n")
    pinned = _id(mem, 1)
    mem.apply([EntryPinned(entry_id=pinned)])
    view = strip_mem_comments(mem.text)
    decision = mem.write(
        view.replace("write the migration tests", "write the migration tests for Postgres"),
        LATER,
    )
    assert [type(e).__name__ for e in decision.events] == ["EntryRevised"]
    entry = mem.state.entries[pinned]
    assert entry.pinned and entry.status == "live" and entry.touched == LATER
    assert entry.text == "- Next: write the migration tests for Postgres\n"


def test_rewordings_pair_the_most_similar_lines_each_once() -> None:
    mem = _state("- Deploy target is staging\n- Waiting on the signing certificate\n")
    deploy, cert = _id(mem, 0), _id(mem, 1)
    mem.write(
        "- Waiting on the signing certificate from Apple\n- Deploy target is production\n",
        LATER,
    )
    assert [_id(mem, 0), _id(mem, 1)] == [cert, deploy]


def test_tag_toggle_keeps_the_id() -> None:
    mem = _state("- decide the venue\n")
    old = _id(mem)
    mem.write("- [due:2026-10-01] decide the venue\n", LATER)
    assert _id(mem) == old
    mem.write("- [user] decide the venue\n", LATER)
    assert _id(mem) == old


def test_renumbered_item_keeps_the_id() -> None:
    mem = _state("1. first\n2. second\n")
    second = _id(mem, 1)
    mem.write("1. second\n", LATER)
    assert _id(mem) == second


def test_duplicated_line_second_copy_gets_a_new_id() -> None:
    mem = _state("- same\n")
    old = _id(mem)
    mem.write("- same\n- same\n", LATER)
    ids = re.findall(r"id:(\w+)", mem.text)
    assert ids[0] == old and ids[1] != old and len(set(ids)) == 2


def test_new_comment_fields_win() -> None:
    mem = _state("- a\n")
    old = _id(mem)
    dates = "created:2026-09-18 touched:2026-09-18"
    mem.write(mem.text.replace(f"{dates}-->", f"{dates} resolved:2026-09-20-->"))
    assert f"<!--mem id:{old} {dates} resolved:2026-09-20-->" in mem.text


def test_unknown_id_in_new_content_is_kept_with_its_dates() -> None:
    mem = _state("- restored line\n  <!--mem id:0a0b0c created:2026-01-02 touched:2026-02-03-->\n")
    assert "<!--mem id:0a0b0c created:2026-01-02 touched:2026-02-03-->" in mem.text


def test_duplicate_ids_in_new_content_are_split() -> None:
    mem = _state(
        "- one\n  <!--mem id:0a0b0c created:2026-01-02-->\n- two\n  <!--mem id:0a0b0c-->\n"
    )
    ids = re.findall(r"id:(\w+)", mem.text)
    assert ids[0] == "0a0b0c" and ids[1] != "0a0b0c"


def test_comment_below_a_continuation_line_is_moved_under_the_bullet() -> None:
    mem = _state("- a\n  cont\n  <!--mem id:0a0b0c created:2026-01-02 touched:2026-01-02-->\n")
    assert mem.body == "- a\n  <!--mem id:0a0b0c created:2026-01-02 touched:2026-01-02-->\n  cont\n"


def test_wrapped_legacy_comment_is_read_and_one_comment_written() -> None:
    mem = _state("- a\n  <!--mem id:0a0b0c\n     created:2026-01-02-->\n")
    assert mem.body == "- a\n  <!--mem id:0a0b0c created:2026-01-02 touched:2026-01-02-->\n"


def test_no_resolved_lock_no_retraction_drop_no_omission_lint() -> None:
    mem = _state("- a\n  <!--mem id:0a0b0c resolved:2026-09-01-->\n")
    decision = mem.write("- b replaced it\n", LATER)
    assert decision.warnings == ()
    assert "0a0b0c" not in mem.text


def test_bullet_less_file_is_byte_identical_and_writes_are_idempotent() -> None:
    mem = _state("## Notes\njust prose\n")
    assert mem.text == header("state") + "## Notes\njust prose\n"
    mem2 = _state("- a\n- b\n")
    once = mem2.text
    assert mem2.write(once, LATER).events == ()
    assert mem2.text == once


def test_stripped_view_round_trips_even_on_a_later_date() -> None:
    mem = _state("## Now\n- a\n- b\n")
    before = mem.text
    assert mem.write(strip_mem_comments(before), dt.date(2027, 1, 1)).events == ()
    assert mem.text == before


def test_unterminated_comment_does_not_swallow_the_file() -> None:
    mem = _state("- a <!--mem id:zz\n- b\nprose\n")
    assert mem.body.count("created:2026-09-18") == 2  # both bullets are blocks of their own
    assert mem.body.startswith("- a <!--mem id:zz\n  <!--mem id:")
    assert mem.body.endswith("prose\n")


def test_empty_content_is_empty() -> None:
    mem = _state("")
    assert mem.body == "" and mem.events == []


def test_index_gets_the_header_and_no_comments() -> None:
    mem = Memory("index")
    mem.write("## Code\n- src/app.py — entry point\n")
    assert mem.text == header("index") + "## Code\n- src/app.py — entry point\n"


def test_prose_state_is_header_newline_content() -> None:
    assert _state("Some prose.\n").text == header("state") + "Some prose.\n"


def test_edit_built_from_the_stripped_view_keeps_unchanged_ids() -> None:
    mem = _state("- one\n- two\n- three\n")
    ids = re.findall(r"id:(\w+)", mem.text)
    view = strip_mem_comments(mem.text)
    mem.write(view.replace("- two\n", "- two, reworded\n").replace("- three\n", "- 3\n"), LATER)
    new_ids = re.findall(r"id:(\w+)", mem.text)
    assert new_ids[0] == ids[0] and new_ids[1] == ids[1] and new_ids[2] != ids[2]
    assert TODAY < LATER
