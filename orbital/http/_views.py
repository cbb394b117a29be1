"""The injection view as response bytes, encoded once per view and tagged.

The service caches the view per project state and returns the same string while nothing
changed (:meth:`orbital.service.Orbital.context_view`), so the encoded body is kept beside
the string it was made from: the same string object means the same bytes, and its ETag lets
a client that already has them get a 304 without a body.
"""

from __future__ import annotations

import hashlib
import threading

import msgspec

from orbital.http._schemas import ContextView

#: How many encoded views are kept at most (one per project, audience and window).
_KEPT = 256


class EncodedViews:
    """(project, audience, window) -> the last view string, its JSON body and its ETag."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str, int | None], tuple[str, bytes, str]] = {}

    def encoded(
        self, project: str, audience: str, window: int | None, view: str
    ) -> tuple[bytes, str]:
        """The response body of ``view`` and its ETag (a quoted hash of the body)."""
        key = (project, audience, window)
        found = self._kept.get(key)
        if found is not None and found[0] is view:
            return found[1], found[2]
        body = msgspec.json.encode(ContextView(project, audience, view))
        tag = f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'
        with self._lock:
            if len(self._kept) >= _KEPT:
                self._kept.clear()
            self._kept[key] = (view, body, tag)
        return body, tag


def matches(if_none_match: str | None, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (weak or strong, or ``*``)."""
    if if_none_match is None:
        return False
    names = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in names or tag in names
