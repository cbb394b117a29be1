"""Litestar application factory: wires routes, credentials, safety and problem details."""

from __future__ import annotations

from litestar import Litestar, get
from litestar.di import NamedDependency, Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme

import orbital
from orbital.http._agent import agent_router
from orbital.http._auth import BEARER_SCHEME
from orbital.http._problems import exception_handlers
from orbital.http._safety import LocalhostGuard
from orbital.http._schemas import Health
from orbital.http._settings import HttpSettings
from orbital.http._workbench import workbench_router
from orbital.service import Credentials, Orbital


@get("/health", summary="Liveness and store reachability", sync_to_thread=False)
def health(service: NamedDependency[Orbital]) -> Health:
    return Health("ok", orbital.__version__, service.store.backend, service.store.head())


def create_app(service: Orbital, settings: HttpSettings | None = None) -> Litestar:
    """Build the app around one service instance (the composition root owns its lifetime)."""
    settings = settings or HttpSettings()
    credentials = Credentials(service.store, service.clock)
    return Litestar(
        route_handlers=[health, agent_router(), workbench_router()],
        dependencies={
            "service": Provide(lambda: service, use_cache=True, sync_to_thread=False),
            "credentials": Provide(lambda: credentials, use_cache=True, sync_to_thread=False),
        },
        middleware=[LocalhostGuard(settings.allowed_hosts)],
        exception_handlers=exception_handlers(),
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="Orbital",
            version=orbital.__version__,
            description="Event-sourced project memory for AI coding agents.",
            path="/schema",
            render_plugins=[ScalarRenderPlugin()],
            components=Components(
                security_schemes={
                    BEARER_SCHEME: SecurityScheme(
                        type="http",
                        scheme="bearer",
                        description="A token from `orbital token create`.",
                    )
                }
            ),
        ),
        on_shutdown=[service.close],
    )
