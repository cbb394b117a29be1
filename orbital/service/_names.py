"""Projects' display names (issue 31): what every list shows and a person may change. The id
is the committed identity and never changes; the name is the project stream's (its
``project.registered``, then each ``project.renamed``), kept on the project's row in the
append's transaction."""

from __future__ import annotations

from orbital.catalogue import PROJECT_STREAM
from orbital.domain.projects import decide_rename, fold_name
from orbital.events import Actor
from orbital.store import EventStore
from projections.workbench import project_labels


class ProjectNames:
    """The names of a store's projects, and their renames."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def all(self) -> dict[str, str]:
        """Every project's id -> its display name."""
        with self.store.reader() as r:
            return r.names()

    def of(self, project: str) -> str:
        """The display name of ``project`` (by id)."""
        pid = self.store.project(project).project_id
        return self.all()[pid]

    def labels(self, projects: list[str] | None = None) -> dict[str, str]:
        """How a list of ``projects`` (default: all) tells them apart: each one's name, with
        its short id where two share a name (:func:`projections.workbench.project_labels`)."""
        names = self.all()
        chosen = names if projects is None else {p: names[p] for p in projects if p in names}
        return project_labels(chosen)

    def rename(self, project: str, name: str, *, actor: Actor) -> bool:
        """Call ``project`` ``name`` (a ``project.renamed`` event); False when it already is."""
        pid = self.store.project(project).project_id
        with self.store.writing() as w:
            current = fold_name(pid, (e.event for e in w.read_stream(pid, PROJECT_STREAM)))
            events = decide_rename(current, name)
            if not events:
                return False
            w.append(pid, PROJECT_STREAM, events, expected_version=None, actor=actor)
            w.set_name(pid, fold_name(current, events))
        return True
