"""The Workbench page through the test client: sign-in, the session cookie, CSRF, actions."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from orbital.events import Actor
from orbital.http import _page_lists
from tests.http.http_helpers import Client, World, asks_md, bearer

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found is not None, html
    return found.group(1)


def sign_in(client: Client, token: str) -> Any:
    form = client.get("/workbench/login")
    assert form.status_code == 200
    return client.post(
        "/workbench/login",
        data={"token": token, "csrf": csrf_of(form.text)},
        follow_redirects=False,
    )


@pytest.fixture
def signed_in(client: Client, world: World) -> str:
    """Signs the client in as the person; returns the page's CSRF token."""
    assert sign_in(client, world.person).status_code == 303
    page = client.get("/workbench")
    assert page.status_code == 200
    return csrf_of(page.text)


def act(client: Client, path: str, **form: str) -> Any:
    return client.post(f"/workbench/{path}", data=form, follow_redirects=False)


def test_the_page_needs_a_session_and_sign_in_sets_a_strict_http_only_cookie(
    client: Client, world: World
) -> None:
    first = client.get("/workbench", follow_redirects=False)
    assert (first.status_code, first.headers["location"]) == (303, "/workbench/login")
    assert client.get("/", follow_redirects=False).headers["location"] == "/workbench"
    signed = sign_in(client, world.person)
    assert (signed.status_code, signed.headers["location"]) == (303, "/workbench")
    cookie = next(
        c for c in signed.headers.get_list("set-cookie") if c.startswith("orbital_session=")
    )
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Path=/workbench" in cookie
    assert world.person not in cookie
    page = client.get("/workbench")
    assert page.status_code == 200
    assert "Signed in as <strong>me</strong>" in page.text
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "same-origin"  # no-referrer makes Origin null
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("token", "status", "message"),
    [
        ("orbital_nope_nope", 401, "That token is unknown or revoked."),
        ("", 401, "That token is unknown or revoked."),
        ("agent", 403, "That is an agent token"),
    ],
)
def test_a_bad_token_is_refused_on_the_sign_in_form(
    client: Client, world: World, token: str, status: int, message: str
) -> None:
    response = sign_in(client, world.agent if token == "agent" else token)
    assert response.status_code == status
    assert message in response.text
    assert "orbital_session" not in response.headers.get("set-cookie", "")


def test_sign_in_without_the_forms_token_is_refused(client: Client, world: World) -> None:
    response = client.post("/workbench/login", data={"token": world.person}, follow_redirects=False)
    assert response.status_code == 403
    assert "The sign-in form expired" in response.text
    assert client.get("/workbench", follow_redirects=False).status_code == 303


def test_a_form_without_or_with_a_wrong_csrf_token_is_403_and_changes_nothing(
    client: Client, world: World, signed_in: str
) -> None:
    world.service.ask_open(world.alpha, "Pick a venue", actor=Actor.AGENT)
    ask_id = world.service.asks(world.alpha)[0].id
    before = asks_md(world)
    for form in ({}, {"csrf": "forged"}, {"csrf": signed_in + "x"}):
        refused = act(client, f"{world.alpha}/asks/{ask_id}/done", **form)
        assert refused.status_code == 403
        assert refused.json()["detail"] == (
            "the form's CSRF token is missing or stale; reload the Workbench page and submit "
            "the form again"
        )
    assert asks_md(world) == before
    assert act(client, "logout").status_code == 403


def test_a_cross_site_form_post_is_refused_even_with_the_token(
    client: Client, world: World, signed_in: str
) -> None:
    refused = client.post(
        "/workbench/asks",
        data={"csrf": signed_in, "project": world.alpha, "text": "Injected"},
        headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
        follow_redirects=False,
    )
    assert refused.status_code == 403
    assert world.service.asks(world.alpha) == []


def test_page_actions_act_as_the_user(client: Client, world: World, signed_in: str) -> None:
    added = act(
        client, "asks", csrf=signed_in, project=world.alpha, text="Pick a venue", due="2026-09-01"
    )
    assert (added.status_code, added.headers["location"]) == (303, "/workbench")
    ask_id = world.service.asks(world.alpha)[0].id
    page = client.get("/workbench").text
    assert f'id="open-{world.alpha}-{ask_id}" class="overdue"' in page
    assert "overdue 18 days" in page
    assert "Opened “Pick a venue” in alpha." in page
    assert "Opened “Pick a venue”" not in client.get("/workbench").text  # shown once
    base = f"{world.alpha}/asks/{ask_id}"
    assert act(client, f"{base}/done", csrf=signed_in).status_code == 303
    assert act(client, f"{base}/reopen", csrf=signed_in, lens=world.alpha).headers["location"] == (
        f"/workbench?project={world.alpha}"
    )
    assert act(client, f"{base}/drop", csrf=signed_in, reason="not needed").status_code == 303
    assert act(client, f"{base}/drop", csrf=signed_in).status_code == 303
    page = client.get("/workbench").text
    assert f"[{ask_id}] is already dropped — nothing changed." in page
    assert f'id="dropped-{world.alpha}-{ask_id}"' in page
    assert asks_md(world).splitlines()[-4:] == [
        f"- open {ask_id} 2026-09-19 due:2026-09-01 Pick a venue",
        f"- done {ask_id} 2026-09-19 by:user",
        f"- reopen {ask_id} 2026-09-19 by:user",
        f"- dropped {ask_id} 2026-09-19 by:user not needed",
    ]


