"""The agent's injection view over HTTP: the agent's and a sub-agent's view, its ETag and 304,
and (with the files) as of a position."""

from __future__ import annotations

from orbital.events import Actor
from orbital.service import Orbital
from tests.http.http_helpers import Client, World, bearer, put_asks


def test_context_view_for_the_agent_and_a_subagent(client: Client, world: World) -> None:
    put_asks(client, world, "- open Pick a venue\n")
    base = f"/api/v1/projects/{world.alpha}/context"
    agent = client.get(base, headers=bearer(world.agent))
    assert agent.status_code == 200, agent.text
    body = agent.json()
    assert (body["project"], body["audience"]) == (world.alpha, "agent")
    assert body["context"] == world.service.context_view(world.alpha)
    assert "Pick a venue" in body["context"]
    sub = client.get(base + "?audience=subagent&window=200000", headers=bearer(world.agent))
    assert sub.status_code == 200
    assert sub.json()["context"] == world.service.context_view(
        world.alpha, window=200000, audience="subagent"
    )
    for query, detail in [
        ("?audience=person", "query field `audience`: Invalid enum value 'person'"),
        ("?window=0", "query field `window`: Expected `int` >= 1"),
    ]:
        bad = client.get(base + query, headers=bearer(world.agent))
        assert bad.status_code == 400
        assert bad.json()["detail"].startswith(detail), bad.json()


def test_context_is_tagged_and_an_unchanged_view_is_304(client: Client, world: World) -> None:
    put_asks(client, world, "- open Pick a venue\n")
    base = f"/api/v1/projects/{world.alpha}/context"
    first = client.get(base, headers=bearer(world.agent))
    tag = first.headers["ETag"]
    assert first.status_code == 200 and tag.startswith('"') and tag.endswith('"')
    assert sorted(first.headers.items()) == [
        ("content-length", str(len(first.content))),
        ("content-type", "application/json"),
        ("etag", tag),
    ]
    again = client.get(base, headers={**bearer(world.agent), "If-None-Match": tag})
    assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", tag)
    assert sorted(again.headers) == ["etag"]
    repeated = client.get(base, headers=bearer(world.agent))
    assert (repeated.content, repeated.headers["ETag"]) == (first.content, tag)
    other = Orbital.open(world.service.store.url)  # another process writes meanwhile
    try:
        other.ask_open(world.alpha, "Book the caterer", actor=Actor.USER)
    finally:
        other.close()
    changed = client.get(base, headers={**bearer(world.agent), "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert "Book the caterer" in changed.json()["context"]
    assert changed.json()["context"] == world.service.context_view(world.alpha)
