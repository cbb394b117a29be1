"""Export and import of a project's whole log (or a whole store's): the format is
:mod:`orbital.domain.log_file`, the store's reads and writes are the store's; here the use
cases put them together.

An import runs in a checkout of the project (its committed ``orbital/project-id`` says which
project of the file it is), as one write transaction: the project registered with its id,
timezone and registration time (or found, when the store has it already), each event the
store lacks appended with its own id, actor, session and time in the file's order (a new
position each: positions are the store's), then the files written as any unit writes them.
Events the store holds already are skipped, so importing twice (or a file older than the
store's log of the project) changes nothing; a store whose log of the project went another
way than the file's is refused, nothing imported.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from orbital.catalogue import (
    PROJECT_ID_FILE,
    PROJECT_STREAM,
    WORKSPACE_PREFIX,
    WORKSPACES_OWNER,
    stream_id,
    workspace_stream,
)
from orbital.domain.log_file import (
    CredentialLine,
    LoggedEvent,
    ProjectLine,
    compressed,
    decode_log,
    encode_lines,
    with_positions,
)
from orbital.domain.projects import fold_name
from orbital.domain.workspaces import decide_join
from orbital.errors import Refused
from orbital.events import Actor, Event
from orbital.events.project import ProjectWorkspaceChanged
from orbital.project import Project, identity_in
from orbital.service._checkouts import register
from orbital.service._search import catch_up
from orbital.service._unit import Units
from orbital.store import Reader, Writer

#: The tables an import fills in bulk (their statistics refreshed after it).
IMPORTED_TABLES = (
    "events",
    "streams",
    "heads",
    "snapshots",
    "search_docs",
    "search_positions",
    "stream_keys",
)


@dataclass
class ImportReport:
    project: Project
    #: Events appended (0: the store had them all).
    imported: int
    #: Events of the file the store had already.
    present: int
    #: Credentials of the file added here without their tokens (which never travel): each
    #: listed, no token verifies against it; the person makes new ones.
    credentials: tuple[CredentialLine, ...]
    warnings: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def _workspaces(events: Iterable[Event]) -> list[str]:
    """The streams of the workspaces a project was ever in, by its own notices."""
    names = {e.workspace for e in events if isinstance(e, ProjectWorkspaceChanged)}
    return sorted(workspace_stream(name) for name in names)


def _project_line(r: Reader, project: Project) -> ProjectLine:
    pid = project.project_id
    return ProjectLine(
        id=pid,
        identity=r.identity(pid) or "",
        timezone=project.timezone,
        registered_at=project.registered_at,
    )


class LogFiles:
    """The export and import use cases."""

    def __init__(self, units: Units) -> None:
        self.units = units
        self.store = units.ctx.store

    def export(self, project: str | None) -> Iterator[bytes]:
        """The gzip bytes of one project's log and the workspaces it was in (``None``:
        every project's, and every workspace's), streamed from one read transaction."""
        with self.store.reader() as r:
            if project is None:
                chosen, scope = r.projects(), "store"
            else:
                chosen, scope = [self.store.project(project)], "project"
            ids = [p.project_id for p in chosen]
            credentials = [
                CredentialLine(
                    token_id=c.token_id,
                    audience=c.audience,
                    label=c.label,
                    created_at=c.created_at,
                    revoked_at=c.revoked_at,
                    # the projects it reaches among those exported (all: the store's)
                    projects=tuple(p for p in c.projects if p in ids),
                )
                for c in r.credentials()
                if scope == "store" or not c.projects or set(c.projects) & set(ids)
            ]
            if scope == "store":
                owned = {WORKSPACES_OWNER: r.stream_names(WORKSPACES_OWNER, "")}
            else:
                notices = [e.event for e in r.read_stream(ids[0], PROJECT_STREAM)]
                owned = {WORKSPACES_OWNER: _workspaces(notices)}
            lines = encode_lines(
                scope, [_project_line(r, p) for p in chosen], credentials, r.read_log(ids, owned)
            )
            yield from compressed(lines)

    def import_log(self, root: Path, chunks: Iterable[bytes]) -> ImportReport:
        """Import the project checked out at ``root`` from an exported file's bytes."""
        log = decode_log(chunks)
        path = root.expanduser().resolve()
        identity = identity_in(path)
        if identity is None:
            raise Refused(
                f"{path} has no orbital/{PROJECT_ID_FILE}: run `orbital import` in a checkout "
                "of the project (its committed orbital/project-id says which project it is)"
            )
        line = next((p for p in log.projects if p.identity == identity), None)
        if line is None:
            held = ", ".join(p.id for p in log.projects) or "none"
            raise Refused(
                f"the log file holds no project with the identity in {path}/orbital/"
                f"{PROJECT_ID_FILE} ({identity}); it holds: {held}. Nothing was imported"
            )
        streams = _workspaces(e.event for e in log.events if e.project == line.id)
        numbered = [
            (number, e)
            for number, e in enumerate(log.events, start=1)
            if e.project == line.id or (e.project == WORKSPACES_OWNER and e.stream in streams)
        ]
        with self.store.writing() as w:
            project = self._registered(w, path, line)
            report = self._append(w, project, line.id, numbered, streams)
            pid = project.project_id  # its name, as the events it has now give it
            w.set_name(pid, fold_name(pid, (e.event for e in w.read_stream(pid, PROJECT_STREAM))))
            report.credentials = tuple(
                c
                for c in log.credentials
                if w.carry_credential(
                    c.token_id,
                    c.audience,
                    c.projects,
                    label=c.label,
                    created_at=c.created_at,
                    revoked_at=c.revoked_at,
                )
            )
            with self.units.over(w, project, Actor.SYSTEM) as u:
                u.sync_memory(create=True)
                u.sync_asks()
            w.drop_search(project.project_id)  # rebuilt from the log as it now stands
            catch_up(w, project.project_id)
        self.store.pin(project)
        self.store.analyze(IMPORTED_TABLES)
        report.warnings += u.warnings
        report.conflicts += u.conflicts
        return report

    @staticmethod
    def _registered(w: Writer, path: Path, line: ProjectLine) -> Project:
        """The checkout at ``path``: of the project when the store has it, else the file's
        project registered here."""
        if w.checkout_at(path) is not None or w.project_with_identity(line.identity):
            return register(w, path, "")
        return w.register_imported(
            path,
            project_id=line.id,
            identity=line.identity,
            timezone=line.timezone,
            registered_at=line.registered_at,
        )

    def _append(
        self,
        w: Writer,
        project: Project,
        filed_as: str,
        numbered: Sequence[tuple[int, LoggedEvent]],
        streams: Sequence[str],
    ) -> ImportReport:
        pid = project.project_id
        present = w.event_ids(pid)
        mine = [e.event_id for _, e in numbered if e.project == filed_as]
        held = list(present)
        if held[: len(mine)] != mine[: len(held)]:  # neither log is the start of the other
            raise Refused(
                f"this store's log of project {pid} holds events the file does not (or in "
                "another order): the two have each moved on since the export, or the project "
                "was registered here anew. Nothing was imported"
            )
        shared = w.event_ids(WORKSPACES_OWNER, streams)
        report = ImportReport(project, 0, 0, ())
        skipped = self._diverged(w, numbered, report)
        lines: list[int] = []
        positions: list[int] = []

        def position_of(number: int) -> int:
            """The new position of event line ``number`` (or of the last line before it)."""
            at = bisect.bisect_right(lines, number)
            return positions[at - 1] if at else 0

        with w.appending_logged() as log:
            for number, e in numbered:
                own = e.project == filed_as
                found = present.get(e.event_id) if own else shared.get(e.event_id)
                if found is None and e.stream not in skipped:
                    found = log.append(
                        pid if own else WORKSPACES_OWNER,
                        e.stream,
                        with_positions(e.event, position_of),
                        actor=e.actor,
                        session=e.session,
                        event_id=e.event_id,
                        recorded_at=e.recorded_at,
                    )
                    report.imported += 1
                elif found is not None:
                    report.present += 1
                if found is not None:
                    lines.append(number)
                    positions.append(found)
        for stream in sorted(skipped):  # the project joins this store's workspace instead
            states = w.states(WORKSPACES_OWNER, WORKSPACE_PREFIX).values()
            known = {state.name: state for state in states if state is not None}
            joined = decide_join(known, pid, stream_id(stream))
            if joined:
                w.append(
                    WORKSPACES_OWNER, stream, joined, expected_version=None, actor=Actor.SYSTEM
                )
        return report

    @staticmethod
    def _diverged(
        w: Writer,
        numbered: Sequence[tuple[int, LoggedEvent]],
        report: ImportReport,
    ) -> set[str]:
        """The workspace streams this store has with another history: left as they are."""
        skipped: set[str] = set()
        for stream in sorted({e.stream for _, e in numbered if e.project == WORKSPACES_OWNER}):
            filed = [e.event_id for _, e in numbered if e.stream == stream]
            held = list(w.event_ids(WORKSPACES_OWNER, [stream]))
            if held and held != filed[: len(held)] and filed != held[: len(filed)]:
                skipped.add(stream)
                report.warnings.append(
                    f"this store has a workspace {stream_id(stream)} of its own: the file's "
                    "history of it was not imported, and the project joined this store's"
                )
        return skipped
