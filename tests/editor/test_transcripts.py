"""Session transcripts: telling the user's words from everything else, per row format."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from orbital.domain.transcripts import Turn, is_session_name, parse_transcript, turn_of, user_words
from orbital.editor.sessions import SessionDir
from orbital.errors import InvalidInput
from tests.editor.helpers import write_jsonl


@pytest.mark.parametrize(
    ("row", "turn"),
    [
        ({"role": "user", "content": "hi"}, Turn("user", "hi")),
        ({"role": "user", "source": "user", "content": "hi"}, Turn("user", "hi")),
        ({"role": "user", "source": "management", "content": "hi"}, Turn("injected", "hi")),
        ({"role": "assistant", "source": "user", "content": "hi"}, Turn("assistant", "hi")),
        ({"role": "system", "content": "rules"}, Turn("injected", "rules")),
        ({"role": "tool", "content": "out"}, Turn("tool", "out")),
        (
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "image", "url": "x"},
                    {"type": "text", "text": "b"},
                    {"type": "tool_result", "content": "c"},
                ],
            },
            Turn("user", "a b"),
        ),
        (
            {"role": "user", "content": "<system-reminder>be nice</system-reminder>"},
            Turn("injected", "<system-reminder>be nice</system-reminder>"),
        ),
        ({"type": "meta", "session": "s"}, None),
        ({"role": "user", "content": ""}, None),
        ("just a string", None),
    ],
)
def test_orbital_rows(row: object, turn: Turn | None) -> None:
    assert turn_of(row) == turn


@pytest.mark.parametrize(
    ("row", "turn"),
    [
        (
            {"type": "user", "message": {"role": "user", "content": "hello"}},
            Turn("user", "hello"),
        ),
        (
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": "hello"}]},
            },
            Turn("user", "hello"),
        ),
        (
            {"type": "assistant", "message": {"role": "assistant", "content": "sure"}},
            Turn("assistant", "sure"),
        ),
        (
            {"type": "user", "isMeta": True, "message": {"role": "user", "content": "caveat"}},
            Turn("injected", "caveat"),
        ),
        (
            {
                "type": "user",
                "isCompactSummary": True,
                "message": {"role": "user", "content": "summary of earlier"},
            },
            Turn("injected", "summary of earlier"),
        ),
        (
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t", "content": "file text"},
                        {"type": "text", "text": "output note"},
                    ],
                },
                "toolUseResult": {"stdout": "file text"},
            },
            Turn("tool", "output note"),
        ),
        (
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "content": [{"type": "text", "text": "x"}]}
                    ],
                },
            },
            None,
        ),
        (
            {
                "type": "user",
                "message": {"role": "user", "content": "<local-command-stdout>ok"},
            },
            Turn("injected", "<local-command-stdout>ok"),
        ),
        ({"type": "system", "message": {"role": "system", "content": "x"}}, Turn("injected", "x")),
        ({"type": "summary", "summary": "Webinar"}, None),
    ],
)
def test_claude_code_rows(row: object, turn: Turn | None) -> None:
    assert turn_of(row) == turn


def test_formats_are_detected_per_row_and_bad_lines_skipped() -> None:
    lines = [
        json.dumps({"role": "user", "content": "orbital row"}),
        "{not json",
        "",
        json.dumps({"type": "user", "message": {"role": "user", "content": "claude row"}}),
        json.dumps([1, 2]),
    ]
    assert user_words(parse_transcript(lines)) == ["orbital row", "claude row"]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("proj_aaaa1111", True),
        ("3f2a-uuid.v2", True),
        ("", False),
        ("../x", False),
        ("x..y", False),
        ("/x", False),
        (".x", False),
        ("_x", False),
        ("a b", False),
        ("a\nb", False),
    ],
)
def test_session_names(name: str, ok: bool) -> None:
    assert is_session_name(name) is ok


def test_session_dir_lists_newest_first_and_skips_odd_names(tmp_path: Path) -> None:
    old = write_jsonl(tmp_path / "old.jsonl", [{"role": "user", "content": "a"}])
    write_jsonl(tmp_path / "new.jsonl", [{"role": "user", "content": "b"}])
    write_jsonl(tmp_path / ".hidden.jsonl", [])
    (tmp_path / "notes.txt").write_text("x")
    os.utime(old, (1_000_000, 1_000_000))
    assert [s.name for s in SessionDir(tmp_path).sessions()] == ["new", "old"]


def test_session_dir_reads_and_refuses(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    write_jsonl(directory / "s1.jsonl", [{"role": "user", "content": "hello"}])
    sessions = SessionDir(directory)
    assert sessions.user_messages("s1") == ["hello"]
    assert sessions.turns("missing") is None
    assert sessions.user_messages("missing") == []
    with pytest.raises(InvalidInput):
        sessions.turns("../s1")


def test_a_symlink_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    outside = write_jsonl(tmp_path / "outside.jsonl", [{"role": "user", "content": "secret"}])
    directory = tmp_path / "sessions"
    directory.mkdir()
    (directory / "link.jsonl").symlink_to(outside)
    with pytest.raises(InvalidInput):
        SessionDir(directory).turns("link")


def test_undecodable_bytes_do_not_fail_the_read(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_bytes(b'{"role": "user", "content": "caf\xe9 ok"}\n')
    assert SessionDir(tmp_path).user_messages("s") == ["caf\ufffd ok"]


#: A real ``claude -p`` session (2.1.332, stream-json input): the prompt typed first, a
#: UserPromptSubmit hook adding "HOOKCTX ship it", a Bash tool result, and a second message
#: sent while the tool ran (a ``queued_command`` attachment). Long rows trimmed, nothing else.
CLAUDE_CODE_SESSION = Path(__file__).parent / "data" / "claude_code_2.1.332.jsonl"


def test_a_real_claude_code_session_yields_the_typed_prompt_and_the_mid_turn_message() -> None:
    with CLAUDE_CODE_SESSION.open(encoding="utf-8") as handle:
        turns = parse_transcript(handle)
    assert user_words(turns) == [
        "FIRST please go with the rooftop",
        "MIDTURN actually ship it on friday",
    ]
    # The hook's context reached the model, and is in the file, but never as the user's.
    assert "HOOKCTX" in CLAUDE_CODE_SESSION.read_text(encoding="utf-8")
    assert not any("HOOKCTX" in t.text or "BASHOUT" in t.text for t in turns if t.speaker == "user")


def _user_row(content: object, **flags: object) -> dict[str, object]:
    return {"type": "user", "message": {"role": "user", "content": content}, **flags}


def _queued(prompt: object, **fields: object) -> dict[str, object]:
    return {
        "type": "attachment",
        "attachment": {"type": "queued_command", "prompt": prompt, **fields},
    }


@pytest.mark.parametrize(
    ("row", "speaker"),
    [
        (_user_row("typed", origin={"kind": "human"}), "user"),
        (_user_row("typed", promptSource="sdk", turnOrigin="sdk"), "user"),
        (_user_row("a sub-agent's task", isSidechain=True), "injected"),
        (_user_row("synthetic", textNotTyped=True), "injected"),
        (_user_row("done: x", origin={"kind": "task-notification"}), "injected"),
        (_user_row("from a peer", origin={"kind": "peer"}), "injected"),
        (_user_row("<task-notification><status>completed</status>"), "injected"),
        (_user_row("<bash-stdout>ship it</bash-stdout><bash-stderr></bash-stderr>"), "injected"),
        (_queued("typed mid-turn", commandMode="prompt"), "user"),
        (_queued("typed mid-turn", origin={"kind": "human"}), "user"),
        (_queued("/upgrade", commandMode="task-notification"), "injected"),
        (_queued("x", origin={"kind": "task-notification"}), "injected"),
        (_queued("x", origin={"kind": "channel"}), "injected"),
        (_queued("<system-reminder>x</system-reminder>"), "injected"),
        (
            {
                "type": "api-request-blob",
                "message": {"role": "user", "content": [{"type": "text", "text": "go ahead"}]},
            },
            "injected",
        ),
    ],
)
def test_claude_code_rows_that_are_and_are_not_typed(row: object, speaker: str) -> None:
    turn = turn_of(row)
    assert turn is not None and turn.speaker == speaker


@pytest.mark.parametrize(
    "row",
    [
        {
            "type": "attachment",
            "attachment": {"type": "hook_additional_context", "content": ["ship it"]},
        },
        {
            "type": "attachment",
            "attachment": {"type": "instructions", "files": [{"content": "ship it"}]},
        },
        {"type": "queue-operation", "operation": "enqueue", "content": "ship it"},
        {"type": "last-prompt", "lastPrompt": "ship it"},
        _queued(""),
    ],
)
def test_claude_code_rows_that_carry_no_words(row: object) -> None:
    assert turn_of(row) is None


#: A real ``codex exec`` rollout (0.169.0 against the scripted Responses API), the hooks'
#: ``transcript_path``: the typed prompt, an ``apply_patch`` call and the answer. Trimmed of
#: the developer instructions and the bookkeeping rows, nothing else.
CODEX_ROLLOUT = Path(__file__).parent / "data" / "codex_0.169.0_rollout.jsonl"


def test_a_real_codex_rollout_yields_the_typed_prompt_only() -> None:
    with CODEX_ROLLOUT.open(encoding="utf-8") as handle:
        turns = parse_transcript(handle)
    assert user_words(turns) == ["Please drop the rooftop ask, I changed my mind about the venue"]
    # Codex sends its environment context in a user-role message: never the user's words.
    assert "<environment_context>" in CODEX_ROLLOUT.read_text(encoding="utf-8")
    assert [t.speaker for t in turns] == ["user", "assistant"]
