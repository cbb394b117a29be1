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


def verified_caller(
    connection: ASGIConnection[Any, Any, Any, Any], credentials: Credentials, audience: Audience
) -> Credential:
    """The live credential of ``audience`` the request carries: 401 without one, 403 for a
    credential of the other audience."""
    credential = _verified(connection, credentials)
    if credential.audience is not audience:
        raise PermissionDeniedException(
            f"this route is for {audience.value} tokens; {_OPENS[credential.audience]}"
        )
    return credential


def _caller_for(audience: Audience) -> Provide:
    def caller(
        request: Request[Any, Any, Any], credentials: NamedDependency[Credentials]
    ) -> Credential:
        return verified_caller(request, credentials, audience)

    return Provide(caller, sync_to_thread=False)


agent_caller = _caller_for(Audience.AGENT)
person_caller = _caller_for(Audience.WORKBENCH)


def _target(
    project: FromPath[str],
    caller: NamedDependency[Credential],
    service: NamedDependency[Orbital],
) -> Project:
    if not caller.reaches(project):
        raise UnknownProject(project)
    return service.project_by_id(project)


target_project = Provide(_target, sync_to_thread=False)


#: Where :func:`agent_reach` leaves the project for the route (the request's scope state).
_REACHED = "orbital.reached"


def agent_reach(service: Orbital) -> Callable[[Request[Any, Any, Any]], Awaitable[None]]:
    """A ``before_request`` hook making ``target``'s checks, for an agent route that needs
    nothing else from dependencies; the route takes the project with :func:`reached`.

    Litestar resolves the dependencies of one depth in a task group, which for ``target`` and
    the three beneath it (service, credentials, caller) cost more than the rest of a request
    answered from memory; a dependency of its own still cost a quarter of it. The hook runs
    where ``target`` did: before the route's parameters are read, so a request both
    unauthorized and malformed is still answered 401.
    """

    async def reach(request: Request[Any, Any, Any]) -> None:
        caller = verified_caller(request, service.credentials, Audience.AGENT)
        project = _target(request.path_params["project"], caller, service)
        request.scope["state"][_REACHED] = project

    return reach


def reached(request: Request[Any, Any, Any]) -> Project:
    """The project :func:`agent_reach` checked for this request."""
    project: Project = request.scope["state"][_REACHED]
    return project
