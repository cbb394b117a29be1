"""The package's registry metadata agrees with itself: one version (``orbital.__version__``),
the MCP registry's ``server.json`` naming this distribution, the command it describes, and the
README line the registry reads to check who owns the PyPI package."""

from __future__ import annotations

import json
import tomllib

from click.testing import CliRunner

import orbital
from orbital.cli import cli
from tests.packaging.tools import ROOT

SERVER = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_version_is_written_once() -> None:
    assert "version" not in PROJECT and PROJECT["dynamic"] == ["version"]
    hatch = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]
    assert hatch["version"] == {"path": "orbital/__init__.py"}
    (package,) = SERVER["packages"]
    assert SERVER["version"] == package["version"] == orbital.__version__


def test_server_json_describes_the_stdio_server_of_this_distribution() -> None:
    (package,) = SERVER["packages"]
    assert SERVER["$schema"].endswith("/server.schema.json")
    assert len(SERVER["description"]) <= 100  # the official registry's limit
    assert package["registryType"] == "pypi"
    assert package["registryBaseUrl"] == "https://pypi.org"
    assert package["identifier"] == PROJECT["name"]
    assert package["runtimeHint"] == "uvx"
    assert package["transport"] == {"type": "stdio"}
    # `uvx orbital-memory mcp`: uvx runs the script named as the distribution.
    assert PROJECT["scripts"][package["identifier"]] == PROJECT["scripts"]["orbital"]
    assert [arg["value"] for arg in package["packageArguments"]] == ["mcp"]
    assert CliRunner().invoke(cli, ["mcp", "--help"]).exit_code == 0


def test_the_readme_carries_the_registry_marker() -> None:
    readme = (ROOT / PROJECT["readme"]).read_text(encoding="utf-8").splitlines()
    assert f"<!-- mcp-name: {SERVER['name']} -->" in readme
