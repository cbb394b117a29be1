"""What a server does before its first request: the heap set aside only in a process of its own."""

from __future__ import annotations

import gc

from litestar.testing import TestClient

from orbital.http import HttpSettings, create_app
from tests.http.http_helpers import BASE_URL, World, bearer


def test_a_server_of_its_own_process_sets_its_heap_aside_after_starting(world: World) -> None:
    base = f"/api/v1/projects/{world.alpha}/context"
    assert gc.get_freeze_count() == 0
    with TestClient(create_app(world.service), base_url=BASE_URL) as shared:
        assert shared.get(base, headers=bearer(world.agent)).status_code == 200
    assert gc.get_freeze_count() == 0  # the tests' own apps: every one's cycles still collected
    try:
        own = create_app(world.service, HttpSettings(own_process=True))
        with TestClient(own, base_url=BASE_URL) as client:
            assert gc.get_freeze_count() > 0
            view = client.get(base, headers=bearer(world.agent))
            assert view.json()["context"] == world.service.context_view(world.alpha)
    finally:
        gc.unfreeze()
