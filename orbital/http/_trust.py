"""Person routes on entries' trust (Workbench token, issue 16): dispute, retract, reaffirm,
and the beliefs listing. The service refuses anyone but the person; these routes only ever
act as the credential's actor."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody, QueryParameter

from orbital.clock import parse_as_of
from orbital.domain.trust import TRUST_ACTIONS, TrustAction
from orbital.http._problems import AUTHED, WRITES, documented
from orbital.http._schemas import AS_OF_SCHEMA, WriteResult
from orbital.service import Credential, Orbital, Project
from projections.beliefs import TRUST_STATES, Belief, parse_day


class TrustReason(msgspec.Struct, frozen=True):
    """Why the person retracts or reaffirms (optional)."""

    reason: str = ""


class DisputeReason(msgspec.Struct, frozen=True):
    """Why the person doubts the entry: required, it is shown beside it."""

    reason: Annotated[str, msgspec.Meta(pattern=r"\S")]


class Beliefs(msgspec.Struct, frozen=True):
    project: str
    entries: list[Belief]


_SUMMARY: dict[TrustAction, str] = {
    "dispute": "Dispute an entry (the person doubts it; the reason shows beside it)",
    "retract": "Retract an entry (it is wrong: out of the view, moved to the archive)",
    "reaffirm": "Reaffirm an entry (held again; a retracted or superseded one comes back)",
}


def _trust_route(action: TrustAction) -> HTTPRouteHandler:
    def trust_action(
        service: NamedDependency[Orbital],
        caller: NamedDependency[Credential],
        target: NamedDependency[Project],
        entry_id: FromPath[str],
        data: JSONBody[TrustReason],
    ) -> WriteResult:
        outcome = service.trust.act(
            target.project_id, entry_id, action, data.reason, actor=caller.actor
        )
        return msgspec.convert(outcome, WriteResult, from_attributes=True)

    def dispute(
        service: NamedDependency[Orbital],
        caller: NamedDependency[Credential],
        target: NamedDependency[Project],
        entry_id: FromPath[str],
        data: JSONBody[DisputeReason],
    ) -> WriteResult:
        outcome = service.trust.act(
            target.project_id, entry_id, action, data.reason, actor=caller.actor
        )
        return msgspec.convert(outcome, WriteResult, from_attributes=True)

    return post(
        f"/{{project:str}}/entries/{{entry_id:str}}/{action}",
        summary=_SUMMARY[action],
        description="A no-op when the entry already stands so; 409 when the rules refuse "
        "it (e.g. disputing a retracted entry); 400 for a dispute without a reason.",
        status_code=200,
        responses=documented(*WRITES),
        sync_to_thread=True,
        name=f"entry-{action}",
        operation_id=f"entry{action.title()}",
    )(dispute if action == "dispute" else trust_action)


@get(
    "/{project:str}/beliefs",
    summary="Durable entries with their trust state: now, as of a time, or in force at a day",
    responses=documented(*AUTHED),
    sync_to_thread=True,
)
def beliefs(
    service: NamedDependency[Orbital],
    target: NamedDependency[Project],
    as_of: Annotated[
        str | None,
        QueryParameter(
            description="What was believed then: a time or @N.", schema_extra=AS_OF_SCHEMA
        ),
    ] = None,
    in_force_at: Annotated[
        str | None,
        QueryParameter(
            description="What was in force on this day, as known now.",
            schema_extra={"anyOf": AS_OF_SCHEMA["anyOf"][:2]},
        ),
    ] = None,
    trust: Annotated[
        list[str] | None,
        QueryParameter(
            name="state",
            description="Only these trust states.",
            schema_extra={"items": {"type": "string", "enum": ["", *TRUST_STATES]}},
        ),
    ] = None,
) -> Beliefs:
    rows = service.trust.beliefs(
        target.project_id,
        tuple(state for state in trust or () if state),  # `state=` (empty): no filter
        as_of=parse_as_of(as_of or None),
        in_force_at=parse_day(in_force_at or None),
    )
    return Beliefs(target.project_id, rows)


def trust_routes() -> list[HTTPRouteHandler]:
    """The routes the Workbench router mounts beside its own."""
    return [*(_trust_route(action) for action in TRUST_ACTIONS), beliefs]
