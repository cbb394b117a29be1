"""Building the wheel and running what an install put on disk, away from this repository.

Every command runs with an environment of its own (no ``PYTHONPATH``, no venv of this checkout
on ``PATH``, a HOME of its own) and from a folder outside the repository, so what runs is the
installed package and nothing else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Kept from the test's environment for the installers to reach the package index as this
#: machine does (its certificates, proxies, pip's settings).
_KEPT = (
    *("LANG", "LC_ALL", "TMPDIR", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"),
    *("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"),
    *("PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_INDEX_URL", "UV_INDEX_URL"),
)


def tool(name: str) -> Path:
    """``uv`` or ``pipx`` from the test extras (beside this Python), else on PATH; skips."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} not found: pip install -e '.[test]' installs it from PyPI")
    return Path(found)


def clean_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment with none of this checkout in it: system PATH, a HOME of its own."""
    env = {name: os.environ[name] for name in _KEPT if name in os.environ}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    # uv's usual cache (it would follow the new HOME otherwise): nothing is downloaded twice.
    env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")
    return env | dict(extra or {})


def run(
    command: list[str], cwd: Path, env: Mapping[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command``; a failure shows its output."""
    done = subprocess.run(
        command, cwd=cwd, env=dict(env), input=stdin, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def build_wheel(out: Path) -> Path:
    """The wheel built from this repository by ``uv build`` (hatchling, in isolation)."""
    uv = tool("uv")
    home = out / "home"
    home.mkdir(parents=True, exist_ok=True)
    run([str(uv), "build", "--wheel", "-q", "-o", str(out), str(ROOT)], out, clean_env(home))
    (wheel,) = out.glob("orbital_memory-*.whl")
    return wheel


def uvx(wheel: Path, script: str) -> list[str]:
    """``uvx --from <wheel> <script>`` (with the PostgreSQL driver beside it)."""
    uv = str(tool("uv"))
    return [uv, "tool", "run", "-q", "--from", str(wheel), "--with", "psycopg[binary]", script]
