"""The calendar feed: open asks' dues and PROJECT_STATE's dated facts as iCalendar, read with
two parsers, behind a read-only token of its own."""

from __future__ import annotations

import datetime as dt

import icalendar
import vobject
from click.testing import CliRunner

from orbital.cli import cli
from orbital.events import Actor
from tests.http.http_helpers import Client, World, bearer

Row = tuple[str, str, dt.date | dt.datetime]


def _feed_url(world: World, token: str, project: str | None = None) -> str:
    return f"/api/v1/calendar/{project or world.alpha}/feed.ics?token={token}"


def _calendar_token(world: World, project: str | None = None) -> str:
    return world.credentials.create("calendar", [project or world.alpha]).token


def _rows_icalendar(text: str) -> set[Row]:
    parsed = icalendar.Calendar.from_ical(text)
    return {(str(e["uid"]), str(e["summary"]), e.decoded("dtstart")) for e in parsed.walk("VEVENT")}


def _rows_vobject(text: str) -> set[Row]:
    parsed = vobject.readOne(text)
    return {
        (e.uid.value, e.summary.value, e.dtstart.value) for e in parsed.contents.get("vevent", [])
    }


def _seed(world: World) -> dict[str, str]:
    """Three asks (one dated by day, one by time, one undated) and a dated state fact."""
    service, alpha = world.service, world.alpha
    ids = {}
    for name, text, due in (
        ("day", "Confirm the launch date with marketing", "2026-12-20"),
        ("time", "Call the payment provider", "2026-12-18T15:30"),
        ("none", "Choose a logo colour", None),
    ):
        outcome = service.ask_open(alpha, text, due, actor=Actor.AGENT)
        ids[name] = outcome.events[0].stream.removeprefix("ask:")
    state = (
        "# Project state\n\n"
        "- [due:2026-12-24] Release 2.0 to customers\n"
        "- Parser rewrite in progress\n"
    )
    service.write_file(alpha, "PROJECT_STATE.md", state.encode(), actor=Actor.AGENT)
    return ids


def test_the_feed_holds_dated_asks_and_facts_and_two_parsers_agree(
    client: Client, world: World
) -> None:
    ids = _seed(world)
    response = client.get(_feed_url(world, _calendar_token(world)))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/calendar; charset=utf-8"
    assert "X-WR-CALNAME:Orbital: alpha\r\n" in response.text  # the project's display name
    text = response.text
    rows = _rows_icalendar(text)
    state_uid = next(uid for uid, _, _ in rows if uid.startswith("state-"))
    assert rows == {
        (
            f"ask-{ids['day']}@{world.alpha}.orbital",
            "Confirm the launch date with marketing",
            dt.date(2026, 12, 20),
        ),
        (
            f"ask-{ids['time']}@{world.alpha}.orbital",
            "Call the payment provider",
            dt.datetime(2026, 12, 18, 15, 30),
        ),
        (state_uid, "Release 2.0 to customers", dt.date(2026, 12, 24)),
    }
    assert _rows_vobject(text) == rows
    # The same state renders the same bytes (DTSTAMP is the line's day, not the request's).
    assert client.get(_feed_url(world, _calendar_token(world))).text == text


def test_closing_an_ask_removes_its_event_and_the_others_keep_their_uids(
    client: Client, world: World
) -> None:
    ids = _seed(world)
    url = _feed_url(world, _calendar_token(world))
    before = _rows_icalendar(client.get(url).text)
    world.service.ask_close(world.alpha, ids["day"], "done", actor=Actor.USER)
    world.service.ask_open(
        world.alpha, "Renew the TLS certificate", "2027-01-05", actor=Actor.AGENT
    )
    after = _rows_icalendar(client.get(url).text)
    gone = {row for row in before if row[0] == f"ask-{ids['day']}@{world.alpha}.orbital"}
    assert len(gone) == 1
    assert before - gone <= after
    assert {row[1] for row in after - before} == {"Renew the TLS certificate"}


def test_the_feed_opens_only_with_its_own_token(client: Client, world: World) -> None:
    _seed(world)
    calendar = world.credentials.create("calendar", [world.alpha])
    assert client.get(f"/api/v1/calendar/{world.alpha}/feed.ics").status_code == 400
    unknown = client.get(_feed_url(world, "orb_0000_nope"))
    assert unknown.status_code == 401
    assert "unknown or revoked" in unknown.json()["detail"]
    agent = client.get(_feed_url(world, world.agent))
    assert agent.status_code == 403
    assert "not an agent token" in agent.json()["detail"]
    assert client.get(_feed_url(world, calendar.token, world.beta)).status_code == 404
    # It reads the feed and nothing else: the agent API refuses it.
    refused = client.get(f"/api/v1/projects/{world.alpha}/context", headers=bearer(calendar.token))
    assert refused.status_code == 403
    assert "a calendar token opens only its feed" in refused.json()["detail"]
    world.credentials.revoke(calendar.credential.token_id)
    assert client.get(_feed_url(world, calendar.token)).status_code == 401


def test_orbital_calendar_prints_an_address_that_serves_the_feed(
    client: Client, world: World, store_url: str
) -> None:
    _seed(world)
    runner = CliRunner()
    env = {"ORBITAL_DB": store_url}
    made = runner.invoke(cli, ["calendar", "--project", str(world.alpha_root)], env=env)
    assert made.exit_code == 0, made.output
    address = made.output.strip().splitlines()[-1]
    assert address.startswith(
        f"http://127.0.0.1:8765/api/v1/calendar/{world.alpha}/feed.ics?token="
    )
    served = client.get(address.removeprefix("http://127.0.0.1:8765"))
    assert served.status_code == 200
    printed = runner.invoke(
        cli, ["calendar", "--project", str(world.alpha_root), "--feed"], env=env
    )
    assert printed.exit_code == 0, printed.output
    assert _rows_icalendar(printed.output) == _rows_icalendar(served.text)
