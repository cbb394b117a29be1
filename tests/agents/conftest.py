"""Fixtures for the end-to-end tests with the real Claude Code CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.claude_cli import VERSION, find_claude
from tests.agents.codex_cli import VERSION as CODEX_VERSION
from tests.agents.codex_cli import find_codex


@pytest.fixture
def claude() -> Path:
    """The pinned Claude Code binary; the test skips, saying how to get it, when it is missing."""
    binary = find_claude()
    if binary is None:
        pytest.skip(
            f"real Claude Code CLI not found: run `bash .ci/install-claude-code` (installs "
            f"@anthropic-ai/claude-code@{VERSION}) or set ORBITAL_TEST_CLAUDE to a claude binary"
        )
    return binary


@pytest.fixture
def codex() -> Path:
    """The pinned Codex binary; the test skips, saying how to get it, when it is missing."""
    binary = find_codex()
    if binary is None:
        pytest.skip(
            f"real Codex CLI not found: run `bash .ci/install-codex` (installs "
            f"@openai/codex@{CODEX_VERSION}) or set ORBITAL_TEST_CODEX to a codex binary"
        )
    return binary
