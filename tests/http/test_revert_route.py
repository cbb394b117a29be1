"""The person's revert over HTTP (issue 27): one request takes the memory files back, a second
takes that revert back; an agent token is refused and an unknown target said so."""

from __future__ import annotations

from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer

DECISIONS = b"## Ship on Fridays\nChose: yes.\n"


def test_the_person_reverts_and_reverts_the_revert(client: Client, world: World) -> None:
    path = world.alpha_root / "orbital" / "DECISIONS.md"
    world.service.write_file(world.alpha, "DECISIONS.md", DECISIONS, actor=Actor.AGENT)
    before, good = path.read_bytes(), world.service.head(world.alpha)
    more = DECISIONS + b"\n## Ship on Mondays\nChose: no.\n"
    world.service.write_file(world.alpha, "DECISIONS.md", more, actor=Actor.AGENT)
    after, bad = path.read_bytes(), world.service.head(world.alpha)
    url = f"/api/v1/workbench/{world.alpha}/revert"

    agent = client.post(url, headers=bearer(world.agent), json={"to": f"@{good}"})
    assert agent.status_code == 403
    unknown = client.post(url, headers=bearer(world.person), json={"to": "feedbeef"})
    assert unknown.status_code == 404
    assert unknown.json()["detail"] == "no event with id 'feedbeef' in this project's log"
    assert path.read_bytes() == after

    done = client.post(url, headers=bearer(world.person), json={"to": f"@{good}"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["position"] == good
    assert [e["type"] for e in body["events"]] == [
        "project.reverted",
        "entry.retired",
        "file.layout_set",
    ]
    assert path.read_bytes() == before
    back = client.post(url, headers=bearer(world.person), json={"to": f"@{bad}"})
    assert back.status_code == 200, back.text
    assert path.read_bytes() == after
    nothing = client.post(url, headers=bearer(world.person), json={"to": f"@{bad}"})
    assert nothing.status_code == 409
    assert nothing.json()["detail"] == (
        f"the memory files already stand as they did at @{bad}: nothing to revert"
    )
