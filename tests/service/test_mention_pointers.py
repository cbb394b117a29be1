"""Mentions are pointers, not copies (issue 19): resolved ones are shown by kind, title and
where to read them, one that names nothing (or a file outside the project) is flagged when
written and shown as not found, and a reference returns the content on demand."""

from __future__ import annotations

import pytest

from orbital.errors import NotFound
from orbital.events import Actor
from orbital.grammar.mentions import Mention, find_mentions
from orbital.service import MentionedFile, referenced_text
from tests.service.conftest import Env

DECISIONS = """## use-postgres
Chose: PostgreSQL for the shared store.
Reason: several people write at once.
Rejected: SQLite on a network share.
"""
AGENT = Actor.AGENT


def test_the_grammar_finds_each_kind_once_and_leaves_addresses_alone() -> None:
    text = (
        "See @decision.use-postgres, @lesson.7 and @state.ab12cd. Ask @ask.A1B2C3; read "
        "@file.docs/setup.md. Mail me@example.com; again @decision.use-postgres."
    )
    assert find_mentions(text) == [
        Mention("use-postgres", "decisions"),
        Mention("7", "lessons"),
        Mention("ab12cd", "state"),
        Mention("A1B2C3", "asks"),
        Mention("docs/setup.md", "path"),
    ]
    assert [m.text for m in find_mentions(text)][-1] == "@file.docs/setup.md"


def test_resolved_unresolved_and_out_of_project_mentions(env: Env) -> None:
    (env.root / "docs").mkdir()
    (env.root / "docs" / "setup.md").write_text("Run make.\n")
    (env.root.parent / "secret.txt").write_text("not yours\n")
    env.orbital.write_file(env.project, "DECISIONS.md", DECISIONS.encode(), actor=AGENT)
    ask = env.orbital.ask_open(env.project, "Pick the invoice template", actor=AGENT)
    ask_id = env.orbital.asks(env.project)[0].id
    assert ask.warnings == []
    lessons = (
        f"1. Follow @decision.use-postgres and @ask.{ask_id}; setup in @file.docs/setup.md.\n"
        "2. See @decision.nope and @file.../secret.txt.\n"
    )
    written = env.orbital.write_file(env.project, "LESSONS.md", lessons.encode(), actor=AGENT)
    assert written.warnings == [
        "LESSONS.md: @decision.nope, @file.../secret.txt name nothing in this project (an id "
        "that does not exist, or a file outside the project): kept as written, shown as not "
        "found"
    ]
    assert "@decision.nope" in env.file("LESSONS.md").decode()
    view = env.orbital.context_view(env.project)
    block = view[view.index("Mentioned (pointers") : view.index("[PROJECT_STATE.md]")]
    assert block.strip().splitlines()[1:] == [
        '- @decision.use-postgres: decision "use-postgres" (live) — orbital/DECISIONS.md',
        f'- @ask.{ask_id}: ask "Pick the invoice template" (open) — orbital/ASKS.md',
        "- @file.docs/setup.md: file docs/setup.md — docs/setup.md",
        "- @decision.nope: not found in this project",
        "- @file.../secret.txt: not found in this project",
    ]
    assert "Run make." not in view and "not yours" not in view

    # The content comes on demand.
    mentions = env.orbital.mentions
    found = mentions.resolve(env.project, "@file.docs/setup.md")
    assert found == MentionedFile("docs/setup.md", "Run make.\n")
    decision = referenced_text(mentions.resolve(env.project, "@decision.use-postgres"))
    assert "Rejected: SQLite on a network share." in decision
    assert referenced_text(mentions.resolve(env.project, f"@ask.{ask_id}")) == (
        f"[{ask_id}] Pick the invoice template (open)\n"
    )
    with pytest.raises(NotFound, match="names no file inside the project"):
        mentions.resolve(env.project, "@file.../secret.txt")
    with pytest.raises(NotFound):
        mentions.resolve(env.project, "@decision.nope")


def test_a_mention_in_an_ask_or_a_description_is_flagged_when_written(env: Env) -> None:
    opened = env.orbital.ask_open(env.project, "Revisit @decision.gone", actor=AGENT)
    assert opened.warnings == [
        "the ask: @decision.gone names nothing in this project (an id that does not exist, or "
        "a file outside the project): kept as written, shown as not found"
    ]
    warned = env.orbital.workspaces.describe(env.project, "See @state.zzz.", actor=Actor.USER)
    assert warned.warnings == [
        "project description: @state.zzz names nothing in this project (an id that does not "
        "exist, or a file outside the project): kept as written, shown as not found"
    ]


def test_a_symlink_swapped_in_during_a_file_reference_never_reads_outside(env: Env) -> None:
    """The path is walked from the project's root without following a link and the file read
    is the one opened: a swap at any moment gives the inside bytes or "names no file", never
    the outside file and never an unhandled OSError."""
    import os
    import threading

    (env.root / "docs").mkdir()
    inside = env.root / "docs" / "note.md"
    inside.write_text("inside\n")
    outside = env.root.parent / "outside.txt"
    outside.write_text("OUTSIDE SECRET\n")
    plain, link = env.root / "docs" / ".plain", env.root / "docs" / ".link"
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            plain.write_text("inside\n")
            os.replace(plain, inside)
            link.unlink(missing_ok=True)
            link.symlink_to(outside)
            os.replace(link, inside)

    swapper = threading.Thread(target=swap)
    swapper.start()
    seen: set[str] = set()
    try:
        for _ in range(400):
            try:
                found = env.orbital.mentions.resolve(env.project, "@file.docs/note.md")
                assert isinstance(found, MentionedFile)
                seen.add(found.content)
            except NotFound as exc:
                assert str(exc) == "@file.docs/note.md names no file inside the project"
                seen.add("not found")
    finally:
        stop.set()
        swapper.join()
    assert seen <= {"inside\n", "not found"}
    # A link inside the project, to a file inside it too, is not followed either.
    inside.unlink()
    inside.symlink_to(env.root / "docs" / ".plain")
    with pytest.raises(NotFound, match="names no file inside the project"):
        env.orbital.mentions.resolve(env.project, "@file.docs/note.md")
    (env.root / "sub").symlink_to(env.root / "docs")
    with pytest.raises(NotFound, match="names no file inside the project"):
        env.orbital.mentions.resolve(env.project, "@file.sub/.plain")
