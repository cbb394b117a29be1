"""Property-based requests generated from /schema/openapi.json against a real server, for each
token, valid and invalid (schemathesis's negative mode), with every check that judges one
response: no 5xx; the status code, content type, headers and body are the ones the document
declares; a request the document allows is accepted and one it forbids is refused. Bounded:
a seeded run of a few hundred cases per token over a project holding asks and entries.

Driven through schemathesis's Python API with hypothesis directly (its pytest plugin does not
run on pytest 9)."""

from __future__ import annotations

from typing import Literal

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    missing_required_header,
    negative_data_rejection,
    not_a_server_error,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import SchemathesisConfig
from schemathesis.core.result import Err

from orbital.events import Actor
from tests.http.http_helpers import World, bearer

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    missing_required_header,
]


def _seed_project(world: World) -> dict[str, list[str]]:
    """Asks (with and without a due, open, done and dropped) and entries, so that answers
    carry every shape their schema allows; returns ids to use as path parameters."""
    service, project = world.service, world.alpha
    opened = [
        service.ask_open(project, text, due, actor=Actor.USER).events[0].stream.split(":")[1]
        for text, due in [("Pick a venue", "2026-10-01"), ("Send the deck", None), ("Fly", None)]
    ]
    service.ask_close(project, opened[1], "done", '"sent"', actor=Actor.USER)
    service.ask_close(project, opened[2], "dropped", "", actor=Actor.AGENT)
    service.write_file(
        project,
        "DECISIONS.md",
        b"## use-postgres\nChose: PostgreSQL\n\n## use-tabs\nChose: tabs\n",
        actor=Actor.AGENT,
    )
    service.write_file(
        project,
        "PROJECT_STATE.md",
        b"- Focus on the API\n- [due:2026-12-24] Ship\n",
        actor=Actor.AGENT,
    )
    return {"ask_id": opened, "entry_id": ["use-postgres", "use-tabs"]}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("token", ["agent", "workbench"])
def test_generated_requests_conform_to_the_document(
    server: str, world: World, token: Literal["agent", "workbench"]
) -> None:
    ids = _seed_project(world)
    config = SchemathesisConfig()
    # The token is sent with every request (so no case may be "negative" by leaving it out),
    # and unknown query parameters are ignored, as HTTP APIs do (OpenAPI cannot forbid them).
    config.projects.default.generation.update(
        with_security_parameters=False, allow_extra_parameters=False
    )
    schema = schemathesis.openapi.from_url(f"{server}/schema/openapi.json", config=config)
    operations = []
    for result in schema.get_all_operations():
        if isinstance(result, Err):
            raise result.err()
        operations.append(result.ok())
    assert len(operations) == 35
    person = token == "workbench"
    chosen = [op for op in operations if op.path.startswith("/api/v1/workbench") == person]
    secret = world.person if person else world.agent

    @given(data=st.data())
    @seed(12)
    @settings(
        max_examples=250,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    def check(data: st.DataObject) -> None:
        operation = data.draw(st.sampled_from(chosen))
        mode = data.draw(st.sampled_from([GenerationMode.POSITIVE, GenerationMode.NEGATIVE]))
        case = data.draw(operation.as_strategy(generation_mode=mode))
        if mode is GenerationMode.POSITIVE:
            # Real projects and ids half the time, so requests reach past the 404s.
            for name, values in [("project", [world.alpha]), *ids.items()]:
                if name in (case.path_parameters or {}) and data.draw(st.booleans()):
                    case.path_parameters[name] = data.draw(st.sampled_from(values))
        case.call_and_validate(headers=bearer(secret), checks=CHECKS)

    check()
