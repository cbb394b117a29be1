"""Credentials: only a hash is stored, the audience decides the actor, revocation is at once;
and the `orbital token` commands."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from orbital.cli import cli
from orbital.errors import InvalidInput, UnknownProject
from orbital.events import Actor
from orbital.service import Audience, Orbital
from tests.http.http_helpers import World


def test_create_returns_the_secret_once_and_stores_only_its_hash(world: World) -> None:
    issued = world.credentials.create("agent", [world.alpha], label="ci")
    prefix, token_id, secret = issued.token.split("_", 2)
    assert prefix == "orbital"
    assert token_id == issued.credential.token_id
    assert len(secret) >= 43  # 32 random bytes, URL-safe base64
    engine = sa.create_engine(world.service.store.url)  # the table as stored, beside Orbital
    try:
        with engine.connect() as conn:
            row = conn.execute(
                sa.text("SELECT * FROM credentials WHERE token_id = :t"), {"t": token_id}
            ).one()
            bound = conn.scalars(
                sa.text("SELECT project_id FROM credential_projects WHERE token_id = :t"),
                {"t": token_id},
            ).all()
    finally:
        engine.dispose()
    assert row.secret_sha256 == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(row._mapping) and issued.token not in str(row._mapping)
    assert (row.audience, row.label, row.revoked_at) == ("agent", "ci", None)
    assert bound == [world.alpha]


def test_verify_gives_the_actor_from_the_audience(world: World) -> None:
    agent = world.credentials.verify(world.agent)
    person = world.credentials.verify(world.person)
    assert agent is not None and person is not None
    assert (agent.audience, agent.actor, agent.projects) == (
        Audience.AGENT,
        Actor.AGENT,
        (world.alpha,),
    )
    assert (person.audience, person.actor, person.projects) == (Audience.WORKBENCH, Actor.USER, ())
    assert agent.reaches(world.alpha) and not agent.reaches(world.beta)
    assert person.reaches(world.alpha) and person.reaches(world.beta)


@pytest.mark.parametrize(
    "token",
    ["", "orbital", "orbital_", "orbital__x", "bearer_abc_def", "orbital_000000000000_wrong"],
)
def test_verify_refuses_malformed_and_unknown_tokens(world: World, token: str) -> None:
    assert world.credentials.verify(token) is None


def test_a_wrong_secret_for_a_real_id_is_refused(world: World) -> None:
    token_id = world.agent.split("_")[1]
    assert world.credentials.verify(f"orbital_{token_id}_{'A' * 43}") is None


def test_revoke_is_immediate_idempotent_and_listed(world: World) -> None:
    token_id = world.agent.split("_")[1]
    first = world.credentials.revoke(token_id)
    again = world.credentials.revoke(token_id)
    assert first.revoked_at is not None and again.revoked_at == first.revoked_at
    assert world.credentials.verify(world.agent) is None
    listed = {c.token_id: c for c in world.credentials.list()}
    assert listed[token_id].revoked_at == first.revoked_at
    assert len(listed) == 2


def test_a_revocation_by_another_process_is_seen_by_the_next_verify(world: World) -> None:
    assert world.credentials.verify(world.agent) is not None  # verified and remembered
    assert world.credentials.verify(world.agent) is not None
    other = Orbital.open(world.service.store.url)  # another process's service on the store
    try:
        other.credentials.revoke(world.agent.split("_")[1])
    finally:
        other.close()
    assert world.credentials.verify(world.agent) is None


def test_create_refuses_an_unknown_audience_or_project(world: World) -> None:
    with pytest.raises(InvalidInput, match=r"use 'agent', 'workbench', 'calendar'$"):
        world.credentials.create("admin")
    with pytest.raises(UnknownProject):
        world.credentials.create("agent", ["nope"])
    with pytest.raises(InvalidInput, match="orbital token list"):
        world.credentials.revoke("nope")


@pytest.mark.usefixtures("orbital_db")
def test_token_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORBITAL_NOW", "2026-11-01T09:30:00Z")
    run = CliRunner()
    site = tmp_path / "site"
    site.mkdir()
    assert run.invoke(cli, ["init", "--project", str(site)], obj={}).exit_code == 0
    created = run.invoke(
        cli,
        ["token", "create", "--audience", "agent", "--project", str(site), "--label", "ci"],
        obj={},
    )
    assert created.exit_code == 0, created.output
    lines = created.output.splitlines()
    token = lines[-1]
    token_id = token.split("_")[1]
    assert token.startswith(f"orbital_{token_id}_") and " " not in token
    assert lines[0] == f"token {token_id} (agent; site); shown only now:"

    workbench = run.invoke(cli, ["token", "create", "--audience", "workbench"], obj={})
    assert "(workbench; every project)" in workbench.output

    listed = run.invoke(cli, ["token", "list"], obj={})
    assert listed.exit_code == 0
    assert token_id in listed.output and "ci" in listed.output and "(all)" in listed.output
    assert token.split("_", 2)[2] not in listed.output

    revoked = run.invoke(cli, ["token", "revoke", token_id], obj={})
    assert revoked.output == f"token {token_id} revoked at 2026-11-01 09:30:00 UTC\n"
    assert (
        "2026-11-01T09:30Z  2026-11-01T09:30Z" in run.invoke(cli, ["token", "list"], obj={}).output
    )

    bad = run.invoke(cli, ["token", "create", "--audience", "root"], obj={})
    assert bad.exit_code == 2
    unknown = run.invoke(cli, ["token", "revoke", "nope"], obj={})
    assert unknown.exit_code == 1
    assert unknown.stderr == "error: no token with id 'nope': see `orbital token list`\n"
