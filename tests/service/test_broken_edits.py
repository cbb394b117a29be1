"""Issue 12 item 3: a hand edit that looks broken (cut short, not UTF-8, most entries gone at
once: a cut, ``test_hand_cuts.py``) is kept as a conflict copy for the person and nothing is
retired by it, in ``sync`` and through the watcher."""

from __future__ import annotations

import time

import pytest

from orbital.domain.hand_edits import looks_broken
from orbital.events import Actor
from orbital.grammar.model import FileState
from orbital.watcher import Watcher
from tests.service.conftest import Env

SIX = "".join(f"## Decision {n}\nChose: option {n}.\nReason: reason {n}.\n\n" for n in range(1, 7))
CUT_HALF = "cut in half"
MOST_GONE = "most entries gone"
NOT_UTF8 = "not UTF-8"


def _seed(env: Env) -> bytes:
    env.orbital.write_file(env.project, "DECISIONS.md", SIX.encode(), actor=Actor.AGENT)
    return (env.memory / "DECISIONS.md").read_bytes()


def _file_events(env: Env) -> list[str]:
    return [e.type for e in env.orbital.history(env.project) if e.actor == Actor.FILE]


def _broken(written: bytes, how: str) -> bytes:
    if how == CUT_HALF:
        return written[: len(written) // 2]
    if how == MOST_GONE:
        return written[: written.index(b"## Decision 3")]  # 4 of 6 entries gone, cut cleanly
    return written.replace(b"option 4", b"option \xff4")


@pytest.mark.parametrize("how", [CUT_HALF, MOST_GONE, NOT_UTF8])
def test_sync_keeps_a_broken_hand_edit_as_a_copy_and_retires_nothing(env: Env, how: str) -> None:
    written = _seed(env)
    broken = _broken(written, how)
    (env.memory / "DECISIONS.md").write_bytes(broken)
    report = env.orbital.sync(env.project)
    (copy,) = report.conflicts
    assert (env.memory / copy).read_bytes() == broken
    assert (env.memory / "DECISIONS.md").read_bytes() == written  # regenerated
    assert _file_events(env) == ["file.hand_edit_detected", "file.hand_edit_conflict"]
    said = "looks broken" if how != MOST_GONE else "as a file cut short does"
    assert any(said in w and copy in w for w in report.warnings), report.warnings


def test_the_watcher_keeps_a_file_cut_in_half_as_a_copy(env: Env) -> None:
    written = _seed(env)
    messages: list[str] = []
    watcher = Watcher(env.orbital, messages.append, settle=0.1, debounce_ms=50)
    watcher.start()
    try:
        time.sleep(0.3)
        (env.memory / "DECISIONS.md").write_bytes(written[: len(written) // 2])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not _file_events(env):
            time.sleep(0.1)
        time.sleep(0.3)
    finally:
        watcher.stop()
    assert _file_events(env) == ["file.hand_edit_detected", "file.hand_edit_conflict"]
    assert (env.memory / "DECISIONS.md").read_bytes() == written
    (copy,) = [p for p in env.memory.iterdir() if ".conflict-" in p.name]
    assert copy.read_bytes() == written[: len(written) // 2]


def test_an_asks_md_cut_mid_line_opens_no_ask_and_is_kept_as_a_copy(env: Env) -> None:
    env.orbital.ask_open(env.project, "Check the release notes", actor=Actor.AGENT)
    asks = env.memory / "ASKS.md"
    written = asks.read_bytes()
    cut = written + b"- open Rename the bucket to somethi"  # a crashed editor's half line
    asks.write_bytes(cut)
    report = env.orbital.sync(env.project)
    (copy,) = report.conflicts
    assert (env.memory / copy).read_bytes() == cut
    assert asks.read_bytes() == written
    assert _file_events(env) == ["file.hand_edit_detected", "file.hand_edit_conflict"]


def test_a_meant_edit_is_not_judged_broken() -> None:
    assert looks_broken(FileState(key="decisions"), b"") is None
    assert looks_broken("## A\nx\n", b"## A\nx\n\n## B\ny\n") is None
    assert looks_broken("## A\nx\n", b"## A\nx") == "ends mid-line, as a file cut short does"
    assert looks_broken("## A\n", b"## \xff\n") == "is not valid UTF-8 (byte 3)"


def test_a_crlf_file_cut_short_inside_an_entry_is_judged_as_the_same_file_in_lf(
    env: Env,
) -> None:
    written = _seed(env)
    path = env.memory / "DECISIONS.md"
    path.write_bytes(written.replace(b"\n", b"\r\n"))
    env.orbital.sync(env.project)  # the file's own line endings: no change
    crlf = path.read_bytes()
    cut = crlf[: crlf.index(b"Reason: reason 4.")]  # ends at a line, inside entry 4
    path.write_bytes(cut)
    report = env.orbital.sync(env.project)
    (copy,) = report.conflicts
    assert (env.memory / copy).read_bytes() == cut
    assert path.read_bytes() == crlf  # regenerated, still CRLF
    assert _file_events(env) == ["file.hand_edit_detected", "file.hand_edit_conflict"]
    assert any("cut short inside an entry" in w for w in report.warnings), report.warnings
