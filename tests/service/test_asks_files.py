"""Asks end to end: events in the store, ASKS.md on disk, refusals byte-identical."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest
import sqlalchemy as sa

from orbital.clock import FixedClock
from orbital.errors import InvalidEncoding, TooLarge, UnknownAsk
from orbital.events import Actor
from orbital.grammar.asks_md import FORMAT_HEADER, render_file, synthetic_id
from orbital.service import Orbital, WriteOutcome
from orbital.service._asks_file import OnDisk
from orbital.store._engine import create_write_engine
from tests.service.conftest import TODAY, Env

HEADER = FORMAT_HEADER + "\n"


def write(env: Env, text: str, actor: Actor = Actor.AGENT) -> WriteOutcome:
    return env.orbital.write_file(env.project, "ASKS.md", text.encode(), actor=actor)


def open_two(env: Env) -> tuple[str, str]:
    outcome = write(env, "- open Choose the venue\n- open due:2026-10-01 Send the deck\n")
    first, second = (e.stream.split(":")[1] for e in outcome.events)
    return first, second


def test_init_creates_the_log_with_its_format_contract(env: Env) -> None:
    assert env.file("ASKS.md") == HEADER.encode()


def test_agent_opens_are_stamped_appended_and_recorded(env: Env) -> None:
    first, second = open_two(env)
    expected = (
        f"{HEADER}- open {first} 2026-09-19 Choose the venue\n"
        f"- open {second} 2026-09-19 due:2026-10-01 Send the deck\n"
    )
    assert env.file("ASKS.md").decode() == expected
    history = list(env.orbital.history(env.project))
    assert [(e.stream, e.actor) for e in history[-2:]] == [
        (f"ask:{first}", Actor.AGENT),
        (f"ask:{second}", Actor.AGENT),
    ]
    asks = env.orbital.asks(env.project)
    assert [(a.id, a.text, a.due) for a in asks] == [
        (first, "Choose the venue", None),
        (second, "Send the deck", "2026-10-01"),
    ]


def test_a_rephrased_dropped_ask_is_refused_byte_identical_and_audited(env: Env) -> None:
    _, deck = open_two(env)
    env.orbital.ask_close(env.project, deck, "dropped", "", actor=Actor.USER)
    before = env.file("ASKS.md")
    head = env.orbital.head(env.project)
    outcome = write(env, before.decode() + "- open Send the deck!\n")
    assert env.file("ASKS.md") == before
    assert outcome.content.encode() == before
    assert outcome.warnings == [
        f"ASKS.md: not added — the user dropped this as [{deck}] on 2026-09-19; never "
        "re-propose it. If the user asked for it again, add "
        f'`- reopen {deck} "<their words>"`.'
    ]
    recorded = list(env.orbital.history(env.project))[head:]
    assert [(e.stream, e.type) for e in recorded] == [("asks", "ask.open_refused")]
    assert deck not in [a.id for a in env.orbital.asks(env.project, "open")]


def test_a_close_of_an_unknown_id_leaves_the_file_byte_identical(env: Env) -> None:
    open_two(env)
    before = env.file("ASKS.md")
    outcome = write(env, before.decode() + '- done 999999 "yes"\n')
    assert env.file("ASKS.md") == before
    assert outcome.events == []
    assert any("999999" in w for w in outcome.warnings)


def test_deleted_lines_are_restored_and_agent_closes_are_forced_to_by_agent(env: Env) -> None:
    venue, deck = open_two(env)
    outcome = write(env, f'- done {venue} 2020-01-01 by:user "rooftop, final"\n')
    text = env.file("ASKS.md").decode()
    assert text.startswith(
        f"{HEADER}- open {venue} 2026-09-19 Choose the venue\n- open {deck} 2026-09-19"
    )
    assert text.endswith(f'- done {venue} 2026-09-19 by:agent "rooftop, final"\n')
    assert "restored 2 line(s)" in outcome.warnings[0]
    assert {a.id: a.closed_by for a in env.orbital.asks(env.project, "all")}[venue] == "agent"


def test_person_actions_close_and_undo(env: Env) -> None:
    venue, _ = open_two(env)
    env.orbital.ask_close(env.project, venue, "done", "rooftop", actor=Actor.USER)
    env.orbital.ask_reopen(env.project, venue, actor=Actor.USER)
    lines = env.file("ASKS.md").decode().splitlines()
    assert lines[-2:] == [
        f"- done {venue} 2026-09-19 by:user rooftop",
        f"- reopen {venue} 2026-09-19 by:user",
    ]
    again = env.orbital.ask_reopen(env.project, venue, actor=Actor.USER)
    assert again.events == []
    assert again.warnings == [f"ASKS.md: [{venue}] is already open — nothing changed."]
    with pytest.raises(UnknownAsk):
        env.orbital.ask_close(env.project, "abcdef", "done", actor=Actor.USER)


def test_the_file_always_equals_a_full_render_of_the_events(env: Env) -> None:
    venue, deck = open_two(env)
    env.orbital.ask_close(env.project, deck, "dropped", "later", actor=Actor.USER)
    write(env, env.file("ASKS.md").decode() + f'- done {venue} "rooftop"\n')
    with env.orbital.store.reader() as r:
        events = list(r.read_project(env.project, stream_prefix="ask"))
    assert env.file("ASKS.md").decode() == render_file(e.event for e in events)


def test_many_appends_in_one_process_keep_file_outcome_and_store_in_step(env: Env) -> None:
    """More appends than the in-memory copy of the file keeps apart, then some outcomes
    read back and some not, and a moved line: every outcome read is the file on disk."""
    read_back: list[tuple[bytes, str]] = []
    for i in range(OnDisk.MAX_PIECES + 6):
        before = env.file("ASKS.md").decode()
        line = f"- open Ring up supplier number {i:03d} about parcel {i * 7919 % 1000:03d}\n"
        outcome = write(env, before + line)
        assert [e.type for e in outcome.events] == ["ask.opened"], outcome.warnings
        if i >= OnDisk.MAX_PIECES:  # the first read joins the pieces, the next ones extend it
            read_back.append((env.file("ASKS.md"), outcome.content))
    lines = env.file("ASKS.md").decode().splitlines(keepends=True)
    moved = write(env, "".join(lines) + lines[3])  # a line of the file again: not new
    assert moved.events == [] and moved.content == "".join(lines)
    assert env.file("ASKS.md").decode() == "".join(lines)
    assert all(disk.decode() == content for disk, content in read_back)
    with env.orbital.store.reader() as r:
        events = list(r.read_project(env.project, stream_prefix="ask"))
    assert env.file("ASKS.md").decode() == render_file(e.event for e in events)
    fresh = Orbital.open(env.orbital.store.url, clock=FixedClock(TODAY))
    try:  # another process finds the file as Orbital left it: nothing to take in
        assert fresh.sync(env.project).events == []
        assert fresh.read_file(env.project, "ASKS.md") == env.file("ASKS.md").decode()
    finally:
        fresh.close()


def test_a_process_that_never_read_the_file_appends_and_decides_against_the_disk(
    env: Env,
) -> None:
    """Another process finds ASKS.md as Orbital wrote it and reads it only when a write
    compares with it: two opens append to the unread file, then the agent's proposal (the
    file with both and one more line) is decided as an append of that line."""
    open_two(env)
    fresh = Orbital.open(env.orbital.store.url, clock=FixedClock(TODAY))
    try:
        assert fresh.sync(env.project).events == []
        for text in ("Book the caterer", "Print the badges"):
            fresh.ask_open(env.project, text, None, actor=Actor.USER)
        before = env.file("ASKS.md")
        proposal = before + b"- open Pick a date\n"
        outcome = fresh.write_file(env.project, "ASKS.md", proposal, actor=Actor.AGENT)
        (opened,) = (e.stream.split(":")[1] for e in outcome.events)
        assert [e.type for e in outcome.events] == ["ask.opened"]
        assert not any("restored" in w for w in outcome.warnings), outcome.warnings
        assert env.file("ASKS.md") == before + f"- open {opened} 2026-09-19 Pick a date\n".encode()
        assert outcome.content == env.file("ASKS.md").decode()
    finally:
        fresh.close()


def test_bad_input_is_refused_and_nothing_changes(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_two(env)
    before, head = env.file("ASKS.md"), env.orbital.head()
    with pytest.raises(InvalidEncoding) as bad:
        env.orbital.write_file(
            env.project, "ASKS.md", before + b"- open caf\xe9\n", actor=Actor.AGENT
        )
    assert bad.value.offset == len(before) + 10
    monkeypatch.setenv("ORBITAL_MAX_FILE_BYTES", "10")  # the limit is on what is added
    with pytest.raises(TooLarge) as large:
        write(env, before.decode() + "- open Pick a date\n")
    assert (large.value.size, large.value.limit) == (19, 10)
    assert (env.file("ASKS.md"), env.orbital.head()) == (before, head)


def test_a_log_over_the_size_limit_still_takes_appends(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_two(env)
    before = env.file("ASKS.md")
    monkeypatch.setenv("ORBITAL_MAX_FILE_BYTES", str(len(before) // 2))  # the log is over it
    outcome = write(env, before.decode() + "- open Pick a date\n")
    (opened,) = (e.stream.split(":")[1] for e in outcome.events)
    assert env.file("ASKS.md") == before + f"- open {opened} 2026-09-19 Pick a date\n".encode()


def test_a_proposal_with_another_format_line_is_decided_as_an_append(env: Env) -> None:
    first, _ = open_two(env)
    before = env.file("ASKS.md")
    older = b"<!--format ASKS is an append-only log of what waits on the user.-->\n"
    proposal = older + before[len(HEADER.encode()) :] + b"- open Pick a date\n"
    on_disk = OnDisk.of(len(before), 0, before, before.decode())  # the append route, not diff
    assert on_disk.added_by(proposal) == b"- open Pick a date\n"
    outcome = write(env, proposal.decode())
    (opened,) = (e.stream.split(":")[1] for e in outcome.events)
    assert env.file("ASKS.md") == before + f"- open {opened} 2026-09-19 Pick a date\n".encode()
    assert not any("restored" in w for w in outcome.warnings), outcome.warnings
    # The same lines again under the other header: nothing new, nothing restored.
    again = write(env, (older + env.file("ASKS.md")[len(HEADER.encode()) :]).decode())
    assert again.events == [] and env.file("ASKS.md").endswith(b"Pick a date\n")
    assert first in env.file("ASKS.md").decode()


def test_lowercase_name_reaches_the_append_only_rules(env: Env) -> None:
    open_two(env)
    before = env.file("ASKS.md")
    outcome = env.orbital.write_file(env.project, "asks.md", b"", actor=Actor.AGENT)
    assert env.file("ASKS.md") == before
    assert outcome.events == []
    assert not (env.memory / "asks.md").exists() or (env.memory / "asks.md").samefile(
        env.memory / "ASKS.md"
    )


def test_an_existing_upstream_asks_file_is_imported_as_written(
    store_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "p"
    (root / "orbital").mkdir(parents=True)
    legacy = (
        "<!--format old header-->\r\n- open a1b2c3 2026-09-01 Choose the venue\r\n"
        '- done a1b2c3 2026-09-03 by:user "rooftop"\r\n- open External ask\r\n'
        "- open d4e5f6 2026-09-02 caf\xe9 budget\r\n"
    ).encode("latin-1")
    (root / "orbital" / "ASKS.md").write_bytes(legacy)
    with Orbital.open(store_url, clock=FixedClock(TODAY)) as service:
        project = service.init_project(root).project_id
        asks = {a.id: a for a in service.asks(project, "all")}
        assert asks["a1b2c3"].closed_by == "user"  # history as written
        assert asks["d4e5f6"].text == "caf\ufffd budget"  # never blanked, never dropped
        text = (root / "orbital" / "ASKS.md").read_text()
        assert "\r" not in text
        synthetic = synthetic_id("External ask", {"a1b2c3", "d4e5f6"})
        assert f"- open {synthetic} 2026-09-19 External ask\n" in text
        assert [e.type for e in service.history(project)][1:3] == [
            "ask.bytes_replaced",
            "ask.opened",
        ]


def test_a_hand_written_user_close_counts_as_file_not_as_consent(env: Env) -> None:
    venue, _ = open_two(env)
    path = env.memory / "ASKS.md"
    path.write_text(path.read_text() + f'- done {venue} 2026-09-19 by:user "ok"\n')
    report = env.orbital.sync(env.project)
    assert report.conflicts == []  # the line was taken in (re-stamped), nothing to keep aside
    assert report.warnings[-1].endswith(f'ends with: - done {venue} 2026-09-19 by:file "ok"')
    ask = {a.id: a for a in env.orbital.asks(env.project, "all")}[venue]
    assert (ask.state, ask.closed_by) == ("done", "file")
    assert path.read_text().endswith(f'- done {venue} 2026-09-19 by:file "ok"\n')
    types = [e.type for e in env.orbital.history(env.project)]
    assert "file.hand_edit_detected" in types


def test_two_processes_opening_asks_at_once_lose_nothing(env: Env, tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from orbital.events import Actor
        from orbital.service import Orbital
        with Orbital.open({str(env.orbital.store.url)!r}) as o:
            for i in range(40):
                o.ask_open({env.project!r}, f"writer {{sys.argv[1]}} ask {{i}}", actor=Actor.AGENT)
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(n)], cwd=Path(__file__).parents[2])
        for n in (1, 2)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    texts = sorted(a.text for a in env.orbital.asks(env.project))
    assert texts == sorted(f"writer {w} ask {i}" for w in (1, 2) for i in range(40))
    lines = env.file("ASKS.md").decode().splitlines()[1:]
    assert len(lines) == 80
    assert len(set(lines)) == 80
    with env.orbital.store.reader() as r:
        events = list(r.read_project(env.project, stream_prefix="ask"))
    assert env.file("ASKS.md").decode() == render_file(e.event for e in events)


def test_a_write_whose_transaction_fails_puts_the_file_back(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orbital.store import Writer

    open_two(env)
    before, head = env.file("ASKS.md"), env.orbital.head()

    def broken(*_args: object, **_kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(Writer, "set_checkpoint", broken)
    with pytest.raises(OSError, match="disk full"):
        write(env, before.decode() + "- open Pick a date\n")
    with pytest.raises(OSError, match="disk full"):
        write(env, "- open Pick a date\n")  # a full rewrite (restored lines) this time
    monkeypatch.undo()
    assert (env.file("ASKS.md"), env.orbital.head()) == (before, head)
    assert "Pick a date" not in [a.text for a in env.orbital.asks(env.project)]
    outcome = write(env, before.decode() + "- open Pick a date\n")
    assert env.file("ASKS.md").decode().endswith("Pick a date\n")
    assert [e.type for e in outcome.events] == ["ask.opened"]


def _replayed(env: Env, position: int) -> str:
    with env.orbital.store.reader() as r:
        events = r.read_project(env.project, stream_prefix="ask", until_position=position)
        return render_file(e.event for e in events)


def _append(env: Env, lines: list[str]) -> None:
    write(env, env.file("ASKS.md").decode() + "".join(f"- open {line}\n" for line in lines))


def test_asks_as_of_cuts_by_the_bytes_kept_with_each_snapshot(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines of several bytes per character across three snapshots: each lines snapshot
    keeps the rendered file's size in bytes, and a cut from it equals a replay (reading
    only the start of the file, or all of it when the lines run past what was read)."""
    for chunk in range(9):
        _append(env, [f"Café «{chunk}» — naïve ask {i} ✓" for i in range(450)])
    head = env.orbital.head(env.project)
    with env.orbital.store.reader() as r:
        kept = [r.snapshot(env.project, "asks-lines", at) for at in (1400, 2800, head)]
    sizes = {found[0]: found[1] for found in kept if found is not None}
    assert len(sizes) == 3
    for at, raw in sizes.items():
        lines, size = raw.decode().split()
        expected = _replayed(env, at).encode()
        assert (int(lines), int(size)) == (expected.count(b"\n") - 1, len(expected))
    for slack in (1 << 20, 1):
        monkeypatch.setattr("orbital.service._asks_file.CUT_SLACK", slack)
        for position in (1, 2, 999, 1351, 1352, 2700, 2701, 2702, 3001, 4050, head - 1, head):
            as_of = env.orbital.read_file(env.project, "ASKS.md", as_of=position)
            assert as_of == _replayed(env, position)


