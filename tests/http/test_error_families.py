"""Error families: each maps to one HTTP status and one CLI exit status, and the advice that
only works at a shell reaches the CLI, never an HTTP problem."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orbital import errors
from orbital.cli import cli
from orbital.service import Orbital
from tests.http.http_helpers import World, bearer

Client = Any

#: Family -> (HTTP status, CLI exit status), as the README's table states them.
FAMILIES: dict[type[errors.OrbitalError], tuple[int, int]] = {
    errors.InvalidInput: (400, 1),
    errors.NotFound: (404, 1),
    errors.Refused: (409, 4),
    errors.Conflict: (409, 5),
    errors.Unavailable: (503, 6),
    errors.Internal: (500, 1),
}

#: One of every error Orbital raises.
EXAMPLES: list[errors.OrbitalError] = [
    errors.InvalidInput("an ask needs a text"),
    errors.UnsafePath("..", "a memory file is named without a directory"),
    errors.PlantedJournal([".DECISIONS.md.0123456789abcdef.orbital-none"]),
    errors.TooLarge(10, 5),
    errors.InvalidEncoding(3),
    errors.UnknownProject("nope"),
    errors.ProjectElsewhere("/work/shop", "f651b625", "sqlite:///x.db", ()),
    errors.UnknownAsk("zzzzzz"),
    errors.UnknownFile("notes.md", ("ASKS.md",)),
    errors.UnknownEntry("use-x"),
    errors.UnknownEvent("0b6f4a2e"),
    errors.UnknownWorkspace("acme"),
    errors.NoWorkspace("billing"),
    errors.TextTooLong("the description of project 'billing'", 2001, 2000),
    errors.Refused("entry 'x' is archived: restore it before pinning or unpinning"),
    errors.UnmergedEdits(("DECISIONS.md",)),
    errors.MassRemoval("DECISIONS.md", ("use-x", "use-y"), 2),
    errors.TooMuchAtOnce("LESSONS.md", "21,650 entries", "300 entries"),
    errors.SecretRefused("orbital/DECISIONS.md", 3, "AWS Access Key"),
    errors.VersionConflict("ask:a1b2c3", 2, 3),
    errors.UnknownBase(99, "past the head of the log", 3, 42),
    errors.StaleWrite("DECISIONS.md", 12, ("use-x",)),
    errors.StoreLocked("sqlite:///x.db", 5000),
    errors.ProviderError("HTTP 502: bad gateway", status=502, transient=True),
    errors.EditorNotConfigured(("ORBITAL_EDITOR_URL",)),
    errors.EditorAgentMissing("claude is not on PATH"),
    errors.SessionUnreadable("s1", "permission denied"),
    errors.MalformedEvent("not JSON", position=7),
    errors.TokenizerUnavailable("cl100k_base.tiktoken not found"),
    errors.NoStore("/data/orbital.db"),
    errors.StoreGone("/data/orbital.db", "was deleted while in use", "Run `orbital db rescue`"),
    errors.NothingToRescue("/data/orbital.db", "no running process holds the deleted file open"),
    errors.RescueFailed("could not copy the store held by process 7: EIO"),
    errors.StoreReadOnly("sqlite:///x.db"),
    errors.StoreUnreachable("postgresql+psycopg://h/db", "Connection refused"),
    errors.DiskFull("sqlite:///x.db"),
    errors.StoreCorrupt("sqlite:///x.db", "file is not a database"),
    errors.UnsafeSqlite("3.40.1"),
]


def family_of(error: errors.OrbitalError) -> type[errors.OrbitalError]:
    (found,) = [family for family in FAMILIES if isinstance(error, family)]
    return found


def test_every_error_class_is_in_exactly_one_family() -> None:
    defined = {
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.OrbitalError) and cls is not errors.OrbitalError
    }
    assert defined - set(FAMILIES) == {type(e) for e in EXAMPLES} - set(FAMILIES)
    assert set(errors.FAMILIES) == set(FAMILIES)
    for error in EXAMPLES:
        assert errors.family(type(error)) is family_of(error)


def put_asks(client: Client, world: World) -> Any:
    return client.put(
        f"/api/v1/projects/{world.alpha}/files/ASKS.md",
        json={"content": "- open X\n"},
        headers=bearer(world.agent),
    )


@pytest.mark.parametrize("error", EXAMPLES, ids=lambda e: type(e).__name__)
@pytest.mark.usefixtures("orbital_db")
def test_each_family_has_one_status_and_one_exit_status(
    client: Client,
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    error: errors.OrbitalError,
) -> None:
    status, exit_status = FAMILIES[family_of(error)]

    def failing(*_args: object, **_kwargs: object) -> None:
        raise error

    monkeypatch.setattr(Orbital, "write_file", failing)
    response = put_asks(client, world)
    problem = response.json()
    assert (response.status_code, problem["status"]) == (status, status)
    assert problem["detail"] == str(error)
    assert "`orbital" not in problem["detail"]
    assert "--force" not in problem["detail"]

    monkeypatch.setattr(Orbital, "project", failing)
    result = CliRunner().invoke(cli, ["history", "--project", str(tmp_path)], obj={})
    assert result.exit_code == exit_status
    hint = f": {error.hint}" if error.hint else ""
    assert result.stderr == f"error: {error}{hint}\n"


def test_editor_and_tokenizer_failures_are_not_the_clients_fault(
    client: Client, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def model_fails(*_args: object, **_kwargs: object) -> None:
        raise errors.ProviderError("no reply within 60 s", transient=True)

    monkeypatch.setattr(Orbital, "session_end", model_fails)
    ended = client.post(f"/api/v1/projects/{world.alpha}/session-end", headers=bearer(world.agent))
    assert (ended.status_code, ended.json()["type"]) == (503, "/problems/unavailable")

    def no_tokenizer(*_args: object, **_kwargs: object) -> None:
        raise errors.TokenizerUnavailable("cl100k_base.tiktoken not found")

    monkeypatch.setattr(Orbital, "context_view", no_tokenizer)
    monkeypatch.setattr(Orbital, "kept_view", lambda *_a, **_k: None)  # the view is rendered
    view = client.get(f"/api/v1/projects/{world.alpha}/context", headers=bearer(world.agent))
    assert (view.status_code, view.json()["type"]) == (500, "/problems/internal-error")


@pytest.mark.usefixtures("orbital_db")
def test_shell_advice_reaches_the_cli_and_never_an_http_problem(
    client: Client, world: World
) -> None:
    over_http = client.post(
        f"/api/v1/workbench/{world.alpha}/asks/zzzzzz/done", headers=bearer(world.person)
    )
    assert (over_http.status_code, over_http.json()["detail"]) == (404, "no ask with id 'zzzzzz'")

    base = ["--project", str(world.alpha_root)]
    at_shell = CliRunner().invoke(cli, ["ask", "done", *base, "zzzzzz"], obj={})
    assert (at_shell.exit_code, at_shell.stderr) == (
        1,
        "error: no ask with id 'zzzzzz': use an id from `orbital asks`\n",
    )

    decisions = world.alpha_root / "orbital" / "DECISIONS.md"
    decisions.write_text(decisions.read_text() + "\nmy note\n")
    refused = CliRunner().invoke(cli, ["regenerate", *base], obj={})
    assert (refused.exit_code, refused.stderr) == (
        4,
        "error: DECISIONS.md changed on disk since Orbital wrote it; nothing was rewritten: "
        "run `orbital sync` to merge the edit into the memory, or `orbital regenerate --force` "
        "to keep the edited file beside as a conflict copy and rewrite it\n",
    )


def test_the_problem_pages_name_each_family_once(client: Client) -> None:
    index = client.get("/problems").text
    for slug in ("invalid-input", "not-found", "refused", "conflict", "unavailable"):
        assert f'id="{slug}"' in index
    assert 'id="bad-request"' not in index
    too_large = client.get("/problems/too-large").text
    assert "varies" in too_large  # 413 for a request body, 400 for a file's content
