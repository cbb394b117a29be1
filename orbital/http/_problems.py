"""RFC 9457 problem details: the one place Orbital's errors become HTTP statuses.

Every error response is ``application/problem+json`` with ``type``, ``title``, ``status`` and a
``detail`` a person can act on. Orbital's typed errors carry that text already (their CLI
``hint`` is left out: it names commands an HTTP client cannot run); framework errors get ours,
so no response leaks a stack trace or an internal path.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, SerializationException, ValidationException
from litestar.openapi import ResponseSpec
from litestar.types import ExceptionHandlersMap

from orbital import errors

PROBLEM_JSON = "application/problem+json"
_log = logging.getLogger("orbital.http")


class Problem(msgspec.Struct, frozen=True):
    """An RFC 9457 problem details object."""

    type: str
    title: str
    status: int
    detail: str


#: Family -> (status, type slug, title): the one place an Orbital error gets its HTTP status.
_FAMILIES: Mapping[type[errors.OrbitalError], tuple[int, str, str]] = {
    errors.InvalidInput: (400, "invalid-input", "Invalid input"),
    errors.NotFound: (404, "not-found", "Not found"),
    errors.Refused: (409, "refused", "Refused by the rules"),
    errors.Conflict: (409, "conflict", "Changed meanwhile"),
    errors.Unavailable: (503, "unavailable", "Unavailable"),
    errors.Internal: (500, "internal-error", "Internal error"),
}

#: Error class -> a narrower problem (type slug, title) than its family's; the status stays
#: the family's. Looked up along the exception's MRO.
_REFINED: Mapping[type[errors.OrbitalError], tuple[str, str]] = {
    errors.UnknownProject: ("unknown-project", "Unknown project"),
    errors.UnknownFile: ("unknown-file", "Not a memory file"),
    errors.UnknownAsk: ("unknown-ask", "Unknown ask"),
    errors.UnknownEntry: ("unknown-entry", "Unknown memory entry"),
    errors.UnknownWorkspace: ("unknown-workspace", "Unknown workspace"),
    errors.NoWorkspace: ("unknown-workspace", "Project in no workspace"),
    errors.TextTooLong: ("text-too-long", "Text over its limit"),
    errors.UnsafePath: ("unsafe-path", "Unsafe file name"),
    errors.TooLarge: ("too-large", "Content too large"),
    errors.InvalidEncoding: ("invalid-encoding", "Content is not UTF-8"),
    errors.StoreLocked: ("store-locked", "Store busy"),
    errors.MalformedEvent: ("malformed-event", "Stored event unreadable"),
    errors.StoreGone: ("store-gone", "Store deleted or replaced"),
    errors.StoreUnreachable: ("store-unreachable", "Store unreachable"),
    errors.NoStore: ("no-store", "No store"),
    errors.UnsafeSqlite: ("unsafe-sqlite", "SQLite without the WAL-reset fix"),
    errors.StoreReadOnly: ("store-read-only", "Store read-only"),
    errors.DiskFull: ("disk-full", "Disk full"),
    errors.StoreCorrupt: ("store-corrupt", "Store damaged"),
}


def problem_of(error: type[errors.OrbitalError]) -> tuple[int, str, str]:
    """(status, type slug, title) of an Orbital error class: status from its family, the
    problem type from the nearest refinement, else the family's."""
    status, slug, title = _FAMILIES[errors.family(error)]
    refined = next((_REFINED[c] for c in error.__mro__ if c in _REFINED), (slug, title))
    return (status, *refined)


#: Framework statuses -> (type slug, title, detail when the framework's own says nothing).
_HTTP: Mapping[int, tuple[str, str, str]] = {
    400: ("invalid-request", "Invalid request", "the request could not be read"),
    401: (
        "unauthorized",
        "Credentials needed",
        "send `Authorization: Bearer <token>`; create a token with `orbital token create`",
    ),
    403: ("forbidden", "Forbidden", "this credential or client may not make this request"),
    404: ("not-found", "Not found", "no such route; the API is described at /schema"),
    405: ("method-not-allowed", "Method not allowed", "see /schema for the methods of each route"),
    413: (
        "too-large",
        "Content too large",
        "the request body is over the server's limit; nothing was changed",
    ),
}


