"""The person's purge over HTTP (Workbench token): ``POST /api/v1/workbench/{project}/purge``
does what ``orbital purge`` does, in the server's process (which then holds nothing of the
text either); the service refuses anyone but the person."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from orbital.http._problems import WRITES, documented
from orbital.service import Credential, Orbital, Project


class PurgeRequest(msgspec.Struct, frozen=True):
    """The text to take out (at least 8 characters, not only blanks) and why (kept in the
    audit event)."""

    text: Annotated[str, msgspec.Meta(min_length=8, pattern="[^ \t\r\n]")]
    reason: Annotated[str, msgspec.Meta(pattern="[^ \t\r\n]")]


class PurgeResult(msgspec.Struct, frozen=True):
    """The events changed, the files scrubbed, whether the store's files were compacted
    whole, any hand edit kept aside first, and the entry ids made from the text (never
    rewritten: they keep part of it)."""

    positions: list[int]
    files: list[str]
    compacted: bool
    conflicts: list[str]
    ids: list[str]


@post(
    "/{project:str}/purge",
    summary="Purge a text from the project's history, files and caches (the person only)",
    description="As `orbital purge --text` (README, Purge): replaces the text with [purged] "
    "in every event, stream state and projected "
    "file, deletes snapshots and kept outputs, appends a project.purged audit event (the "
    "text's SHA-256, never the text) and compacts the store. 404 when no event holds it.",
    status_code=200,
    responses=documented(*WRITES),
    sync_to_thread=True,
    operation_id="purge",
)
def purge(
    service: NamedDependency[Orbital],
    caller: NamedDependency[Credential],
    target: NamedDependency[Project],
    data: JSONBody[PurgeRequest],
) -> PurgeResult:
    report = service.purges.purge(
        target.project_id,
        text=data.text,
        reason=data.reason,
        actor=caller.actor,
    )
    return msgspec.convert(report, PurgeResult, from_attributes=True)
