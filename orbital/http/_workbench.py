"""Person routes (Workbench token): the person's view across the projects they reach."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency

from orbital.http._auth import BEARER_SCHEME, person_caller
from orbital.http._schemas import Workbench, WorkbenchProject
from orbital.service import Credential, Orbital


@get("/", summary="The projects this Workbench credential reaches", sync_to_thread=False)
def overview(service: NamedDependency[Orbital], caller: NamedDependency[Credential]) -> Workbench:
    projects = [p for p in service.store.projects() if caller.reaches(p.project_id)]
    return Workbench([WorkbenchProject(p.project_id, p.root, p.timezone) for p in projects])


def workbench_router() -> Router:
    return Router(
        "/api/v1/workbench",
        route_handlers=[overview],
        dependencies={"caller": person_caller},
        security=[{BEARER_SCHEME: []}],
        tags=["workbench"],
    )