def problem_types() -> dict[str, tuple[int | None, str]]:
    """Every problem type this server sends: slug -> (status, or None when it varies; title)."""
    sent: list[tuple[int | None, str, str]] = [
        *(problem_of(error) for error in (*_FAMILIES, *_REFINED)),
        *((status, slug, title) for status, (slug, title, _) in _HTTP.items()),
        (None, "http-error", "Request failed"),
    ]
    found: dict[str, tuple[int | None, str]] = {}
    for status, slug, title in sent:
        known = found.get(slug)
        found[slug] = (status if known is None or known[0] == status else None, title)
    return found


def documented(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problem responses a route can give (replacing Litestar's own
    400 shape, which is not what we send)."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=HTTPStatus(status).phrase,
            generate_examples=False,
        )
        for status in statuses
    }


#: What any route behind a credential may answer besides success.
AUTHED = (400, 401, 403, 404, 503)
#: What a route that writes may answer in addition.
WRITES = (*AUTHED, 409, 413)


def problem_type(slug: str) -> str:
    return f"/problems/{slug}"


def problem_response(
    status: int, slug: str, title: str, detail: str, headers: Mapping[str, str] | None = None
) -> Response[Problem]:
    return Response(
        Problem(problem_type(slug), title, status, detail),
        status_code=status,
        media_type=PROBLEM_JSON,
        headers=dict(headers or {}),
    )


def _orbital_error(_request: Request[Any, Any, Any], exc: errors.OrbitalError) -> Response[Problem]:
    status, slug, title = problem_of(type(exc))
    headers = {"Retry-After": "1"} if isinstance(exc, errors.StoreLocked) else None
    if status >= 500:
        _log.error("%s", exc)
    return problem_response(status, slug, title, str(exc), headers)


def _field_messages(exc: ValidationException) -> str:
    """``body field `due`: Expected `str`, got `int``` for each invalid value."""
    found = exc.extra if isinstance(exc.extra, list) else []
    parts = []
    for item in found:
        if not isinstance(item, dict):
            continue
        message = str(item.get("message", "invalid value"))
        key, source = item.get("key"), item.get("source")
        source = getattr(source, "value", source)  # Litestar gives a ParamType or a string
        if key == "data" and source == "body" and message == "'data'":  # no body at all
            parts.append("a JSON body is required (an object: `{}` at least)")
        elif key == "data" and source == "body":  # the body as a whole, e.g. a missing field
            parts.append(f"body: {message}")
        elif key:
            parts.append(f"{source or 'request'} field `{key}`: {message}")
        else:
            parts.append(message)
    return "; ".join(parts)


def _http_error(_request: Request[Any, Any, Any], exc: HTTPException) -> Response[Problem]:
    status = exc.status_code
    slug, title, fallback = _HTTP.get(status, ("http-error", "Request failed", exc.detail))
    detail = exc.detail
    if isinstance(exc, ValidationException):
        detail = _field_messages(exc) or detail
    elif isinstance(exc.__cause__, SerializationException):
        detail = f"the request body is not valid JSON ({detail}); send a JSON object"
    elif not detail or detail == HTTPStatus(status).phrase:
        detail = fallback
    return problem_response(status, slug, title, detail, exc.headers)


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    _log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem_response(
        *_FAMILIES[errors.Internal],
        "an unexpected error; nothing more is known to the client, the server log has details",
    )


def exception_handlers() -> ExceptionHandlersMap:
    return {
        errors.OrbitalError: _orbital_error,
        HTTPException: _http_error,
        Exception: _unexpected,
    }
