"""``GET /api/v1/calendar/{project}/feed.ics?token=…``: a project's calendar feed.

A calendar app subscribes to a URL and sends no ``Authorization`` header, so the feed's token
rides in the URL. It is a credential of its own audience (``calendar``: ``orbital calendar``
makes one), which opens this route alone and cannot write; a token of another audience is
refused here, as a calendar token is everywhere else.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.params import FromPath, QueryParameter

from orbital.errors import UnknownProject
from orbital.http._problems import AUTHED, documented
from orbital.service import Audience, Credentials, Orbital


@get(
    "/api/v1/calendar/{project:str}/feed.ics",
    media_type="text/calendar",
    responses=documented(*AUTHED),
    sync_to_thread=True,
    tags=["calendar"],
    summary="The project's open asks' dues and dated PROJECT_STATE facts as iCalendar",
)
def calendar_feed(
    project: FromPath[str],
    token: Annotated[str, QueryParameter(description="A token from `orbital calendar`.")],
    service: NamedDependency[Orbital],
    credentials: NamedDependency[Credentials],
) -> Response[str]:
    """The feed (RFC 5545): one event per dated line, its UID stable across changes."""
    credential = credentials.verify(token)
    if credential is None:
        raise NotAuthorizedException(
            "the calendar token is unknown or revoked; make a new feed URL with `orbital calendar`"
        )
    if credential.audience is not Audience.CALENDAR:
        raise PermissionDeniedException(
            "this route takes a calendar token (`orbital calendar`), not an "
            f"{credential.audience.value} token: an address a calendar app keeps must not "
            "open anything else"
        )
    if not credential.reaches(project):
        raise UnknownProject(project)
    return Response(service.calendar_feed(project), media_type="text/calendar")
