"""Finding and running the real Codex CLI, isolated from the machine it runs on.

The pinned version lives in ``.ci/codex-version``; ``.ci/install-codex`` installs it from the
npm registry into a cache folder outside the repository and ``.ci/run`` exports
``ORBITAL_TEST_CODEX``. Runs get a HOME and a ``CODEX_HOME`` of their own. Facts the test
relies on (Codex 0.169.0, ``docs/codex-notes.md``): a model name Codex has metadata for
(``gpt-5.5``) is needed for it to offer ``apply_patch``; MCP tools are deferred behind
``tool_search`` and called with their server as ``namespace``; hooks run unreviewed only with
``--dangerously-bypass-hook-trust``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.agents.pinned import find_pinned, pinned_version

VERSION = pinned_version("codex")
MODEL = "gpt-5.5"
_KEPT = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")


def find_codex() -> Path | None:
    """The binary from ``ORBITAL_TEST_CODEX``, else the pinned install, else None."""
    return find_pinned("codex", "codex", "ORBITAL_TEST_CODEX")


def provider_config(base_url: str) -> str:
    """The ``config.toml`` lines that send Codex to the stand-in."""
    return (
        'model_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{base_url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n'
    )


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


def run_codex(
    binary: Path,
    project: Path,
    home: Path,
    prompt: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 180,
) -> Run:
    """``codex exec PROMPT`` in ``project``, its home ``home/.codex``."""
    variables = {name: os.environ[name] for name in _KEPT if name in os.environ}
    variables |= dict(env or {})
    variables |= {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "FAKE_KEY": "test"}
    command = [str(binary), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"]
    command += ["-s", "workspace-write", "-m", MODEL, prompt]
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
