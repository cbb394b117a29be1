"""The texts the agent sees first over HTTP (issue 19): the person writes the description and
the workspace context (limits counted exactly, the cut message, nothing saved over them);
the agent reads them and keeps the workspace's lessons; two workspaces and two tokens never
see each other's lessons (404 as for projects)."""

from __future__ import annotations

from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer


def test_the_person_writes_the_texts_at_their_limits(client: Client, world: World) -> None:
    service = world.service
    service.workspaces.create("acme", actor=Actor.USER)
    service.workspaces.join(world.alpha, "acme", actor=Actor.USER)
    base = f"/api/v1/workbench/{world.alpha}"
    person = bearer(world.person)
    saved = client.put(f"{base}/workspace/context", headers=person, json={"text": "c" * 4000})
    assert saved.status_code == 200, saved.text
    assert saved.json() == {"warnings": [], "version": None}
    head = service.head()
    over = client.put(f"{base}/workspace/context", headers=person, json={"text": "c" * 4001})
    assert over.status_code == 400
    assert over.json()["detail"] == (
        "the workspace context of 'acme' is 4,001 characters, over its limit of 4,000: cut 1 "
        "character (nothing was saved)"
    )
    described = client.put(f"{base}/description", headers=person, json={"text": "d" * 2000})
    assert described.status_code == 200
    long = client.put(f"{base}/description", headers=person, json={"text": "d" * 2003})
    assert long.status_code == 400 and long.json()["detail"].endswith(
        "cut 3 characters (nothing was saved)"
    )
    assert service.head() == head + 1
    texts = client.get(f"{base}/texts", headers=person).json()
    assert (texts["workspace"], len(texts["context"]), len(texts["description"])) == (
        "acme",
        4000,
        2000,
    )
    # The agent token reads them but may not write the person's texts.
    agent = bearer(world.agent)
    assert client.put(f"{base}/description", headers=agent, json={"text": "x"}).status_code == 403
    read = client.get(f"/api/v1/projects/{world.alpha}/texts", headers=agent).json()
    assert read["context"] == "c" * 4000 and read["description"] == "d" * 2000
    # A project in no workspace has no context to write.
    beta = client.put(
        f"/api/v1/workbench/{world.beta}/workspace/context", headers=person, json={"text": "x"}
    )
    assert beta.status_code == 404


def test_workspace_lessons_stay_in_their_workspace_for_each_token(
    client: Client, world: World
) -> None:
    service = world.service
    for name, project in (("acme", world.alpha), ("globex", world.beta)):
        service.workspaces.create(name, actor=Actor.USER)
        service.workspaces.join(project, name, actor=Actor.USER)
    beta_agent = service.credentials.create("agent", [world.beta], label="beta agent").token
    alpha_path = f"/api/v1/projects/{world.alpha}"
    beta_path = f"/api/v1/projects/{world.beta}"
    wrote = client.put(
        f"{alpha_path}/workspace/lessons",
        headers=bearer(world.agent),
        json={"text": "1. ACME ships on Tuesdays.", "version": 0},
    )
    assert wrote.status_code == 200, wrote.text
    version = wrote.json()["version"]
    client.put(
        f"{beta_path}/workspace/lessons",
        headers=bearer(beta_agent),
        json={"text": "1. Globex never ships on Fridays."},
    )
    alpha_view = client.get(f"{alpha_path}/context", headers=bearer(world.agent)).text
    beta_view = client.get(f"{beta_path}/context", headers=bearer(beta_agent)).text
    assert "ACME ships on Tuesdays" in alpha_view and "Globex" not in alpha_view
    assert "Globex never ships on Fridays" in beta_view and "ACME" not in beta_view
    # Each token reaches its own project only: the other workspace's lessons are a 404.
    for token, path in ((world.agent, beta_path), (beta_agent, alpha_path)):
        assert client.get(f"{path}/texts", headers=bearer(token)).status_code == 404
        crossed = client.put(
            f"{path}/workspace/lessons", headers=bearer(token), json={"text": "1. Mine now."}
        )
        assert crossed.status_code == 404
    own = client.get(f"{alpha_path}/texts", headers=bearer(world.agent)).json()
    assert (own["lessons"], own["lessons_version"]) == ("1. ACME ships on Tuesdays.", version)
    stale = client.put(
        f"{alpha_path}/workspace/lessons",
        headers=bearer(world.agent),
        json={"text": "1. Stale.", "version": version - 1},
    )
    assert stale.status_code == 409
