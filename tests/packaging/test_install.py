"""The one-command install, for real: the wheel built from this repository, installed without
an editable path into an empty venv, with ``uv tool install``, with ``pipx install`` and run by
``uvx --from <wheel>``, each then used from a folder outside the repository: ``init``, a write,
``context``, an MCP ``initialize`` over stdio, and the shipped Alembic scripts found from the
installed package. ``uv`` and ``pipx`` come from the test extras; a test skips without them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import orbital
from orbital.store._migrate import newest_revision
from tests.packaging.tools import ROOT, build_wheel, clean_env, run, tool, uvx

pytestmark = pytest.mark.slow

#: A way of installing: from the wheel (or this repository), into a folder, with an environment;
#: it returns the command that runs the installed ``orbital``.
Installer = Callable[[Path, Path, dict[str, str]], list[str]]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new empty venv with the wheel (and the PostgreSQL driver extra) installed in it."""
    uv, where = tool("uv"), tmp_path_factory.mktemp("venv")
    env = clean_env(where)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    run([str(uv), "venv", "-q", "--python", version, str(where / "v")], where, env)
    python = str(where / "v" / "bin" / "python")
    run([str(uv), "pip", "install", "-q", "--python", python, f"{wheel}[postgres]"], where, env)
    return where / "v"


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A git checkout to register, and a HOME, both outside the repository."""
    project, home = tmp_path / "shop", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project, home


def _initialize(
    orbital_cmd: list[str], project: Path, env: dict[str, str]
) -> dict[int, dict[str, object]]:
    """An MCP ``initialize`` and a ``tools/call`` over stdio, as raw JSON-RPC lines."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "install-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "asks_list"}},
    ]
    stdin = "".join(json.dumps(request) + "\n" for request in requests)
    done = run([*orbital_cmd, "mcp"], project, env, stdin)
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert set(answers) == {1, 2}, done.stdout
    return answers


def _use(orbital_cmd: list[str], tmp_path: Path, store_url: str) -> None:
    """``init``, a write, ``context`` and MCP from a folder outside the repository."""
    project, home = _project(tmp_path)
    env = clean_env(home, {"ORBITAL_DB": store_url, "ORBITAL_STATE_DIR": str(tmp_path / "s")})
    assert run([*orbital_cmd, "--version"], project, env).stdout == (
        f"orbital, version {orbital.__version__}\n"
    )
    pid = run([*orbital_cmd, "init"], project, env).stdout.removesuffix(")\n").split()[-1]
    assert pid == (project / "orbital" / "project-id").read_text().strip()
    assert (
        run([*orbital_cmd, "projects"], project, env).stdout == f"{pid}\tshop\t{project}\tlocal\n"
    )
    assert (project / "orbital" / "ASKS.md").is_file()
    opened = run([*orbital_cmd, "ask", "open", "Pick the release date"], project, env).stdout
    ask_id = opened.split()[3].removesuffix(":")
    assert opened == f"2 ask:{ask_id} ask.opened {ask_id}: Pick the release date\n", opened
    context = run([*orbital_cmd, "context"], project, env).stdout
    assert f"Open asks (1):\n[{ask_id}] Pick the release date\n" in context
    answers = _initialize(orbital_cmd, project, env)
    result = answers[1]["result"]
    assert isinstance(result, dict)
    assert result["serverInfo"] == {
        "name": "orbital",
        "title": "Orbital project memory",
        "version": orbital.__version__,
    }
    listed = answers[2]["result"]
    assert isinstance(listed, dict) and not listed.get("isError"), listed
    assert "Pick the release date" in json.dumps(listed)
    doctor = run([*orbital_cmd, "doctor"], project, env).stdout
    assert doctor.startswith("no problems found (store "), doctor


def test_the_wheel_in_an_empty_venv_serves_a_project(
    venv: Path, tmp_path: Path, store_url: str
) -> None:
    _use([str(venv / "bin" / "orbital")], tmp_path, store_url)


def test_the_installed_package_is_the_one_that_runs_with_its_migrations(
    venv: Path, tmp_path: Path
) -> None:
    """Nothing of this checkout is imported; Alembic finds the shipped ``alembic.ini`` and
    scripts inside the installed package, as in the repository (``%(here)s/migrations``)."""
    env = clean_env(tmp_path)
    code = "import orbital, sys; print(orbital.__file__); print(*sys.path, sep='\\n')"
    found = run([str(venv / "bin" / "python"), "-c", code], tmp_path, env).stdout.splitlines()
    package = Path(found[0]).parent
    assert package.is_relative_to(venv), found[0]
    assert not any(entry and Path(entry).resolve().is_relative_to(ROOT) for entry in found[1:])
    ini = package / "_alembic" / "alembic.ini"
    assert ini.read_bytes() == (ROOT / "alembic.ini").read_bytes()
    heads = run([str(venv / "bin" / "alembic"), "-c", str(ini), "heads"], tmp_path, env).stdout
    assert heads == f"{newest_revision()} (head)\n"


def _uv_tool(wheel: Path, where: Path, env: dict[str, str]) -> list[str]:
    bin_dir = where / "bin"
    env |= {"UV_TOOL_DIR": str(where / "tools"), "UV_TOOL_BIN_DIR": str(bin_dir)}
    run([str(tool("uv")), "tool", "install", "-q", f"{ROOT}[postgres]"], where, env)
    return [str(bin_dir / "orbital")]


def _pipx(wheel: Path, where: Path, env: dict[str, str]) -> list[str]:
    bin_dir = where / "bin"
    env |= {"PIPX_HOME": str(where / "pipx"), "PIPX_BIN_DIR": str(bin_dir)}
    env |= {"PIPX_MAN_DIR": str(where / "man")}
    run([str(tool("pipx")), "install", "--quiet", f"{ROOT}[postgres]"], where, env)
    return [str(bin_dir / "orbital")]


def _uvx(wheel: Path, where: Path, env: dict[str, str]) -> list[str]:
    return uvx(wheel, "orbital")


INSTALLERS: dict[str, Installer] = {
    "uv tool install .": _uv_tool,
    "pipx install .": _pipx,
    "uvx --from <wheel>": _uvx,
}


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[str]]:
    """The ``orbital`` command of each way of installing, installed once per module."""
    done: dict[str, list[str]] = {}

    def command(way: str) -> list[str]:
        if way not in done:
            where = tmp_path_factory.mktemp("tool")
            done[way] = INSTALLERS[way](wheel, where, clean_env(where))
        return done[way]

    return command


@pytest.mark.parametrize("way", sorted(INSTALLERS))
def test_a_tool_install_serves_a_project(
    way: str, installed: Callable[[str], list[str]], tmp_path: Path, store_url: str
) -> None:
    _use(installed(way), tmp_path, store_url)


def test_the_command_server_json_describes_serves_a_project(
    wheel: Path, tmp_path: Path, store_url: str
) -> None:
    """What an MCP client starts from the registry entry: ``uvx <identifier> <arguments>``."""
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    (package,) = server["packages"]
    command = uvx(wheel, package["identifier"])
    project, home = _project(tmp_path)
    env = clean_env(home, {"ORBITAL_DB": store_url, "ORBITAL_STATE_DIR": str(tmp_path / "s")})
    run([*command, "init"], project, env)
    arguments = [argument["value"] for argument in package["packageArguments"]]
    assert arguments == ["mcp"]
    answers = _initialize(command, project, env)
    assert answers[2]["result"] == {
        "content": [{"type": "text", "text": '{"asks":[]}'}],
        "structuredContent": {"asks": []},
        "isError": False,
    }
