"""Asking git where a project's exclude file is and what it ignores already (for
``orbital install claude-code``); the decisions are in :mod:`orbital.agents.git_exclude`."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orbital.agents.git_exclude import pattern


@dataclass(frozen=True)
class Repository:
    """The git work tree a project is in: its top and its ``info/exclude`` file."""

    top: Path
    exclude: Path


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
    )


def repository(root: Path) -> Repository | None:
    """The work tree ``root`` is in (None: not in one, or no git installed)."""
    if shutil.which("git") is None:
        return None
    done = _git(root, "rev-parse", "--show-toplevel", "--git-path", "info/exclude")
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 2:
        return None
    top = Path(lines[0])
    exclude = Path(lines[1])
    return Repository(top, exclude if exclude.is_absolute() else root / exclude)


def to_exclude(repo: Repository, root: Path, names: Sequence[str]) -> list[str]:
    """Patterns for the files ``names`` (relative to ``root``) that git does not ignore yet."""
    relative = [
        (root / name).resolve().relative_to(repo.top.resolve()).as_posix() for name in names
    ]
    ignored = set(_git(repo.top, "check-ignore", "--no-index", "--", *relative).stdout.splitlines())
    return [pattern(path) for path in relative if path not in ignored]
