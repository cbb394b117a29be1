"""Static checks run with the suite: types (mypy strict), lint (ruff), layers (import-linter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "mypy"],
        [sys.executable, "-m", "ruff", "check", "."],
        [sys.executable, "-m", "ruff", "format", "--check", "."],
        [str(BIN / "lint-imports")],
    ],
    ids=["mypy-strict", "ruff-lint", "ruff-format", "import-layers"],
)
def test_static_check_passes(command: list[str]) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_service_has_no_import_circle() -> None:
    """``orbital.service``'s modules import one another one way only (every import counted,
    ``TYPE_CHECKING`` and function-local ones too): each part is handed its collaborators by
    the facade, which no part imports."""
    from tests.imports import import_circles

    assert import_circles("orbital.service") == []
