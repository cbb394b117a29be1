"""Grammars of the memory files: splits, id comments, slugs, contracts, pointers (§2, §7.5)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbital.grammar.durable import (
    MARKERS,
    normalized_title,
    parse_title_line,
    render_title_comment,
    slug,
    split_entries,
)
from orbital.grammar.memory_files import FORMAT_HEADERS, ensure_format_header, strip_format_header
from orbital.grammar.pointers import pointer_date, pointer_ids, pointer_line, pointer_summary
from orbital.grammar.state_blocks import (
    match_key,
    parse_blocks,
    parse_fields,
    render_fields,
    strip_mem_comments,
)


@pytest.mark.parametrize(
    ("title", "key", "expected"),
    [
        ("## Use Postgres for storage", "decisions", "use-postgres-for-storage"),
        ("3. Curl beats the browser for GitHub.", "lessons", "curl-beats-the-browser-for-githu"),
        ("## 2026-06-15: Adopt **Vite** over Webpack", "decisions", "adopt-vite-over-webpack"),
        ("## 选方案", "decisions", "entry"),
        ("## New decision", "decisions", "new-decision"),
    ],
)
def test_slug_examples(title: str, key: str, expected: str) -> None:
    assert slug(normalized_title(title, key)) == expected


def test_split_is_lossless_and_markers_are_exact() -> None:
    text = "# DECISIONS\nintro\n## A\nbody\n### not an entry\n##\tB\nx\n"
    preamble, entries = split_entries(text, "decisions") or ("", [])
    assert preamble == "# DECISIONS\nintro\n"
    assert entries == ["## A\nbody\n### not an entry\n", "##\tB\nx\n"]
    assert preamble + "".join(entries) == text
    assert split_entries("1) no\n- nope\n", "lessons") is None
    assert split_entries("12. yes\n", "lessons") == ("", ["12. yes\n"])


@given(
    st.lists(
        st.sampled_from(["## ", "##", "#", "##\t", "\n", "\r", " ", "x", "1. ", "é", "\n## A\n"])
    ).map("".join)
)
def test_split_finds_each_marker_where_it_starts_a_line(text: str) -> None:
    """The split's own spelling of a marker finds exactly what the marker (``^`` under
    ``re.M``) finds."""
    for key, marker in MARKERS.items():
        parts = re.split(f"({marker})", text, flags=re.M)
        expected = (
            None
            if len(parts) < 3
            else (parts[0], [parts[i] + parts[i + 1] for i in range(1, len(parts), 2)])
        )
        assert split_entries(text, key) == expected


def test_title_comment_parse_and_render() -> None:
    line = "## Use Postgres <!--mem id:use-postgres created:2026-09-19 junk x:1 :v-->  "
    title, fields = parse_title_line(line)
    assert title == "## Use Postgres"
    assert fields == {"id": "use-postgres", "created": "2026-09-19", "x": "1"}
    assert parse_title_line("## A <!--mem id:a--> trailing") == (
        "## A <!--mem id:a--> trailing",
        {},
    )
    assert (
        render_title_comment({"tag": "pinned", "id": "a", "created": "", "touched": "t", "x": "y"})
        == "<!--mem id:a touched:t tag:pinned-->"
    )


def test_state_field_grammar_and_render_order() -> None:
    fields = parse_fields('id:abc123 resolved:2026-09-19 from:"the user \\"said\\"" x:1 created:c')
    assert fields == {
        "id": "abc123",
        "resolved": "2026-09-19",
        "from": 'the user "said"',
        "x": "1",
        "created": "c",
    }
    assert render_fields({**fields, "touched": "t", "empty": ""}) == (
        '<!--mem id:abc123 from:"the user \\"said\\"" '
        "created:c touched:t resolved:2026-09-19 x:1-->"
    )


def test_state_blocks_grammar() -> None:
    text = (
        "## Now\n- a\n  cont\n  <!--mem id:aaaaaa\n  created:2026-09-01-->\n* star\n+ plus\n"
        "3. three\n12) twelve\n  ## heading ends\n- [user, due:2026-10-01]  tagged   line\n"
        "[archived 2026-09-01 id:x] p → PROJECT_STATE_ARCHIVE.md\n"
    )
    blocks = parse_blocks(text)
    assert [b.raw.splitlines()[0] for b in blocks] == [
        "- a",
        "3. three",
        "12) twelve",
        "- [user, due:2026-10-01]  tagged   line",
    ]
    assert blocks[0].fields == {"id": "aaaaaa", "created": "2026-09-01"}
    assert blocks[0].text == "a cont"
    assert blocks[3].match_key == "tagged line"
    assert match_key("[note] keep the tag") == "[note] keep the tag"


def test_unterminated_comment_does_not_swallow_the_file() -> None:
    blocks = parse_blocks("- a <!--mem id:x\nprose\n- b\n")
    assert [b.raw for b in blocks] == ["- a <!--mem id:x\n", "- b\n"]


def test_stripped_view_removes_comments_and_collapses_blank_runs() -> None:
    text = "- a\n  <!--mem id:a-->\n\n\n\n- b <!--mem id:b-->\n"
    assert strip_mem_comments(text) == "- a\n\n- b\n"


def test_format_header_is_normalised() -> None:
    head = FORMAT_HEADERS["index"]
    assert ensure_format_header("body\n", "index") == head + "\n" + "body\n"
    assert ensure_format_header("<!--format old-->\nbody\n", "index") == head + "\nbody\n"
    assert ensure_format_header(head + "\nbody\n", "index") == head + "\nbody\n"
    assert ensure_format_header("<!--format broken\nbody", "index") == (
        head + "\n<!--format broken\nbody"
    )
    assert strip_format_header(head + "\nbody\n") == "body\n"
    assert strip_format_header("body\n") == "body\n"


def test_verbatim_contracts() -> None:
    assert FORMAT_HEADERS["decisions"] == (
        "<!--format DECISIONS entries: '## <slug>' then Chose / Reason / Rejected. When a "
        "decision changes, add the new entry with a line 'Supersedes: <id>[, <id>…] "
        "[since YYYY-MM-DD]' naming the old entries' ids (from their id comments; since: when "
        "the change took effect) and Orbital moves them to the archive; never leave "
        "contradictions.-->"
    )
    assert FORMAT_HEADERS["lessons"].startswith("<!--format LESSONS entries: numbered durable")
    assert FORMAT_HEADERS["index"].startswith("<!--format INDEX is a navigation map ONLY: ")
    state = FORMAT_HEADERS["state"]
    assert "\n" not in state
    assert state.startswith("<!--format ") and state.endswith("-->")
    for point in ("NOW", "[due:YYYY-MM-DD]", "orbital/ASKS.md", "[user]", "money", "comment"):
        assert point in state
    assert 240 <= len(state) / 4 <= 300


# §11.3 1-3


def test_pointer_line_format() -> None:
    line = pointer_line(
        dt.date(2026, 9, 19), ["c9bf60"], "GOAI booth prep", "PROJECT_STATE_ARCHIVE.md"
    )
    assert line == "[archived 2026-09-19 id:c9bf60] GOAI booth prep → PROJECT_STATE_ARCHIVE.md"
    assert pointer_date(line) == dt.date(2026, 9, 19)
    assert pointer_ids(line) == ["c9bf60"]


def test_pointer_line_with_several_ids_and_multiline_summary() -> None:
    line = pointer_line(dt.date(2026, 9, 19), ["a1", "b2"], "two\nlines → here", "X_ARCHIVE.md")
    assert line.startswith("[archived 2026-09-19 id:a1 id:b2] two lines -> here → ")
    assert "\n" not in line
    assert pointer_ids(line) == ["a1", "b2"]


def test_legacy_idless_stub_is_a_pointer_too() -> None:
    line = "[archived 2026-07-28] Old stance → DECISIONS_ARCHIVE.md"
    assert pointer_date(line) == dt.date(2026, 7, 28)
    assert pointer_ids(line) == []


def test_pointer_summary() -> None:
    assert pointer_summary("**bold**   text") == "bold text"
    assert pointer_summary("x" * 70) == "x" * 59 + "…"
    idless = pointer_line(dt.date(2026, 9, 19), [], "  ", "A.md")
    assert idless == "[archived 2026-09-19] older entry → A.md"
