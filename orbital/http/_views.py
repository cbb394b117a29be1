"""The injection view as responses built once per view and tagged.

The service caches the view per project state and returns the same string while nothing
changed (:meth:`orbital.service.Orbital.context_view`), so the responses are kept beside the
string they were made from: the same string object means the same bytes, and its ETag lets a
client that already has them get a 304 without a body. Each kept response is Litestar's ASGI
response already laid out (body encoded, headers in order), so a request for an unchanged view
builds nothing: building them was a third of such a request's time in the app.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
from litestar import Response
from litestar.enums import MediaType
from litestar.response.base import ASGIResponse

from orbital.http._schemas import ContextView
from orbital.service import Orbital

if TYPE_CHECKING:
    from litestar import Litestar, Request
    from litestar.background_tasks import BackgroundTask, BackgroundTasks
    from litestar.datastructures import Cookie
    from litestar.types import TypeEncodersMap

#: How many views are kept at most (one per project, audience and window).
_KEPT = 256


class BuiltResponse(Response[ContextView]):
    """A response whose ASGI response is built once: Litestar asks for it on every request.

    Only what the route itself adds on top (layered headers or cookies, a HEAD) makes a new
    one, as :class:`Response` would.
    """

    __slots__ = ("_built",)

    def __init__(self, body: bytes, status_code: int, headers: dict[str, str]) -> None:
        # The content is ContextView's JSON, encoded once; the annotation is what the
        # document states.
        super().__init__(
            body,  # type: ignore[arg-type]
            status_code=status_code,
            headers=headers,
            media_type=MediaType.JSON,
        )
        self._built = ASGIResponse(
            body=body, status_code=status_code, headers=headers, media_type=MediaType.JSON
        )

    def to_asgi_response(
        self,
        app: Litestar | None,
        request: Request[Any, Any, Any],
        *,
        background: BackgroundTask | BackgroundTasks | None = None,
        cookies: Iterable[Cookie] | None = None,
        encoded_headers: Iterable[tuple[bytes, bytes]] | None = None,
        headers: dict[str, str] | None = None,
        is_head_response: bool = False,
        media_type: MediaType | str | None = None,
        status_code: int | None = None,
        type_encoders: TypeEncodersMap | None = None,
    ) -> ASGIResponse:
        if headers or cookies or encoded_headers or background or is_head_response:
            return super().to_asgi_response(
                app,
                request,
                background=background,
                cookies=cookies,
                encoded_headers=encoded_headers,
                headers=headers,
                is_head_response=is_head_response,
                media_type=media_type,
                status_code=status_code,
                type_encoders=type_encoders,
            )
        return self._built


class _Kept(NamedTuple):
    view: str
    ok: BuiltResponse
    not_modified: BuiltResponse
    tag: str


class EncodedViews:
    """(project, audience, window) -> the last view string and its responses (200 and 304)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str, int | None], _Kept] = {}

    def response(
        self,
        project: str,
        audience: str,
        window: int | None,
        view: str,
        if_none_match: str | None,
    ) -> BuiltResponse:
        """``view``'s response: 304 when ``If-None-Match`` names its ETag (a quoted hash of
        the body), else 200 with the body."""
        key = (project, audience, window)
        found = self._kept.get(key)
        if found is None or found.view is not view:
            found = self._kept_now(key, view)
        return found.not_modified if matches(if_none_match, found.tag) else found.ok

    def warm(self, service: Orbital) -> None:
        """Build the responses of each project's agent view that ``service`` keeps (the one
        :meth:`Orbital.warm` rendered), so a server's first request builds nothing either."""
        for project in service.projects():
            view = service.kept_view(project, window=None, audience="agent")
            if view is not None:
                self.response(project.project_id, "agent", None, view, None)

    def _kept_now(self, key: tuple[str, str, int | None], view: str) -> _Kept:
        body = msgspec.json.encode(ContextView(key[0], key[1], view))
        tag = f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'
        etag = {"ETag": tag}
        kept = _Kept(view, BuiltResponse(body, 200, etag), BuiltResponse(b"", 304, etag), tag)
        with self._lock:
            if len(self._kept) >= _KEPT:
                self._kept.clear()
            self._kept[key] = kept
        return kept


def matches(if_none_match: str | None, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (weak or strong, or ``*``)."""
    if if_none_match is None:
        return False
    names = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in names or tag in names
