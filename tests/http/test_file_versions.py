"""Whole-file writes over HTTP carry the version they read (issue 12 item 1): ``GET`` gives it
as ``ETag``, ``PUT`` takes it back as ``If-Match``; without it a write removes only what it
names and says what it kept (issue 33 finding 1); a write that would empty a file is refused
(issue 13 item 1); the Workbench shows what settling a conflict copy each way does (issue 13
item 2)."""

from __future__ import annotations

from typing import Any

from tests.http.http_helpers import Client, World, bearer

DECISIONS = "## Use Postgres\nChose: yes.\nReason: teams.\n"


def files(world: World) -> str:
    return f"/api/v1/projects/{world.alpha}/files/DECISIONS.md"


def put(client: Client, world: World, content: str, **headers: str) -> Any:
    return client.put(
        files(world), json={"content": content}, headers={**bearer(world.agent), **headers}
    )


def test_a_read_gives_its_version_and_a_write_from_it_keeps_what_came_since(
    client: Client, world: World
) -> None:
    written = put(client, world, DECISIONS)
    read = client.get(files(world), headers=bearer(world.agent))
    etag = read.headers["etag"]
    assert etag == written.headers["etag"] == f'"{written.json()["version"]}"'
    put(client, world, read.json()["content"] + "\n## Ship on Fridays\nChose: yes.\n")
    mine = put(
        client,
        world,
        read.json()["content"] + "\n## Keep a changelog\nChose: one.\n",
        **{"If-Match": etag},
    )
    assert mine.status_code == 200, mine.text
    assert "## Ship on Fridays" in mine.json()["content"]
    assert "## Keep a changelog" in mine.json()["content"]
    assert mine.headers["etag"] != etag
    archive = client.get(
        f"/api/v1/projects/{world.alpha}/files/DECISIONS_ARCHIVE.md", headers=bearer(world.agent)
    )
    assert "etag" not in archive.headers


def test_a_write_overlapping_a_change_since_its_read_is_409_and_changes_nothing(
    client: Client, world: World
) -> None:
    put(client, world, DECISIONS)
    read = client.get(files(world), headers=bearer(world.agent))
    put(client, world, read.json()["content"].replace("teams.", "the team knows it."))
    disk = world.alpha_root / "orbital" / "DECISIONS.md"
    before, head = disk.read_bytes(), world.service.head()
    stale = read.json()["content"].replace("teams.", "managed hosting.")
    refused = put(client, world, stale, **{"If-Match": read.headers["etag"]})
    assert refused.status_code == 409
    problem = refused.json()
    assert problem["type"] == "/problems/conflict"
    assert problem["detail"].endswith(
        "in what the write changes too: use-postgres; nothing was written. Read the file "
        "again and redo the change on it"
    )
    assert disk.read_bytes() == before
    assert world.service.head() == head


def test_a_malformed_if_match_is_400(client: Client, world: World) -> None:
    refused = put(client, world, DECISIONS, **{"If-Match": '"abc"'})
    assert refused.status_code == 400
    assert refused.json()["detail"].startswith("If-Match '\"abc\"' is not a version")


def test_without_if_match_an_entry_left_out_stays_and_the_body_says_why(
    client: Client, world: World
) -> None:
    read = put(client, world, DECISIONS).json()["content"]
    put(client, world, read + "\n## Ship on Fridays\nChose: yes.\n")  # another writer
    mine = put(client, world, read + "\n## Keep a changelog\nChose: one.\n")
    assert mine.status_code == 200, mine.text
    assert mine.json()["warnings"] == [
        "DECISIONS.md: kept ship-on-fridays: left out of this write, but a write that does not "
        "say which version it was made from (--base, If-Match, base) removes only the entries "
        "it names, and this one may have been written after your read. To remove them, write "
        "again with the version you read, or name them (--remove, remove)."
    ]
    assert "## Ship on Fridays" in mine.json()["content"]


def test_an_empty_write_from_a_read_is_refused_unless_the_removals_are_named(
    client: Client, world: World
) -> None:
    put(client, world, DECISIONS)
    disk = world.alpha_root / "orbital" / "DECISIONS.md"
    before = disk.read_bytes()
    version = client.get(files(world), headers=bearer(world.agent)).headers["ETag"]
    refused = put(client, world, "", **{"If-Match": version})
    assert refused.status_code == 409
    assert refused.json()["type"] == "/problems/refused"
    assert refused.json()["detail"].startswith(
        "DECISIONS.md: this write would remove 1 of its 1 entries (use-postgres); nothing "
        "was changed."
    )
    assert disk.read_bytes() == before
    named = client.put(
        files(world),
        json={"content": "", "remove": ["use-postgres"]},
        headers=bearer(world.agent),
    )
    assert named.status_code == 200, named.text
    assert [e["type"] for e in named.json()["events"]] == ["entry.retired", "file.layout_set"]


def test_the_preview_shows_what_each_choice_does_before_settling(
    client: Client, world: World
) -> None:
    put(client, world, DECISIONS)
    disk = world.alpha_root / "orbital" / "DECISIONS.md"
    opened = disk.read_text()
    put(client, world, opened.replace("teams.", "the team knows it."))
    disk.write_text(opened.replace("teams.", "managed hosting."))
    world.service.sync(world.alpha)
    (conflict,) = world.service.conflicts(world.alpha)
    base = f"/api/v1/workbench/{world.alpha}/conflicts/{conflict.copy}"
    preview = client.get(f"{base}/preview", headers=bearer(world.person))
    assert preview.status_code == 200, preview.text
    body = preview.json()
    assert "-Reason: the team knows it.\n+Reason: managed hosting.\n" in body["keep_mine"]
    assert "-Reason: managed hosting.\n+Reason: the team knows it.\n" in body["keep_orbital"]
    assert world.service.conflicts(world.alpha) == [conflict]  # nothing settled
