"""Property-based requests generated from /schema/openapi.json against a real server: no
generated request, valid or not, may produce a 5xx. Bounded: a few dozen cases per route.

Driven through schemathesis's Python API with hypothesis directly (its pytest plugin does not
run on pytest 9)."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Err

from tests.http.http_helpers import World, bearer


@pytest.mark.timeout(120)
def test_no_generated_request_is_a_server_error(server: str, world: World) -> None:
    schema = schemathesis.openapi.from_url(f"{server}/schema/openapi.json")
    operations = []
    for result in schema.get_all_operations():
        if isinstance(result, Err):
            raise result.err()
        operations.append(result.ok())
    assert len(operations) == 18

    @given(data=st.data())
    @settings(
        max_examples=200,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def check(data: st.DataObject) -> None:
        operation = data.draw(st.sampled_from(operations))
        case = data.draw(operation.as_strategy())
        if "project" in (case.path_parameters or {}) and data.draw(st.booleans()):
            case.path_parameters["project"] = world.alpha
        token = world.person if case.path.startswith("/api/v1/workbench") else world.agent
        case.call_and_validate(headers=bearer(token), checks=[not_a_server_error])

    check()
