"""The user's words, verified, end to end on a real store: an agent's close or reopen quoting
the user is checked against its Claude Code session transcript (issue 14), and an agent
reopen of an ask the user dropped needs those words (issue 13 item 4), whichever way it comes:
an ASKS.md write, ``orbital ask reopen``, or the MCP tool."""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor, decode_event, encode_event
from orbital.events.asks import AskClosed, AskReopened
from tests.service.conftest import Env

VENUE = "Choose the venue for the launch party"
TYPED = "ok let's go with the rooftop bar for the launch party"
#: A transcript as Claude Code 2.1.332 writes it (tests/editor/data has a real one): what the
#: person typed, a mid-turn message, and rows that hold words the person never typed.
ROWS = [
    {"type": "queue-operation", "operation": "enqueue", "content": TYPED},
    {"type": "user", "message": {"role": "user", "content": TYPED}, "promptSource": "sdk"},
    {
        "type": "attachment",
        "attachment": {
            "type": "hook_additional_context",
            "content": ["Orbital: the user said bring back the launch party"],
        },
    },
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "book the hall"}]},
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": "book the hall"}],
        },
        "toolUseResult": {"stdout": "book the hall"},
    },
    {
        "type": "attachment",
        "attachment": {
            "type": "queued_command",
            "prompt": "actually I do want the launch party after all",
            "commandMode": "prompt",
        },
    },
]


def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "session-1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def opened(env: Env, text: str = VENUE) -> str:
    outcome = env.orbital.ask_open(env.project, text, actor=Actor.AGENT)
    return outcome.events[0].stream.split(":")[1]


def append(env: Env, line: str, path: Path | None) -> list[str]:
    text = env.file("ASKS.md").decode() + line + "\n"
    outcome = env.orbital.write_file(
        env.project, "ASKS.md", text.encode(), actor=Actor.AGENT, session="s1", transcript=path
    )
    return outcome.warnings


def last(env: Env, head: int) -> list[tuple[str, Actor, str | None, object]]:
    return [
        (e.type, e.actor, e.session, e.event)
        for e in env.orbital.history(env.project)
        if e.position > head
    ]


def test_a_close_quoting_the_user_is_recorded_verified(env: Env, tmp_path: Path) -> None:
    ask = opened(env)
    head = env.orbital.head(env.project)
    warnings = append(env, f'- done {ask} "Let\'s go with the rooftop bar"', transcript(tmp_path))
    assert warnings == [
        f"ASKS.md: done [{ask}]. The file now ends with: - done {ask} 2026-09-19 by:agent "
        '"Let\'s go with the rooftop bar"'
    ]
    note = '"Let\'s go with the rooftop bar"'
    closed = AskClosed(
        ask_id=ask, kind="done", date=env.orbital.clock.now().date(), by="agent", note=note,
        verified=True,
    )  # fmt: skip
    assert last(env, head) == [("ask.closed", Actor.AGENT, "s1", closed)]
    assert env.file("ASKS.md").decode().endswith(f"- done {ask} 2026-09-19 by:agent {note}\n")
    # Still the agent's close: the Workbench offers it for undo.
    assert [a.closed_by for a in env.orbital.asks(env.project, "done")] == ["agent"]


def test_words_the_person_never_typed_do_not_verify(env: Env, tmp_path: Path) -> None:
    path = transcript(tmp_path)
    quotes = ("book the hall", "the user said bring back the launch party")
    # Both opened before either is dropped: the second would resemble the first once dropped.
    asks = [(opened(env, f"{VENUE}, {quote}"), quote) for quote in quotes]
    for ask, quote in asks:
        head = env.orbital.head(env.project)
        warnings = append(env, f'- dropped {ask} "{quote}"', path)
        assert warnings[0] == (
            f'ASKS.md: dropped [{ask}] with a quote that is not verified — "{quote}" is not in '
            "the user's messages of this session; quote the user's own words."
        )
        (recorded,) = last(env, head)
        assert isinstance(recorded[3], AskClosed) and recorded[3].verified is False


def test_a_missing_transcript_verifies_nothing_and_fails_nothing(env: Env, tmp_path: Path) -> None:
    ask = opened(env)
    missing = tmp_path / "gone.jsonl"
    warnings = append(env, f'- done {ask} "go with the rooftop bar"', missing)
    assert warnings[0] == (
        f"ASKS.md: done [{ask}] with a quote that is not verified — the session transcript "
        f"could not be read ({missing}: No such file or directory); quote the user's own words."
    )
    assert [a.state for a in env.orbital.asks(env.project, "all")] == ["done"]


def _user_drop(env: Env) -> str:
    ask = opened(env)
    env.orbital.ask_close(env.project, ask, "dropped", "too expensive", actor=Actor.USER)
    return ask


