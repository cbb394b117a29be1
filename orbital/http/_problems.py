"""RFC 9457 problem details: the one place Orbital's errors become HTTP statuses.

Every error response is ``application/problem+json`` with ``type``, ``title``, ``status`` and a
``detail`` a person can act on. Orbital's typed errors carry that text already; framework
errors get ours, so no response leaks a stack trace or an internal path.
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
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
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


#: Orbital error -> (status, type slug, title). Looked up along the exception's MRO.
_ORBITAL: Mapping[type[errors.OrbitalError], tuple[int, str, str]] = {
    errors.UnknownProject: (404, "unknown-project", "Unknown project"),
    errors.UnknownFile: (404, "unknown-file", "Not a memory file"),
    errors.UnknownAsk: (404, "unknown-ask", "Unknown ask"),
    errors.UnknownEntry: (404, "unknown-entry", "Unknown memory entry"),
    errors.UnsafePath: (400, "unsafe-path", "Unsafe file name"),
    errors.TooLarge: (413, "too-large", "Content too large"),
    errors.InvalidEncoding: (400, "invalid-encoding", "Content is not UTF-8"),
    errors.InvalidInput: (400, "invalid-input", "Invalid input"),
    errors.Conflict: (409, "conflict", "Changed meanwhile"),
    errors.StoreLocked: (503, "store-locked", "Store busy"),
    errors.MalformedEvent: (500, "malformed-event", "Stored event unreadable"),
    errors.Refused: (409, "refused", "Refused by the rules"),
    errors.OrbitalError: (400, "bad-request", "Request refused"),
}

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
    found: dict[str, tuple[int | None, str]] = {
        slug: (status, title) for status, slug, title in _ORBITAL.values()
    }
    found |= {slug: (status, title) for status, (slug, title, _) in _HTTP.items()}
    found["http-error"] = (None, "Request failed")
    found["internal-error"] = (HTTP_500_INTERNAL_SERVER_ERROR, "Internal error")
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
    status, slug, title = next(_ORBITAL[c] for c in type(exc).__mro__ if c in _ORBITAL)
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
        if key == "data" and source == "body":  # the body as a whole, e.g. a missing field
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
        HTTP_500_INTERNAL_SERVER_ERROR,
        "internal-error",
        "Internal error",
        "an unexpected error; nothing more is known to the client, the server log has details",
    )


def exception_handlers() -> ExceptionHandlersMap:
    return {
        errors.OrbitalError: _orbital_error,
        HTTPException: _http_error,
        Exception: _unexpected,
    }
