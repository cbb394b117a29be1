"""The choices document: tolerant extraction, typed validation, per-item rejections."""

from __future__ import annotations

import pytest

from orbital.domain.editor.choices import (
    ArchiveChoice,
    CloseAskChoice,
    MergeChoice,
    clean_pointer,
    extract_json_object,
    parse_choices,
)


@pytest.mark.parametrize(
    "reply",
    [
        '{"archive": []}',
        '```json\n{"archive": []}\n```',
        '```\n{"archive": []}\n```',
        'Here are my choices:\n```json\n{"archive": []}\n```\nDone.',
        'Sure! {"archive": []} Hope that helps.',
        '  \n{"archive": []}\n',
    ],
)
def test_json_is_found_in_fences_and_prose(reply: str) -> None:
    assert extract_json_object(reply) == {"archive": []}


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "no json here",
        '[{"archive": []}]',
        'Here: [{"archive": []}]',
        '"a string"',
        "42",
        '{"archive": [}',
        "} backwards {",
    ],
)
def test_arrays_and_garbage_are_not_choices(reply: str) -> None:
    assert extract_json_object(reply) is None


def test_a_full_document_is_typed() -> None:
    choices = parse_choices(
        {
            "archive": [
                {"file": "PROJECT_STATE.md", "id": " s1 ", "pointer": "Old  launch\nnotes"},
                {"file": "lessons", "id": "l1"},
            ],
            "merge": [
                {"file": "decisions.md", "ids": ["d1", "d2"], "text": "## Use X\nbody"},
            ],
            "close_asks": [{"id": "a1b2c3", "session": "s", "quote": "yes"}],
            "index": "# Index\n",
        }
    )
    assert choices.rejected == ()
    assert choices.entries.archive == (
        ArchiveChoice(file="state", id="s1", pointer="Old launch notes"),
        ArchiveChoice(file="lessons", id="l1", pointer=""),
    )
    assert choices.entries.merge == (
        MergeChoice(file="decisions", ids=("d1", "d2"), text="## Use X\nbody"),
    )
    assert choices.entries.index == "# Index\n"
    assert choices.close_asks == (CloseAskChoice(id="a1b2c3", session="s", quote="yes"),)


def test_bad_items_are_rejected_one_by_one() -> None:
    choices = parse_choices(
        {
            "archive": [
                "s1",
                {"file": "INDEX.md", "id": "i1"},
                {"file": "NOTES.md", "id": "n1"},
                {"file": "DECISIONS.md"},
                {"id": "nf"},
                {"file": "DECISIONS.md", "id": "ok"},
            ],
            "merge": [
                7,
                {"file": "LESSONS.md", "ids": [], "text": "x"},
                {"file": "LESSONS.md", "ids": ["a", "a"], "text": "x"},
                {"file": "LESSONS.md", "ids": ["a", 3], "text": "x"},
                {"file": "LESSONS.md", "ids": "a", "text": "x"},
                {"file": "LESSONS.md", "ids": ["a", "b"], "text": "  "},
                {"file": "ASKS.md", "ids": ["a", "b"], "text": "x"},
            ],
            "close_asks": [["a1b2c3"]],
            "index": "   ",
        }
    )
    assert choices.rejected == (
        "archive: not an object",
        "archive i1: INDEX.md cannot be edited by id",
        "archive n1: NOTES.md cannot be edited by id",
        "archive ?: missing id",
        "archive nf: missing file",
        "merge: not an object",
        "merge ?: ids must be a non-empty list of distinct ids",
        "merge a,a: ids must be a non-empty list of distinct ids",
        "merge a: ids must be a non-empty list of distinct ids",
        "merge ?: ids must be a non-empty list of distinct ids",
        "merge a,b: empty text",
        "merge a,b: ASKS.md cannot be edited by id",
        "close_asks: not an object",
        "index: empty or unchanged",
    )
    assert choices.entries.archive == (ArchiveChoice(file="decisions", id="ok"),)
    assert choices.entries.merge == ()
    assert choices.entries.index is None


def test_wrong_section_types_are_rejected_and_unknown_keys_ignored() -> None:
    choices = parse_choices(
        {"archive": {"id": "x"}, "index": 3, "decisions": "# whole file", "notes": []}
    )
    assert choices.rejected == ("archive: not a list", "index: not a string")
    assert choices.entries.archive == ()
    assert choices.entries.index is None


def test_an_empty_document_changes_nothing() -> None:
    choices = parse_choices({})
    assert (choices.entries.archive, choices.entries.merge, choices.close_asks) == ((), (), ())
    assert choices.rejected == ()


def test_close_fields_of_the_wrong_type_become_empty() -> None:
    choices = parse_choices({"close_asks": [{"id": 5, "session": None, "quote": ["x"]}]})
    assert choices.close_asks == (CloseAskChoice(),)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Launch notes → PROJECT_STATE_ARCHIVE.md", "Launch notes"),
        ("Launch notes -> DECISIONS_ARCHIVE.md  ", "Launch notes"),
        ("Launch  notes\n(see below)", "Launch notes (see below)"),
        ("See DECISIONS_ARCHIVE.md for more", "See DECISIONS_ARCHIVE.md for more"),
        ("Moved → elsewhere", "Moved → elsewhere"),
        ("x" * 300, "x" * 200),
        ("", ""),
    ],
)
def test_pointer_text_is_cleaned(raw: str, clean: str) -> None:
    assert clean_pointer(raw) == clean
