"""A project's display name (issue 31): what people read and type. The project's id is the
random identity in its committed ``orbital/project-id`` — a folder's name is no id, so two
folders called ``invoicer`` are two projects (told apart by name and short id) and a moved
or renamed folder is still the same one. A project from before names is called by its id."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from orbital.errors import InvalidInput
from orbital.events import Event
from orbital.events.project import ProjectRegistered, ProjectRenamed

#: The longest display name, in characters.
NAME_LIMIT = 100
#: The form of a new project's id: the 32 hex digits ``init`` writes into the id file.
PROJECT_ID = re.compile(r"[0-9a-f]{32}")
#: A name needs a character to read.
_VISIBLE = re.compile(r"\w")


def display_name(text: str) -> str:
    """``text`` as a display name (blanks collapsed, one line, 1 to ``NAME_LIMIT``
    characters with a letter or digit among them); refused otherwise."""
    name = " ".join(text.split())
    if not _VISIBLE.search(name) or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise InvalidInput(f"a project name needs a letter or digit, not {text!r}")
    if len(name) > NAME_LIMIT:
        raise InvalidInput(f"a project name is at most {NAME_LIMIT} characters, not {len(name)}")
    return name


def folder_name(root: str) -> str:
    """The name a project registered in the folder ``root`` starts with: the folder's own
    name (clipped to the limit), or ``project`` for a folder without one."""
    last = root.rstrip("/").rsplit("/", 1)[-1]
    try:
        return display_name(last[:NAME_LIMIT])
    except InvalidInput:
        return "project"


def check_project_id(identity: str) -> str:
    """``identity`` if it has a new project id's form (the committed id file's); refused
    otherwise, so a hand-edited id file never becomes an id in paths and URLs."""
    if not PROJECT_ID.fullmatch(identity):
        raise InvalidInput(
            f"orbital/project-id holds {identity[:40]!r}, not a project id (32 hex digits): "
            "restore it from version control, or delete it to make this folder a new project"
        )
    return identity


def decide_rename(current: str, name: str) -> list[Event]:
    """Rename a project called ``current``; no event when the name is the same."""
    new = display_name(name)
    return [] if new == current else [ProjectRenamed(name=new)]


def fold_name(project_id: str, events: Iterable[Event]) -> str:
    """The display name the project stream's events give (its id when none names it)."""
    name = ""
    for event in events:
        if isinstance(event, ProjectRegistered | ProjectRenamed) and event.name:
            name = event.name
    return name or project_id


def named(names: Mapping[str, str], ref: str) -> str | None:
    """The id of the one project called ``ref`` (case aside) among ``names`` (id -> name);
    None when none is; refused when several are, naming their ids."""
    found = [pid for pid, name in names.items() if name.casefold() == ref.strip().casefold()]
    if len(found) > 1:
        raise InvalidInput(
            f"{len(found)} projects are called {ref!r} (ids {', '.join(found)}): "
            "name one by its id or its folder"
        )
    return found[0] if found else None
