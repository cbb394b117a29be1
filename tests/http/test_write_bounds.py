"""A write cannot run away (issue 27, finding 3): one write that adds more than
``MAX_NEW_ENTRIES`` entries or ``MAX_ADDED_TOKENS`` tokens to a memory file is refused whole,
with the figure, on every write path (CLI, HTTP, MCP, a hand edit), and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from orbital.cli import cli
from orbital.domain.growth import MAX_ADDED_TOKENS, MAX_NEW_ENTRIES
from orbital.events import Actor
from orbital.mcp._caller import Caller
from orbital.mcp._calls import Calls
from tests.http.http_helpers import Client, World, bearer


def lessons(n: int) -> str:
    return "".join(
        f"{i}. Lesson {i}: check the deploy step {i} before shipping.\n" for i in range(1, n + 1)
    )


#: Three decisions of about 4,000 tokens each: few entries, far too many tokens.
LONG = "".join(
    f"## Decision {i}\nChose: option {i}.\nReason: "
    + " ".join(f"because{j} reason{j}" for j in range(2000))
    + "\n\n"
    for i in range(3)
)


def test_a_write_adding_too_much_is_refused_with_the_figure_on_every_path(
    client: Client, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, alpha = world.service, world.alpha
    root = world.alpha_root / "orbital"
    head, files = service.head(), {p.name: p.read_bytes() for p in root.iterdir()}
    too_many = (
        f"LESSONS.md: this write adds {MAX_NEW_ENTRIES + 50:,} entries at once, over the bound "
        f"of {MAX_NEW_ENTRIES:,} entries per write; nothing was changed. A memory file keeps "
        "what is worth rereading: write the few entries that matter, or add them over several "
        "writes"
    )
    monkeypatch.setenv("ORBITAL_DB", service.store.url)
    cli_write = CliRunner().invoke(
        cli,
        ["write", "LESSONS.md", "--project", str(world.alpha_root)],
        input=lessons(MAX_NEW_ENTRIES + 50),
        obj={},
    )
    assert (cli_write.exit_code, cli_write.stderr) == (4, f"error: {too_many}\n")
    put = client.put(
        f"/api/v1/projects/{alpha}/files/LESSONS.md",
        json={"content": lessons(MAX_NEW_ENTRIES + 50)},
        headers=bearer(world.agent),
    )
    assert (put.status_code, put.json()["detail"]) == (409, too_many)
    mcp = Calls(service).memory_write(
        Caller(alpha, None), "LESSONS.md", lessons(MAX_NEW_ENTRIES + 50), None, None
    )
    assert (mcp.is_error, mcp.texts) == (True, (f"error: {too_many}",))
    long = CliRunner().invoke(
        cli, ["write", "DECISIONS.md", "--project", str(world.alpha_root)], input=LONG, obj={}
    )
    assert long.exit_code == 4
    prefix = "error: DECISIONS.md: this write adds "
    assert long.stderr.startswith(prefix)
    added = int(long.stderr.removeprefix(prefix).split(" tokens")[0].replace(",", ""))
    assert added > MAX_ADDED_TOKENS
    assert f"over the bound of {MAX_ADDED_TOKENS:,} tokens per write" in long.stderr
    assert service.head() == head
    assert {p.name: p.read_bytes() for p in root.iterdir()} == files
    # At the bound, a write goes through.
    kept = service.write_file(
        alpha, "LESSONS.md", lessons(MAX_NEW_ENTRIES).encode(), actor=Actor.AGENT
    )
    assert not kept.refused and kept.content.count("Lesson ") == MAX_NEW_ENTRIES


def test_a_hand_edit_adding_too_much_is_kept_aside_and_says_which_protection(
    world: World,
) -> None:
    service, alpha = world.service, world.alpha
    service.write_file(alpha, "LESSONS.md", lessons(2).encode(), actor=Actor.AGENT)
    disk: Path = world.alpha_root / "orbital" / "LESSONS.md"
    written = disk.read_bytes()
    edited = written + lessons(MAX_NEW_ENTRIES + 10).replace("Lesson", "Hand lesson").encode()
    disk.write_bytes(edited)
    report = service.sync(alpha)
    (copy,) = report.conflicts
    assert (disk.parent / copy).read_bytes() == edited
    assert disk.read_bytes() == written
    assert (
        f"LESSONS.md was edited outside Orbital and the edit adds {MAX_NEW_ENTRIES + 10:,} "
        f"entries at once, over the bound of {MAX_NEW_ENTRIES:,} entries per write; nothing "
        f"was taken from it; the edited file is saved as orbital/{copy}"
    ) in " ".join(report.warnings)


def test_the_backstop_ends_within_budget_or_names_the_protection(world: World) -> None:
    """Issue 27, finding 3: INDEX.md made only of archive lines cannot be cut; session-end
    says so instead of leaving it over budget without a word."""
    service, alpha = world.service, world.alpha
    index = "".join(f"- DECISIONS_ARCHIVE.md — old decisions batch {i}\n" for i in range(150))
    service.write_file(alpha, "INDEX.md", index.encode(), actor=Actor.AGENT)
    report = service.session_end(alpha)
    (note,) = [n for n in report.notes if n.startswith("INDEX.md")]
    assert note.startswith("INDEX.md stays over its soft budget: ")
    assert note.endswith(
        "tok after session-end; its 150 lines naming an archive (_ARCHIVE.md) are never cut; "
        "leaving it (over budget beats losing the way to archived entries)"
    )
