"""Learning capture and the ask trigger, installed the way each agent takes guidance, on both
backends: Codex's ``AGENTS.md`` section, Cursor's rule, Claude Code's skill (written by
``orbital install claude-code`` and shipped in the plugin) — each holding the one source text,
and the sentence on when to open an ask the same as ASKS.md's header."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import orbital
from orbital.agents.instructions import LEARNING_CAPTURE
from orbital.agents.plugin import files
from orbital.agents.skills import LEARNING_SKILL_FILE
from orbital.cli import cli
from orbital.grammar.asks_md import FORMAT_HEADER

TRIGGER = (
    'or a decision the user put off for later ("I\'ll decide after …") while you carry on. A '
    "TBD note in a file or in chat is not an ask — only ASKS.md reaches the user's Workbench."
)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def root(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".cursor").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    project = tmp_path / "project"
    project.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(project)]).exit_code == 0
    return project


def _run(*args: str) -> str:
    done = CliRunner().invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def test_agents_md_and_the_cursor_rule_say_when_to_open_an_ask_as_asks_md_does(
    root: Path,
) -> None:
    _run("install", "codex", "--project", str(root))
    _run("install", "cursor", "--project", str(root))
    agents = (root / "AGENTS.md").read_text(encoding="utf-8")
    rule = (root / ".cursor/rules/orbital.mdc").read_text(encoding="utf-8")
    asks = (root / "orbital/ASKS.md").read_text(encoding="utf-8")
    for text in (agents, rule, asks):
        assert text.count("put off for later") >= 1
        assert TRIGGER in _flat(text)
    assert TRIGGER in _flat(FORMAT_HEADER)


def test_every_agent_gets_the_one_learning_capture_text(root: Path) -> None:
    _run("install", "codex", "--project", str(root))
    _run("install", "cursor", "--project", str(root))
    out = _run("install", "claude-code", "--project", str(root))
    assert f"wrote {LEARNING_SKILL_FILE}" in out
    skill = (root / LEARNING_SKILL_FILE).read_text(encoding="utf-8")
    plugin = files(orbital.__version__)["plugins/orbital/skills/orbital-learning-capture/SKILL.md"]
    assert skill == plugin
    assert skill.startswith("---\nname: orbital-learning-capture\ndescription: ")
    for path in ("AGENTS.md", ".cursor/rules/orbital.mdc", LEARNING_SKILL_FILE):
        assert (root / path).read_text(encoding="utf-8").count(LEARNING_CAPTURE) == 1
    # The three triggers, what each lesson says, and the person's own rules at once.
    for words in (
        "The user corrects you",
        "A tool or command fails and you find another way",
        "You discover something non-obvious",
        "What happened: <…>. Next time: <…>. Keywords:",
        'When the user says "remember …", "always …" or "never …", write it down at once',
    ):
        assert words in LEARNING_CAPTURE


def test_uninstall_takes_the_skill_and_the_folders_install_made_away(root: Path) -> None:
    _run("install", "claude-code", "--project", str(root))
    _run("install", "claude-code", "--project", str(root))  # idempotent
    out = _run("uninstall", "claude-code", "--project", str(root))
    assert f"removed {LEARNING_SKILL_FILE}" in out
    assert not (root / ".claude").exists()


def test_a_skill_of_that_name_of_the_persons_own_is_never_overwritten(root: Path) -> None:
    mine = root / LEARNING_SKILL_FILE
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"---\nname: orbital-learning-capture\n---\nmine\n")
    done = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(root)])
    assert done.exit_code != 0
    assert f"{LEARNING_SKILL_FILE} exists and is not Orbital's" in done.output
    assert mine.read_bytes() == b"---\nname: orbital-learning-capture\n---\nmine\n"
