"""``memory_search`` through the MCP SDK's own stdio client (``orbital mcp`` a subprocess, both
backends): an archived entry is found by a word of its body and opened with ``memory_get``;
bad arguments are tool errors with the CLI's words (issue 29)."""

from __future__ import annotations

from pathlib import Path

from mcp import Client

from orbital.clock import FixedClock
from orbital.service import Orbital
from tests.archived import LESSON, LESSON_ID, archive_the_lesson
from tests.mcp.test_stdio import data_of, run_session, text_of


def test_memory_search_finds_an_archived_entry(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        archive_the_lesson(service, pid)

    async def script(client: Client) -> None:
        found = data_of(await client.call_tool("memory_search", {"query": "expiry"}))
        (hit,) = found["hits"]
        assert (hit["id"], hit["kind"], hit["state"], hit["where"], hit["title"]) == (
            LESSON_ID,
            "entry",
            "archived, held",
            "LESSONS_ARCHIVE.md",
            LESSON,
        )
        opened = data_of(await client.call_tool("memory_get", {"ref": hit["id"]}))
        assert opened["id"] == LESSON_ID and LESSON in opened["text"]
        narrowed = {"query": "expiry", "file": "DECISIONS.md"}
        assert data_of(await client.call_tool("memory_search", narrowed)) == {"hits": []}
        syntax = await client.call_tool("memory_search", {"query": 'expiry" OR (sessions'})
        assert data_of(syntax)["hits"] == []  # every word, OR too, must match: no error
        empty = await client.call_tool("memory_search", {"query": "  "})
        assert empty.is_error
        assert text_of(empty) == (
            "error: the search '  ' has no word to look for (letters or digits)"
        )
        wrong = await client.call_tool("memory_search", {"query": "x", "trust": "doubted"})
        assert wrong.is_error

    run_session(store_url, root, script)
