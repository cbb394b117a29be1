"""Litestar application factory: routes call the service; errors become problem details."""

from __future__ import annotations

import msgspec
from litestar import Litestar, get
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin

import orbital
from orbital.service import Orbital


class Health(msgspec.Struct, frozen=True):
    status: str
    version: str
    backend: str
    head: int


def create_app(service: Orbital) -> Litestar:
    """Build the app around one service instance (the composition root owns its lifetime)."""

    @get("/health", summary="Liveness and store reachability", sync_to_thread=False)
    def health() -> Health:
        return Health("ok", orbital.__version__, service.store.backend, service.store.head())

    return Litestar(
        route_handlers=[health],
        openapi_config=OpenAPIConfig(
            title="Orbital",
            version=orbital.__version__,
            description="Event-sourced project memory for AI coding agents.",
            path="/schema",
            render_plugins=[ScalarRenderPlugin()],
        ),
        on_shutdown=[service.close],
    )
