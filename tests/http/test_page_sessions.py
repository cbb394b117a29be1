"""Workbench page sessions live in the store (issue 13, item 18): a restart of the server keeps
the person signed in; revoking the token or the session's expiry ends it. Only a hash of the
session id is stored."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from litestar.testing import TestClient

from orbital.clock import FixedClock
from orbital.http import HttpSettings, create_app
from orbital.service import SESSION_SECONDS, Orbital
from tests.conftest import NOW
from tests.http.http_helpers import BASE_URL, Client, World
from tests.http.test_workbench_page import sign_in


@contextmanager
def app_on(store_url: str, at: dt.datetime) -> Iterator[Client]:
    """A new service and app instance on the same store (a server restarted), its clock at
    ``at``."""
    with (
        Orbital.open(store_url, clock=FixedClock(at)) as service,
        TestClient(create_app(service, HttpSettings()), base_url=BASE_URL) as client,
    ):
        yield client


def signed_in_cookie(store_url: str, world: World) -> str:
    with app_on(store_url, NOW) as first:
        signed = sign_in(first, world.person)
        assert signed.status_code == 303
        cookie = first.cookies["orbital_session"]
        assert first.get("/workbench").status_code == 200
    return cookie


def page(client: Client, cookie: str) -> tuple[int, str]:
    client.cookies.set("orbital_session", cookie, path="/workbench")
    response = client.get("/workbench", follow_redirects=False)
    return response.status_code, response.headers.get("location", "")


def test_a_session_survives_a_restart_and_is_stored_only_hashed(
    store_url: str, world: World
) -> None:
    cookie = signed_in_cookie(store_url, world)
    with app_on(store_url, NOW + dt.timedelta(hours=1)) as restarted:
        assert page(restarted, cookie) == (200, "")
        assert "Signed in as <strong>me</strong>" in restarted.get("/workbench").text
    engine = sa.create_engine(store_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT session_sha256 FROM page_sessions")).all()
    finally:
        engine.dispose()
    assert [r[0] for r in rows] == [hashlib.sha256(cookie.encode()).hexdigest()]


def test_revoking_the_token_ends_its_sessions_in_every_instance(
    store_url: str, world: World
) -> None:
    cookie = signed_in_cookie(store_url, world)
    (person,) = [c for c in world.credentials.list() if c.label == "me"]
    world.credentials.revoke(person.token_id)
    with app_on(store_url, NOW) as restarted:
        assert page(restarted, cookie) == (303, "/workbench/login?ended=true")
    assert world.service.page_sessions.get(cookie) is None


def test_an_expired_session_is_gone(store_url: str, world: World) -> None:
    cookie = signed_in_cookie(store_url, world)
    almost = NOW + dt.timedelta(seconds=SESSION_SECONDS - 1)
    with app_on(store_url, almost) as restarted:
        assert page(restarted, cookie) == (200, "")
    with app_on(store_url, NOW + dt.timedelta(seconds=SESSION_SECONDS)) as later:
        assert page(later, cookie) == (303, "/workbench/login?ended=true")
    with app_on(store_url, NOW) as earlier:  # the expired session was deleted, not hidden
        assert page(earlier, cookie) == (303, "/workbench/login?ended=true")
