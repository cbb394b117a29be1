"""Fixtures for the store- and file-level fault tests: a CLI on a store in a temporary
directory, and a small tmpfs (for a full disk or a read-only filesystem) when this process may
mount one (root on Linux); the tests that need it are skipped elsewhere."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ORBITAL_DB", f"sqlite:///{tmp_path / 'store' / 'orbital.db'}")
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    (tmp_path / "store").mkdir()
    return CliRunner()


class Tmpfs:
    """A mounted tmpfs of a few hundred KiB that can be flipped read-only and back."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def remount(self, mode: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{mode}", str(self.path)], check=True)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Tmpfs]:
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("needs to mount a tmpfs (root on Linux)")
    try:
        yield Tmpfs(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


#: Figures the crash-and-concurrency tests measured, printed at the end of the run.
FIGURES: list[str] = []


@pytest.fixture
def figures() -> list[str]:
    """Where a reliability test records what it measured (trials, writes, lost)."""
    return FIGURES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FIGURES:
        terminalreporter.section("reliability figures")
        for line in FIGURES:
            terminalreporter.write_line(line)
