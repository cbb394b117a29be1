"""Acting as the person from the command line (``--as-user``): the actor comes from a live
Workbench credential, never from what is typed. The ``ask`` and ``entry`` groups share it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from orbital.catalogue import PERSON_CLI_SESSION
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.service import Audience, Orbital

F = TypeVar("F", bound=Callable[..., object])


def _keep(ctx: click.Context, param: click.Parameter, value: object) -> object:
    ctx.ensure_object(dict)[param.name or ""] = value
    return value


def person_options(group: F) -> F:
    """``--as-user`` and ``--token`` on a group, kept in ``ctx.obj`` for its commands."""
    group = click.option(
        "--token",
        default=None,
        envvar="ORBITAL_TOKEN",
        help="A Workbench token.",
        expose_value=False,
        callback=_keep,
    )(group)
    return click.option(
        "--as-user",
        is_flag=True,
        help="Act as the person: needs their Workbench token in ORBITAL_TOKEN (or --token).",
        expose_value=False,
        callback=_keep,
    )(group)


def caller_actor(ctx: click.Context, service: Orbital, project: str) -> Actor:
    """The agent, unless --as-user and a live Workbench token reaching the project are given:
    the actor comes from the credential, never from what is typed."""
    if not ctx.obj.get("as_user"):
        return Actor.AGENT
    token = ctx.obj.get("token")
    if not token:
        raise InvalidInput("--as-user needs the person's Workbench token in ORBITAL_TOKEN")
    credential = service.credentials.verify(token)
    if credential is None or credential.audience is not Audience.WORKBENCH:
        raise InvalidInput("--as-user needs a live Workbench token; this one is not")
    if not credential.reaches(project):
        raise InvalidInput(f"this Workbench token does not reach project {project!r}")
    return credential.actor


def person_session(actor: Actor, session: str | None = None) -> str | None:
    """The session a change is recorded under: the person's from the CLI is marked as made
    there (:data:`PERSON_CLI_SESSION`), so no one is told it came from the Workbench."""
    return PERSON_CLI_SESSION if actor is Actor.USER else session
