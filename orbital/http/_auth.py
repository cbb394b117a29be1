"""Who is calling: the bearer token decides the actor and the projects within reach.

Routes never read an actor from the request body; they get a verified :class:`Credential`
(``caller``) and a :class:`Project` (``target``) that the credential is allowed to see. A
project outside the credential's reach is reported exactly like one that does not exist.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency, Provide
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.params import FromPath

from orbital.errors import UnknownProject
from orbital.service import Audience, Credential, Credentials, Orbital, Project

BEARER_SCHEME = "BearerToken"
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="orbital"'}
_OPENS = {
    Audience.AGENT: "an agent token opens only the agent API (/api/v1/projects/…) and /mcp",
    Audience.WORKBENCH: "a workbench token opens only the Workbench (/api/v1/workbench…)",
    Audience.CALENDAR: "a calendar token opens only its feed (/api/v1/calendar/…/feed.ics)",
}


def _verified(
    connection: ASGIConnection[Any, Any, Any, Any], credentials: Credentials
) -> Credential:
    scheme, _, token = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NotAuthorizedException(
            "this route needs `Authorization: Bearer <token>`; "
            "create a token with `orbital token create --audience agent|workbench`",
            headers=_CHALLENGE,
        )
    credential = credentials.verify(token.strip())
    if credential is None:
        raise NotAuthorizedException(
            "the bearer token is unknown or revoked; create a new one with `orbital token create`",
            headers=_CHALLENGE,
        )
    return credential


#: Where the check leaves, in the request's scope state, the credential it verified and the
#: project it found, so that a request is checked once however many parts ask.
_CALLER, _REACHED = "orbital.caller", "orbital.reached"


def verified_caller(
    connection: ASGIConnection[Any, Any, Any, Any], credentials: Credentials, audience: Audience
) -> Credential:
    """The live credential of ``audience`` the request carries: 401 without one, 403 for a
    credential of the other audience (verified once per request)."""
    state = connection.scope.setdefault("state", {})
    kept: Credential | None = state.get(_CALLER)
    if kept is not None:
        return kept
    credential = _verified(connection, credentials)
    if credential.audience is not audience:
        raise PermissionDeniedException(
            f"this route is for {audience.value} tokens; {_OPENS[credential.audience]}"
        )
    state[_CALLER] = credential
    return credential


def checked_project(
    connection: ASGIConnection[Any, Any, Any, Any],
    service: Orbital,
    audience: Audience,
    project: str,
) -> Project:
    """The credential-and-project check of a project's route, the one every such route makes:
    401 or 403 for the credential (:func:`verified_caller`) before 404 for a project outside
    its reach, reported exactly like one that does not exist."""
    state = connection.scope.setdefault("state", {})
    kept: Project | None = state.get(_REACHED)
    if kept is not None:
        return kept
    caller = verified_caller(connection, service.credentials, audience)
    if not caller.reaches(project):
        raise UnknownProject(project)
    state[_REACHED] = found = service.project_by_id(project)
    return found


def gate(audience: Audience) -> dict[str, Provide]:
    """A router's ``caller`` and ``target`` dependencies for ``audience``'s tokens: the
    credential, and the path's project checked by :func:`checked_project`."""

    def caller(
        request: Request[Any, Any, Any], credentials: NamedDependency[Credentials]
    ) -> Credential:
        return verified_caller(request, credentials, audience)

    def target(
        request: Request[Any, Any, Any],
        project: FromPath[str],
        service: NamedDependency[Orbital],
    ) -> Project:
        return checked_project(request, service, audience, project)

    return {
        "caller": Provide(caller, sync_to_thread=False),
        "target": Provide(target, sync_to_thread=False),
    }


def project_hook(
    service: Orbital, audience: Audience
) -> Callable[[Request[Any, Any, Any]], Awaitable[None]]:
    """A ``before_request`` hook making :func:`checked_project`'s check, for a route that
    needs nothing else from dependencies; the route takes the project with :func:`reached`.

    Litestar resolves the dependencies of one depth in a task group, which for ``target`` and
    those beneath it cost more than the rest of a request answered from memory; a dependency
    of its own still cost a quarter of it. The hook runs where ``target`` does: before the
    route's parameters are read, so a request both unauthorized and malformed is still
    answered 401.
    """

    async def check(request: Request[Any, Any, Any]) -> None:
        checked_project(request, service, audience, request.path_params["project"])

    return check


def reached(request: Request[Any, Any, Any]) -> Project:
    """The project :func:`checked_project` checked for this request."""
    project: Project = request.scope["state"][_REACHED]
    return project
