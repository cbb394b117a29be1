"""Where the agents' CLIs pinned in ``.ci/`` are installed (``.ci/install-*`` put them in a
cache outside the clone), found the same way for each."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pinned_version(name: str) -> str:
    """The version ``.ci/<name>-version`` pins."""
    return (ROOT / ".ci" / f"{name}-version").read_text(encoding="utf-8").strip()


def find_pinned(name: str, binary: str, env: str) -> Path | None:
    """The binary named by ``env``, else the pinned install of ``name``, else None."""
    named = os.environ.get(env, "").strip()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    install = cache / "orbital-ci" / f"{name}-{pinned_version(name)}"
    candidate = Path(named) if named else install / "node_modules" / ".bin" / binary
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None