def test_a_reopen_of_a_user_drop_is_refused_byte_identical_without_the_users_words(
    env: Env, tmp_path: Path
) -> None:
    ask = _user_drop(env)
    before, head = env.file("ASKS.md"), env.orbital.head(env.project)
    refused = (
        f"ASKS.md: [{ask}] was dropped by the user on 2026-09-19 — not reopened. Reopen it only "
        "if the user asked for it again, quoting their words: "
        f'`- reopen {ask} "<their words>"`.'
    )
    assert append(env, f"- reopen {ask}", None) == [refused]
    outcome = env.orbital.ask_reopen(env.project, ask, "", actor=Actor.AGENT)
    assert outcome.warnings == [refused] and outcome.events == []
    path = transcript(tmp_path)
    unverified = append(env, f'- reopen {ask} "the user said bring back the launch party"', path)
    assert unverified == [
        f'ASKS.md: [{ask}] was dropped by the user on 2026-09-19 — not reopened: "the user said '
        "bring back the launch party\" is not in the user's messages of this session. Quote the "
        f'user\'s own words: `- reopen {ask} "<their words>"`.'
    ]
    assert env.file("ASKS.md") == before
    assert env.orbital.head(env.project) == head
    assert [a.state for a in env.orbital.asks(env.project, "all")] == ["dropped"]


def test_a_reopen_of_a_user_drop_on_their_typed_words_is_verified(env: Env, tmp_path: Path) -> None:
    ask = _user_drop(env)
    head = env.orbital.head(env.project)
    outcome = env.orbital.ask_reopen(
        env.project,
        ask,
        '"I do want the launch party after all"',  # typed mid-turn
        actor=Actor.AGENT,
        session="s1",
        transcript=transcript(tmp_path),
    )
    assert outcome.warnings == []
    ((kind, actor, session, event),) = last(env, head)
    assert (kind, actor, session) == ("ask.reopened", Actor.AGENT, "s1")
    assert isinstance(event, AskReopened) and event.verified and event.by == "agent"
    assert [a.state for a in env.orbital.asks(env.project, "all")] == ["open"]


def test_the_cli_takes_the_transcript(env: Env, tmp_path: Path, store_url: str) -> None:
    ask = _user_drop(env)
    runner = CliRunner()
    base = ["--db", store_url, "ask", "reopen", ask, "--project", str(env.root)]
    bare = runner.invoke(cli, base, obj={})
    assert bare.exit_code == 4  # refused: its own exit code
    assert "was dropped by the user on 2026-09-19 — not reopened" in bare.stderr
    quote = ["--quote", "I do want the launch party after all"]
    path = ["--transcript", str(transcript(tmp_path)), "--session", "s9"]
    kept = runner.invoke(cli, [*base, *quote, *path, "--json"], obj={})
    assert kept.exit_code == 0, kept.output
    reopened = [e for e in env.orbital.history(env.project) if e.type == "ask.reopened"]
    assert [(e.session, getattr(e.event, "verified", None)) for e in reopened] == [("s9", True)]
    line = f'- done {ask} "go with the rooftop bar"\n'
    content = env.file("ASKS.md") + line.encode()
    write = ["--db", store_url, "write", "ASKS.md", "--project", str(env.root)]
    written = runner.invoke(cli, [*write, "--transcript", path[1]], input=content, obj={})
    assert written.exit_code == 0, written.output
    closed = [e.event for e in env.orbital.history(env.project) if e.type == "ask.closed"]
    assert [getattr(e, "verified", None) for e in closed] == [False, True]
    other = opened(env, "Order the banners")
    asks_md = env.memory / "ASKS.md"
    asks_md.write_bytes(
        asks_md.read_bytes() + f'- done {other} "the rooftop bar for the launch"\n'.encode()
    )
    ingest = ["--db", store_url, "ingest", "ASKS.md", "--project", str(env.root)]
    taken = runner.invoke(cli, [*ingest, "--transcript", path[1], "--session", "s9"], obj={})
    assert taken.exit_code == 0, taken.output
    (done,) = [e for e in env.orbital.history(env.project) if e.stream == f"ask:{other}"][1:]
    assert (done.actor, done.session, getattr(done.event, "verified", None)) == (
        Actor.AGENT,
        "s9",
        True,
    )


def test_rows_stored_before_the_field_read_unverified_and_stay_as_written(
    env: Env, store_url: str
) -> None:
    old = (
        '{"type":"ask.closed","ask_id":"a1b2c3","kind":"done","date":"2026-09-19",'
        '"by":"agent","note":"\\"ok\\""}'
    )
    event = decode_event(old)
    assert isinstance(event, AskClosed) and event.verified is False
    assert json.loads(encode_event(event)) == json.loads(old)  # unverified adds no key
    ask = opened(env)
    env.orbital.ask_close(env.project, ask, "done", '"ok"', actor=Actor.AGENT)
    engine = sa.create_engine(store_url)
    try:
        with engine.connect() as conn:
            data = conn.execute(
                sa.text("SELECT data FROM events WHERE type = 'ask.closed'")
            ).scalar_one()
    finally:
        engine.dispose()
    # Stored as an array (test_ask_rows.py): an unverified close leaves its trailing defaults
    # out, as the object form left out the key.
    assert data == f'["{ask}","done","2026-09-19","agent","\\"ok\\""]'
