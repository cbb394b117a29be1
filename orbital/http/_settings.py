"""What the HTTP app needs to know about where it is served (kept out of the routes)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PORT = 8765
#: Large enough for a memory file at its size limit sent as JSON, small enough to refuse junk.
DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024


def loopback_hosts(port: int, host: str = "127.0.0.1") -> tuple[str, ...]:
    """The ``Host`` values a browser sends for a loopback server on ``port`` (and ``host``)."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    bracketed = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if bracketed not in names and bracketed not in {"0.0.0.0", "[::]"}:
        names.append(bracketed)
    return tuple(f"{name}:{port}" for name in names)


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """``allowed_hosts`` are exact ``Host`` header values (``name:port``, compared without
    case): anything else is refused, which defeats DNS rebinding. ``max_body_bytes`` bounds
    every request body. ``own_process``: the app is all its process serves (``orbital
    serve``), so after starting it may set the process's heap aside from the garbage collector;
    a process that builds many apps (the tests) would keep each one's cycles for good."""

    allowed_hosts: tuple[str, ...] = loopback_hosts(DEFAULT_PORT)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    own_process: bool = False