def test_asks_as_of_cuts_right_from_a_snapshot_kept_before_sizes(env: Env) -> None:
    """A store whose lines snapshot holds a line count only (kept before sizes were) cuts
    from the header, and its next snapshot keeps the whole file's size again."""
    for chunk in range(3):
        _append(env, [f"é {chunk} {i}" for i in range(400)])
    with env.orbital.store.reader() as r:
        found = r.snapshot(env.project, "asks-lines", env.orbital.head(env.project))
    assert found is not None
    engine = create_write_engine(env.orbital.store.url)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text("UPDATE snapshots SET state = :v WHERE project_id = :p AND name = :n"),
                {"v": zlib.compress(found[1].split()[0]), "p": env.project, "n": "asks-lines"},
            )
    finally:
        engine.dispose()
    with Orbital.open(env.orbital.store.url, clock=FixedClock(TODAY)) as fresh:
        for position in (1001, 1100, 1201):
            assert fresh.read_file(env.project, "ASKS.md", as_of=position) == _replayed(
                env, position
            )
        _append(env, [f"later {i}" for i in range(1000)])
        with env.orbital.store.reader() as r:
            newest = r.snapshot(env.project, "asks-lines", env.orbital.head(env.project))
        assert newest is not None and newest[0] > found[0]
        assert int(newest[1].split()[1]) == len(_replayed(env, newest[0]).encode())
        _append(env, ["one more"])
        after = newest[0] + 1
        assert fresh.read_file(env.project, "ASKS.md", as_of=after) == _replayed(env, after)


def test_asks_as_of_any_position_equals_a_replay_across_snapshots(env: Env) -> None:
    for chunk in range(5):
        lines = "".join(f"- open ask {chunk}-{i}\n" for i in range(300))
        write(env, env.file("ASKS.md").decode() + lines)
    head = env.orbital.head(env.project)
    assert head > 1000  # at least one asks snapshot was taken
    with env.orbital.store.reader() as r:
        assert r.snapshot(env.project, "asks-lines", head) is not None
    for position in (1, 2, 450, 999, 1000, 1001, 1234, head):
        with env.orbital.store.reader() as r:
            events = r.read_project(env.project, stream_prefix="ask", until_position=position)
            expected = render_file(e.event for e in events)
        assert env.orbital.read_file(env.project, "ASKS.md", as_of=position) == expected
    with env.orbital.store.reader() as r:
        at_1001 = env.orbital.units.asks.at(r, env.project, 1001)
    assert len(at_1001) == 1000  # positions 2..1001; 1 is the project's registration
    assert len(env.orbital.asks(env.project)) == 1500
