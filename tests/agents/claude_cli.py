"""Finding and running the real Claude Code CLI, isolated from the machine it runs on.

The pinned version lives in ``.ci/claude-code-version``; ``.ci/install-claude-code`` installs it
from the npm registry into a cache folder outside the repository and ``.ci/run`` exports
``ORBITAL_TEST_CLAUDE`` with the binary's path. Runs get a HOME of their own, so nothing of
the person's own Claude Code setup (settings, credentials, transcripts) is read or written.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.agents.pinned import find_pinned, pinned_version

VERSION = pinned_version("claude-code")
#: The environment of the run is built from scratch, but these are kept for the process to work.
_KEPT = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")


def find_claude() -> Path | None:
    """The binary from ``ORBITAL_TEST_CLAUDE``, else the pinned install, else None."""
    return find_pinned("claude-code", "claude", "ORBITAL_TEST_CLAUDE")


@dataclass(frozen=True)
class Run:
    """What one ``claude -p`` run returned."""

    returncode: int
    stdout: str
    stderr: str

    def result(self) -> dict[str, object]:
        """The ``--output-format json`` summary (session id, result text, cost...)."""
        parsed = json.loads(self.stdout)
        assert isinstance(parsed, dict), self.stdout
        return parsed


def run_claude(
    binary: Path,
    project: Path,
    home: Path,
    base_url: str,
    prompt: str,
    *extra: str,
    timeout: float = 120,
    env: Mapping[str, str] | None = None,
) -> Run:
    """Run ``claude -p PROMPT`` in ``project`` against the stand-in at ``base_url``.

    ``acceptEdits`` lets file tools run unasked (``bypassPermissions`` is refused as root).
    ``env`` adds variables (the store of the hooks Orbital installs, say).
    """
    variables = environment(home, base_url, env)
    command = [str(binary), "-p", prompt, "--model", "claude-sonnet-4-5"]
    command += ["--permission-mode", "acceptEdits", "--output-format", "json", *extra]
    done = subprocess.run(
        command,
        cwd=project,
        env=variables,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def environment(home: Path, base_url: str, env: Mapping[str, str] | None) -> dict[str, str]:
    """A run's environment: built from scratch, HOME its own, the model at ``base_url``."""
    variables = {name: os.environ[name] for name in _KEPT if name in os.environ}
    variables |= dict(env or {})
    variables |= {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-orbital",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    return variables


class Conversation:
    """One running ``claude -p`` session fed user messages one at a time on stdin
    (``--input-format stream-json``): each :meth:`say` is a new prompt of the same session,
    answered before it returns, so a test can act between two prompts."""

    def __init__(
        self, binary: Path, project: Path, home: Path, base_url: str, env: Mapping[str, str]
    ) -> None:
        command = [str(binary), "-p", "--model", "claude-sonnet-4-5", "--verbose"]
        command += ["--input-format", "stream-json", "--output-format", "stream-json"]
        command += ["--permission-mode", "acceptEdits"]
        self.process = subprocess.Popen(
            command,
            cwd=project,
            env=environment(home, base_url, env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def say(self, text: str) -> dict[str, object]:
        """Send one user message; returns the turn's ``result`` event."""
        assert self.process.stdin is not None and self.process.stdout is not None
        message = {"type": "user", "message": {"role": "user", "content": text}}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            event = json.loads(line)
            if isinstance(event, dict) and event.get("type") == "result":
                return event
        raise AssertionError(f"claude ended before answering: {self.process.stderr}")

    def close(self, timeout: float = 120) -> int:
        """End the session (stdin closed) and wait for the process."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        finally:
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()