def test_open_asks_are_listed_a_page_at_a_time(
    client: Client, world: World, signed_in: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page lists ``OPEN_SHOWN`` open asks (the oldest first), says how many there are,
    and links the next and previous pages, keeping the lens and the entry search."""
    monkeypatch.setattr(_page_lists, "OPEN_SHOWN", 2)
    texts = [
        "Pick a venue",
        "Book the caterer",
        "Print the badges",
        "Hire a photographer",
        "Rent chairs",
    ]
    for text in texts:
        world.service.ask_open(world.alpha, text, actor=Actor.AGENT)
    ids = [a.id for a in sorted(world.service.asks(world.alpha), key=lambda a: a.seq)]

    def rows(html: str) -> list[str]:
        return re.findall(rf'id="open-{world.alpha}-(\w+)"', html)

    first = client.get("/workbench").text
    assert rows(first) == ids[:2]
    assert "5 open" in first and "1 to 2 of 5" in first
    assert '<a href="/workbench?asks=2#open" rel="next">Next</a>' in first
    assert 'rel="prev"' not in first.split('id="open"')[1].split("</section>")[0]
    second = client.get(f"/workbench?project={world.alpha}&q=venue&asks=2").text
    assert rows(second) == ids[2:4] and "3 to 4 of 5" in second
    narrowed = f"/workbench?project={world.alpha}&amp;q=venue"
    assert f'<a href="{narrowed}#open" rel="prev">Previous</a>' in second
    assert f'<a href="{narrowed}&amp;asks=4#open" rel="next">Next</a>' in second
    last = client.get("/workbench?asks=4").text
    assert rows(last) == ids[4:] and "5 to 5 of 5" in last and 'asks=4#open" rel="next"' not in last
    assert rows(client.get("/workbench?asks=99").text) == ids[4:]  # past the end: the last one


def test_undo_of_an_agent_close_and_mistakes_shown_on_the_page(
    client: Client, world: World, signed_in: str
) -> None:
    world.service.ask_open(world.alpha, "Pick a venue", actor=Actor.AGENT)
    ask_id = world.service.asks(world.alpha)[0].id
    world.service.ask_close(world.alpha, ask_id, "done", '"the rooftop"', actor=Actor.AGENT)
    page = client.get("/workbench").text
    recent = page.split('id="recently-closed"')[1].split('id="done"')[0]
    assert f'id="closed-{world.alpha}-{ask_id}"' in recent
    assert "&#34;the rooftop&#34;" in recent or "&quot;the rooftop&quot;" in recent
    assert act(client, f"{world.alpha}/asks/{ask_id}/reopen", csrf=signed_in).status_code == 303
    assert asks_md(world).splitlines()[-1] == f"- reopen {ask_id} 2026-09-19 by:user"
    assert act(client, f"{world.alpha}/asks/zzzzzz/done", csrf=signed_in).status_code == 303
    assert "no ask with id &#39;zzzzzz&#39;" in client.get("/workbench").text
    hidden = act(client, f"nope/asks/{ask_id}/done", csrf=signed_in)
    assert hidden.status_code == 404


def test_entries_are_shown_with_history_and_pinned_from_the_page(
    client: Client, world: World, signed_in: str
) -> None:
    world.service.write_file(
        world.alpha, "DECISIONS.md", b"## Use Postgres\nChose: PG.\n", actor=Actor.AGENT
    )
    page = client.get("/workbench").text
    assert f'id="entry-{world.alpha}-use-postgres"' in page
    assert "entry.created use-postgres decisions" in page
    pinned = act(client, f"{world.alpha}/entries/use-postgres/pin", csrf=signed_in)
    assert pinned.status_code == 303
    page = client.get("/workbench").text
    assert "use-postgres pinned" in page
    assert '<span class="badge pinned">pinned</span>' in page
    assert "entry.pinned use-postgres" in page
    assert "tag:pinned" in (world.alpha_root / "orbital" / "DECISIONS.md").read_text()
    assert act(client, f"{world.alpha}/entries/use-postgres/nope", csrf=signed_in).status_code in (
        404,
        405,
    )


def test_a_revoked_token_ends_the_session_and_logout_ends_it_too(
    client: Client, world: World, signed_in: str
) -> None:
    assert act(client, "logout", csrf=signed_in).headers["location"] == "/workbench/login"
    assert client.get("/workbench", follow_redirects=False).status_code == 303
    issued = world.credentials.create("workbench", label="short-lived")
    assert sign_in(client, issued.token).status_code == 303
    assert client.get("/workbench").status_code == 200
    world.credentials.revoke(issued.credential.token_id)
    ended = client.get("/workbench", follow_redirects=False)
    assert ended.headers["location"] == "/workbench/login?ended=true"
    assert "Your session ended" in client.get("/workbench/login?ended=true").text


def test_problem_types_are_documented(client: Client) -> None:
    index = client.get("/problems")
    assert index.status_code == 200
    for slug in ("forbidden", "unknown-entry", "refused", "internal-error", "http-error"):
        assert f'id="{slug}"' in index.text
    one = client.get("/problems/unknown-ask")
    assert one.status_code == 200
    assert "six hex digits" in one.text
    assert client.get("/problems/nope").status_code == 404


def test_a_conflict_is_settled_from_the_page(client: Client, world: World, signed_in: str) -> None:
    path = world.alpha_root / "orbital" / "DECISIONS.md"
    world.service.write_file(world.alpha, "DECISIONS.md", b"## A\nx\n", actor=Actor.AGENT)
    opened = path.read_text()
    world.service.write_file(world.alpha, "DECISIONS.md", b"## A\ny\n", actor=Actor.AGENT)
    path.write_text(opened.replace("\nx\n", "\nmine\n"))
    (copy,) = world.service.sync(world.alpha).conflicts
    page = client.get("/workbench").text
    assert f'id="conflict-{copy}"' in page
    assert "Keep mine" in page
    settled = act(client, f"{world.alpha}/conflicts/{copy}/keep-mine", csrf=signed_in)
    assert settled.status_code == 303
    assert "\nmine\n" in path.read_text()
    page = client.get("/workbench").text
    assert "Your edited file was written as your change." in page
    assert f'id="conflict-{copy}"' not in page


def test_a_conflict_shows_what_each_choice_does_and_a_retired_entry_can_be_restored(
    client: Client, world: World, signed_in: str
) -> None:
    service, project = world.service, world.alpha
    disk = world.alpha_root / "orbital" / "DECISIONS.md"
    service.write_file(
        project, "DECISIONS.md", b"## Use Postgres\nChose: PG.\nReason: teams.\n", actor=Actor.AGENT
    )
    opened = disk.read_text()
    revised = opened.replace("teams.", "the team knows it.")
    service.write_file(project, "DECISIONS.md", revised.encode(), actor=Actor.AGENT)
    disk.write_text(opened.replace("teams.", "managed hosting."))
    service.sync(project)
    page = client.get("/workbench").text
    assert "What Keep mine does to DECISIONS.md" in page
    assert "-Reason: the team knows it.\n+Reason: managed hosting.\n" in page
    kept = act(
        client,
        f"{project}/conflicts/{service.conflicts(project)[0].copy}/keep-mine",
        csrf=signed_in,
    )
    assert kept.status_code == 303
    assert "Reason: managed hosting." in disk.read_text()
    service.write_file(
        project,
        "DECISIONS.md",
        disk.read_bytes() + b"\n## Ship on Fridays\nChose: yes.\n",
        actor=Actor.AGENT,
    )
    without = disk.read_bytes().split(b"\n## Ship")[0] + b"\n"
    service.write_file(
        project, "DECISIONS.md", without, actor=Actor.AGENT, remove=["ship-on-fridays"]
    )
    page = client.get(f"/workbench?project={project}").text
    entry = page.split(f'id="entry-{project}-ship-on-fridays"')[1].split("</li>")[0]
    assert '<span class="badge status">retired</span>' in entry
    assert f"/workbench/{project}/entries/ship-on-fridays/restore" in entry
    restored = act(client, f"{project}/entries/ship-on-fridays/restore", csrf=signed_in)
    assert restored.status_code == 303
    assert "## Ship on Fridays" in disk.read_text()


def _entry_html(page: str, project: str, entry_id: str) -> str:
    return page.split(f'id="entry-{project}-{entry_id}"')[1].split("</li>")[0]


def test_trust_badges_and_dispute_retract_reaffirm_from_the_page(
    client: Client, world: World, signed_in: str
) -> None:
    text = b"## Ship on Fridays\nChose: yes.\n\n## Use SQLite\nChose: SQLite.\n"
    world.service.write_file(world.alpha, "DECISIONS.md", text, actor=Actor.AGENT)
    newer = text + b"\n## Use Postgres\nChose: PG.\nSupersedes: use-sqlite since 2026-09-01\n"
    world.service.write_file(world.alpha, "DECISIONS.md", newer, actor=Actor.AGENT)
    decisions = world.alpha_root / "orbital" / "DECISIONS.md"
    page = client.get(f"/workbench?project={world.alpha}").text
    fridays = _entry_html(page, world.alpha, "ship-on-fridays")
    assert '<span class="badge trust held" title="Believed true">held</span>' in fridays
    base = f"/workbench/{world.alpha}/entries/ship-on-fridays"
    assert f'action="{base}/dispute"' in fridays and f'action="{base}/retract"' in fridays
    assert f'action="{base}/reaffirm"' not in fridays  # held already
    sqlite = _entry_html(page, world.alpha, "use-sqlite")
    assert "superseded by use-postgres since 2026-09-01</span>" in sqlite
    assert "/restore" not in sqlite and "/dispute" not in sqlite  # reaffirmed, not restored
    assert f'action="/workbench/{world.alpha}/entries/use-sqlite/reaffirm"' in sqlite

    before, head = decisions.read_bytes(), world.service.head(world.alpha)
    blank = act(client, f"{world.alpha}/entries/ship-on-fridays/dispute", csrf=signed_in)
    assert blank.status_code == 303
    assert "a dispute needs a reason (--reason): it is shown beside the entry" in (
        client.get("/workbench").text
    )
    assert (decisions.read_bytes(), world.service.head(world.alpha)) == (before, head)

    path = f"{world.alpha}/entries/ship-on-fridays"
    assert act(client, f"{path}/dispute", csrf=signed_in, reason="two outages").status_code == 303
    page = client.get(f"/workbench?project={world.alpha}").text
    assert "ship-on-fridays disputed: the agent sees your reason beside it." in page
    fridays = _entry_html(page, world.alpha, "ship-on-fridays")
    assert '<span class="badge trust disputed"' in fridays and "disputed: two outages" in fridays
    assert "[disputed by the person: two outages]" in world.service.context_view(world.alpha)
    assert decisions.read_bytes() == before  # a dispute shows in the view, not the file

    assert act(client, f"{path}/retract", csrf=signed_in, reason="broke prod").status_code == 303
    page = client.get(f"/workbench?project={world.alpha}").text
    fridays = _entry_html(page, world.alpha, "ship-on-fridays")
    assert "retracted: broke prod</span>" in fridays and "/reaffirm" in fridays
    assert "/restore" not in fridays and "/retract" not in fridays
    assert "retracted by the person (broke prod)" in decisions.read_text()
    assert "Chose: yes." not in decisions.read_text()

    assert act(client, f"{path}/reaffirm", csrf=signed_in).status_code == 303
    page = client.get(f"/workbench?project={world.alpha}").text
    assert "ship-on-fridays reaffirmed: held true." in page
    assert "badge trust held" in _entry_html(page, world.alpha, "ship-on-fridays")
    assert "## Ship on Fridays <!--mem id:ship-on-fridays" in decisions.read_text()
    history = world.service.history(world.alpha)
    mine = [(e.type, e.actor) for e in history if e.stream == "entry:ship-on-fridays"]
    assert mine[-5:] == [
        ("entry.disputed", Actor.USER),
        ("entry.retracted", Actor.USER),
        ("entry.archived", Actor.USER),
        ("entry.reaffirmed", Actor.USER),
        ("entry.restored", Actor.USER),
    ]


def test_keep_mine_of_a_line_the_rules_refuse_says_so_not_already_there(
    client: Client, world: World, signed_in: str
) -> None:
    """Issue 27, finding 8: an empty Keep-mine diff because the rules refuse the person's line
    is not "today's file already has your changes"."""
    service, project = world.service, world.alpha
    service.ask_open(project, "Choose the venue", actor=Actor.AGENT)
    (ask,) = service.asks(project)
    service.ask_close(project, ask.id, "dropped", "not needed", actor=Actor.USER)
    disk = world.alpha_root / "orbital" / "ASKS.md"
    disk.write_text(disk.read_text() + "- open Choose the venue\n")
    (copy,) = service.regenerate(project, force=True)
    refusal = (
        f"ASKS.md: not added — the user dropped this as [{ask.id}] on 2026-09-19 (their words: "
        "not needed); never re-propose it. If the user asked for it again, add "
        f'`- reopen {ask.id} "<their words>"`.'
    )
    preview = client.get(
        f"/api/v1/workbench/{project}/conflicts/{copy}/preview", headers=bearer(world.person)
    ).json()
    assert (preview["keep_mine"], preview["keep_mine_warnings"]) == ("", [refusal])
    page = client.get("/workbench").text
    shown = page.split(f'id="conflict-{copy}"')[1].split("</li>\n")[0]
    assert "No change: the rules leave your changes out." in shown
    assert "already has your changes" not in shown
    assert refusal in html.unescape(shown)
