"""The catalogue: the memory files and the stream names, defined here and nowhere else.

Every layer names the same files (key, file name, archive, display name, budget) and the
same streams; one table keeps them from drifting apart. The derived mappings below are views
of :data:`CATALOGUE`, never edited by hand.
"""

from __future__ import annotations

from typing import NamedTuple

#: The directory under a project's root that holds its memory files.
MEMORY_DIR = "orbital"
#: The file in :data:`MEMORY_DIR` holding the project's identity (committed with the
#: repository: every checkout that has it is the same project).
PROJECT_ID_FILE = "project-id"


class Budget(NamedTuple):
    """A file's token budgets: hygiene acts above ``soft``; the view never exceeds ``hard``."""

    soft: int
    hard: int


class MemoryFileSpec(NamedTuple):
    """One memory file: ``key`` names it in events and code, ``name`` on disk."""

    key: str
    name: str
    #: The file's name without ``.md``, as notes and prompts say it.
    display: str
    #: The archive file its entries move to (``None``: the file has no archive).
    archive: str | None = None

    @property
    def archive_key(self) -> str | None:
        return f"{self.key}_archive" if self.archive else None


#: The key of ASKS.md, the append-only log of asks (the ``file`` of its file events).
ASKS_KEY = "asks"
#: The memory files, Layer-1 files first in injection order; ``asks`` is the append-only log.
CATALOGUE: tuple[MemoryFileSpec, ...] = (
    MemoryFileSpec("state", "PROJECT_STATE.md", "PROJECT_STATE", "PROJECT_STATE_ARCHIVE.md"),
    MemoryFileSpec("decisions", "DECISIONS.md", "DECISIONS", "DECISIONS_ARCHIVE.md"),
    MemoryFileSpec("lessons", "LESSONS.md", "LESSONS", "LESSONS_ARCHIVE.md"),
    MemoryFileSpec("index", "INDEX.md", "INDEX"),
    MemoryFileSpec(ASKS_KEY, "ASKS.md", "ASKS"),
)
#: The budgeted (Layer-1) files' floors: the budgets of a large-context model, and the only
#: ones hygiene ever uses (reference §3.2, in its order). Archives and ASKS.md have none.
FILE_BUDGETS: dict[str, Budget] = {
    "decisions": Budget(7000, 9000),
    "lessons": Budget(5000, 6000),
    "state": Budget(1800, 2000),
    "index": Budget(1500, 2000),
}

#: Memory file key -> file name (the files a writer names).
MEMORY_FILES: dict[str, str] = {spec.key: spec.name for spec in CATALOGUE}
#: Live key -> archive file name. INDEX has no archive (it is regenerable; history keeps it).
ARCHIVE_FILES: dict[str, str] = {spec.key: spec.archive for spec in CATALOGUE if spec.archive}
#: Live key -> archive key (``decisions`` -> ``decisions_archive``).
ARCHIVE_OF: dict[str, str] = {spec.key: spec.archive_key for spec in CATALOGUE if spec.archive_key}
#: Every projected file, memory files and archives, by key.
FILE_NAMES: dict[str, str] = {
    **MEMORY_FILES,
    **{ARCHIVE_OF[key]: name for key, name in ARCHIVE_FILES.items()},
}
DISPLAY: dict[str, str] = {spec.key: spec.display for spec in CATALOGUE}
#: Injection order of the budgeted (Layer-1) files.
LAYER1_KEYS: tuple[str, ...] = tuple(spec.key for spec in CATALOGUE if spec.key in FILE_BUDGETS)

#: Characters a workspace context and a project description may hold (Orbi's limits), counted
#: on the text the agent receives: markup and mention markers included.
WORKSPACE_CONTEXT_LIMIT = 4000
DESCRIPTION_LIMIT = 2000
#: The view's budget (tokens) of a workspace's lessons, beside the memory files' own.
WORKSPACE_LESSONS_BUDGET = Budget(3000, 3000)
#: How the view names a workspace's lessons (they are kept in the store, not in a file).
WORKSPACE_LESSONS = "WORKSPACE_LESSONS"

# -- streams ------------------------------------------------------------------------------
#: ``project.registered``.
PROJECT_STREAM = "project"
#: The event on it that sets how much memory the hooks inject (``InjectionSet``'s tag), and
#: the environment variable that names a session's own level (:mod:`orbital.domain.injection`):
#: a hook's first look answers alone only where neither is found (the default, the whole view).
INJECTION_SET = "project.injection_set"
INJECT_VARIABLE = "ORBITAL_INJECT"
#: Ask events about no single ask (refused opens, verbatim lines, replaced bytes).
ASKS_STREAM = "asks"
#: The editor's runs and watermark.
EDITOR_STREAM = "editor"
#: The agent swap: what a session left for the next one, and who took it.
HANDOFF_STREAM = "handoff"
ASK_PREFIX = "ask:"
ENTRY_PREFIX = "entry:"
FILE_PREFIX = "file:"
#: The streams the memory files are folded from: a memory file's text is a function of
#: these alone (what a kept file text is keyed by).
MEMORY_PREFIXES: tuple[str, ...] = (ENTRY_PREFIX, FILE_PREFIX)
MIGRATION_PREFIX = "migration:"
#: The store's owner of every workspace's stream (``workspace:<name>``): a reserved row of the
#: projects registry (migration 0007) that is never listed nor read as a project. A project's
#: id is 32 hex digits (a slug's ``[a-z0-9-]`` before issue 31), so it never collides.
WORKSPACES_OWNER = "_workspaces"
WORKSPACE_PREFIX = "workspace:"


def ask_stream(ask_id: str) -> str:
    return ASK_PREFIX + ask_id


def entry_stream(entry_id: str) -> str:
    return ENTRY_PREFIX + entry_id


def file_stream(key: str) -> str:
    return FILE_PREFIX + key


def migration_stream(source: str) -> str:
    return MIGRATION_PREFIX + source


def workspace_stream(name: str) -> str:
    return WORKSPACE_PREFIX + name


def stream_id(stream: str) -> str:
    """What follows the category: the ask id of ``ask:<id>``, the key of ``file:<key>``."""
    return stream.partition(":")[2]


#: The session a person's change made from the CLI with their Workbench token (``--as-user``)
#: is recorded under, so it is never told as made in the Workbench.
PERSON_CLI_SESSION = "person-cli"
