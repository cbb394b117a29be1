"""Litestar application factory: wires routes, credentials, safety and problem details."""

from __future__ import annotations

import asyncio
import gc
from functools import partial
from pathlib import Path

import msgspec
from litestar import Litestar, Response, get
from litestar.di import NamedDependency, Provide
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins import PluginProtocol
from litestar.plugins.core import MsgspecDIPlugin
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect
from litestar.routes import HTTPRoute
from litestar.static_files import create_static_files_router
from litestar.template import TemplateConfig

import orbital
from orbital.errors import StoreCorrupt
from orbital.http._agent import agent_router
from orbital.http._auth import BEARER_SCHEME
from orbital.http._calendar import calendar_feed
from orbital.http._mcp import mcp_mount
from orbital.http._page import page_router
from orbital.http._problem_types import problem_types_router
from orbital.http._problems import exception_handlers
from orbital.http._safety import CrossSiteGuard, HostAllowlist
from orbital.http._schemas import Health
from orbital.http._sessions import Notices
from orbital.http._settings import HttpSettings
from orbital.http._views import EncodedViews
from orbital.http._workbench import workbench_router
from orbital.service import Orbital

_HERE = Path(__file__).parent


@get(
    "/health",
    summary="Liveness and store reachability",
    sync_to_thread=False,
    responses={503: ResponseSpec(Health, description="The store cannot take writes")},
)
def health(service: NamedDependency[Orbital]) -> Response[Health]:
    """200 while the store is usable: ``ok``, or ``read-only`` or ``disk-full`` (reads work,
    writes are refused; ``detail`` says why); 503 when it is deleted or replaced under the
    server, or found damaged, so a monitor that reads only the status code notices."""
    status = service.store_status()
    ok = status.state not in ("store-gone", "store-corrupt")
    head = service.head() if ok else 0
    body = Health(
        status.state,
        orbital.__version__,
        service.store_backend,
        head,
        status.database,
        status.detail,
    )
    return Response(body, status_code=200 if ok else 503)


@get("/", include_in_schema=False, sync_to_thread=False)
def home() -> Redirect:
    """A person who opens the server's address lands on the Workbench."""
    return Redirect("/workbench", status_code=303)


class _Litestar(Litestar):
    """Litestar without the plugins it adds for libraries merely installed (pydantic and
    attrs, which the MCP SDK brings): no route takes or returns their types, and importing
    pydantic at start was 7 MiB of a server's memory (``bench/serve_memory.py``). The SDK
    imports it when the first ``/mcp`` request comes."""

    @staticmethod
    def _get_default_plugins(plugins: list[PluginProtocol]) -> list[PluginProtocol]:
        return [*plugins, MsgspecDIPlugin()]


async def _warm_threads() -> None:
    """Start the worker thread the synchronous routes run on before the first request."""
    await asyncio.get_running_loop().run_in_executor(None, lambda: None)


def _warm_views(service: Orbital, views: EncodedViews) -> None:
    """Each project's view rendered and encoded before the first request; on a store found
    damaged, as far as the damage allows (a request that meets it gets its problem)."""
    try:
        service.warm()
        views.warm(service)
    except StoreCorrupt:
        pass


def _warm_parameters(app: Litestar) -> None:
    """Have msgspec build each route's parameter models before the first request (Litestar's
    signature models, built on a route's first request otherwise: most of its extra time)."""
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            msgspec.json.Decoder(handler.signature_model)
            for provide in handler.resolve_dependencies().values():
                msgspec.json.Decoder(provide.signature_model)


def _settle_heap() -> None:
    """Collect what starting left behind and set the rest aside from the collector: else the
    first requests pay a collection of the start's objects (1 to 5 ms), and every full one
    later walks the tokenizer's tables and the views again (about 30 ms)."""
    gc.collect()
    gc.freeze()


def create_app(service: Orbital, settings: HttpSettings | None = None) -> Litestar:
    """Build the app around one service instance (the composition root owns its lifetime)."""
    settings = settings or HttpSettings()
    notices = Notices()
    views = EncodedViews()
    mcp, mcp_lifespan = mcp_mount(service, settings)
    app = _Litestar(
        route_handlers=[
            health,
            home,
            agent_router(service, views),
            calendar_feed,
            mcp,
            workbench_router(),
            page_router(),
            create_static_files_router("/workbench/static", [_HERE / "static"]),
            problem_types_router(),
        ],
        dependencies={
            "service": Provide(lambda: service, use_cache=True, sync_to_thread=False),
            "credentials": Provide(
                lambda: service.credentials, use_cache=True, sync_to_thread=False
            ),
            "sessions": Provide(
                lambda: service.page_sessions, use_cache=True, sync_to_thread=False
            ),
            "notices": Provide(lambda: notices, use_cache=True, sync_to_thread=False),
        },
        middleware=[CrossSiteGuard(settings.allowed_hosts)],
        template_config=TemplateConfig(directory=_HERE / "templates", engine=JinjaTemplateEngine),
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
        lifespan=[mcp_lifespan],
        on_startup=[
            partial(_warm_views, service, views),
            _warm_parameters,
            _warm_threads,
            *([_settle_heap] if settings.own_process else []),
        ],
        on_shutdown=[service.close],
    )
    # Outside routing, so a path no route matches is refused for a foreign Host too.
    app.asgi_handler = HostAllowlist(app.asgi_handler, settings.allowed_hosts)
    return app
