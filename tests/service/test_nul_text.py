"""NUL characters (U+0000) never reach the store: removed wherever text enters, with the one
warning of ``without_nul`` (issue 12 item 10)."""

from __future__ import annotations

import os

from orbital.events import Actor
from orbital.grammar.asks_md import FORMAT_HEADER
from tests.service.conftest import Env


def _stored_texts(env: Env) -> str:
    """Every stored event's data, as text: what the store holds, NUL or not."""
    return "".join(str(e.event) for e in env.orbital.history(env.project))


def _bump(path: os.PathLike[str]) -> None:
    """A later mtime, so a hand edit is seen whatever the clock's resolution."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))


def test_an_ask_text_due_and_note_lose_their_nul_with_a_warning(env: Env) -> None:
    opened = env.orbital.ask_open(
        env.project, "Pick\x00 a date", "2026-10-01\x00", actor=Actor.AGENT
    )
    assert opened.warnings == [
        "the ask's text: removed 1 NUL character (U+0000): stored text cannot hold it.",
        "the ask's due: removed 1 NUL character (U+0000): stored text cannot hold it.",
    ]
    [ask] = env.orbital.asks(env.project)
    assert (ask.text, ask.due) == ("Pick a date", "2026-10-01")
    closed = env.orbital.ask_close(env.project, ask.id, "done", '"ok\x00\x00"', actor=Actor.USER)
    assert closed.warnings == [
        "the note: removed 2 NUL characters (U+0000): stored text cannot hold them."
    ]
    [done] = env.orbital.asks(env.project, "done")
    assert done.note == '"ok"'
    assert env.file("ASKS.md").decode() == (
        f"{FORMAT_HEADER}\n- open {ask.id} 2026-09-19 due:2026-10-01 Pick a date\n"
        f'- done {ask.id} 2026-09-19 by:user "ok"\n'
    )
    assert "\\x00" not in _stored_texts(env)


def test_a_memory_file_write_loses_its_nul_with_a_warning(env: Env) -> None:
    outcome = env.orbital.write_file(
        env.project, "DECISIONS.md", b"## use-\x00tabs\nChose: tabs\x00\n", actor=Actor.AGENT
    )
    assert (
        outcome.warnings[0]
        == "DECISIONS.md: removed 2 NUL characters (U+0000): stored text cannot hold them."
    )
    assert b"\x00" not in env.file("DECISIONS.md")
    assert "## use-tabs" in env.file("DECISIONS.md").decode()
    assert "Chose: tabs\n" in env.file("DECISIONS.md").decode()
    assert "\\x00" not in _stored_texts(env)


def test_an_asks_write_loses_its_nul_with_a_warning(env: Env) -> None:
    current = env.file("ASKS.md")
    outcome = env.orbital.write_file(
        env.project, "ASKS.md", current + b"- open Book\x00 the flights\n", actor=Actor.AGENT
    )
    assert (
        outcome.warnings[0]
        == "ASKS.md: removed 1 NUL character (U+0000): stored text cannot hold it."
    )
    [ask] = env.orbital.asks(env.project)
    assert ask.text == "Book the flights"
    assert (
        env.file("ASKS.md") == current + f"- open {ask.id} 2026-09-19 Book the flights\n".encode()
    )


def test_hand_edits_lose_their_nul_with_a_warning(env: Env) -> None:
    env.orbital.write_file(
        env.project, "DECISIONS.md", b"## use-tabs\nChose: tabs\n", actor=Actor.AGENT
    )
    decisions = env.memory / "DECISIONS.md"
    decisions.write_bytes(decisions.read_bytes().replace(b"Chose: tabs", b"Chose: tabs\x00 always"))
    _bump(decisions)
    asks = env.memory / "ASKS.md"
    asks.write_bytes(asks.read_bytes() + b"- open Call\x00 the vendor\n")
    _bump(asks)
    report = env.orbital.sync(env.project)
    assert (
        "DECISIONS.md: removed 1 NUL character (U+0000): stored text cannot hold it."
        in report.warnings
    )
    assert (
        "ASKS.md: removed 1 NUL character (U+0000): stored text cannot hold it." in report.warnings
    )
    assert b"\x00" not in decisions.read_bytes()
    assert "Chose: tabs always\n" in decisions.read_text()
    [ask] = env.orbital.asks(env.project)
    assert ask.text == "Call the vendor"
    assert b"\x00" not in asks.read_bytes()
    assert "\\x00" not in _stored_texts(env)


def test_a_session_id_loses_its_nul_with_a_warning(env: Env) -> None:
    outcome = env.orbital.ask_open(env.project, "Pick a date", actor=Actor.AGENT, session="s\x001")
    assert outcome.warnings == [
        "the session id: removed 1 NUL character (U+0000): stored text cannot hold it."
    ]
    assert [e.session for e in env.orbital.history(env.project)][-1] == "s1"
