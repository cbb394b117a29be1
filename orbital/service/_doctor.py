"""``orbital doctor``: what keeps Orbital from serving the project in a folder, one problem a
line, each with the command that fixes it.

It looks at what a person cannot see from inside an agent's session: the store the folder's
commands reach (open, its state, its SQLite library, the space left), the folder's project
and checkout (a clone of a project kept in another store; a store this user's record does not
name), each agent's installation (its files present, current and calling this ``orbital``),
the MCP configurations that start ``orbital mcp``, and the state folder (where the hooks log
what they could not do). It only reads: the store is opened as a command would open it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from orbital.errors import OrbitalError
from orbital.project import Project, identity_above, locate, public_url, stores_knowing
from orbital.service._installs import Installs, Target, read_text
from orbital.service._service import Orbital
from orbital.store import has_wal_reset_fix
from orbital.store._db import default_url, plain_sqlite_file

#: Each agent's install targets in a project folder.
AgentTargets = Callable[[Path], Mapping[str, Sequence[Target]]]

Severity = Literal["error", "warning"]

#: Less free space than this on the store's or the state folder's disk is a warning.
LOW_SPACE = 256 * 1024 * 1024
#: The hooks' log lines this recent are shown.
RECENT_LOG = dt.timedelta(days=7)
#: Where an agent's MCP configuration may start ``orbital mcp``, in the project.
MCP_FILES = (".mcp.json", ".cursor/mcp.json")


@dataclass(frozen=True)
class Problem:
    """One thing wrong: how bad, where (``store``, ``project``, ``agent claude-code``,
    ``mcp``, ``state``), what, and the command that fixes it."""

    severity: Severity
    area: str
    problem: str
    fix: str


@dataclass(frozen=True)
class Diagnosis:
    """What the doctor found for a folder: the store it reached and the problems."""

    store: str
    problems: tuple[Problem, ...]

    @property
    def status(self) -> int:
        """The exit status: 0 nothing wrong, 1 warnings only, 2 an error."""
        severities = {p.severity for p in self.problems}
        return 2 if "error" in severities else 1 if severities else 0

    def as_json(self) -> dict[str, object]:
        return {
            "store": self.store,
            "status": self.status,
            "problems": [asdict(p) for p in self.problems],
        }


def diagnose(
    folder: Path,
    db: str | None,
    executable: str,
    agents: AgentTargets,
    installs: Installs,
    state: Path,
) -> Diagnosis:
    """Every problem of the folder ``folder`` on the store ``db`` (None: the default), for
    the ``orbital`` at ``executable``; ``agents``: each agent's install targets in a folder,
    ``installs``: the install records, ``state``: the state folder."""
    folder = folder.expanduser().resolve()
    url = public_url(db or default_url())
    problems: list[Problem] = []
    try:
        service = Orbital.open(db, create=False)
    except OrbitalError as exc:
        fix = exc.hint or "check ORBITAL_DB / --db and that the database server is running"
        problems.append(Problem("error", "store", f"cannot open the store {url}: {exc}", fix))
        project = None
    else:
        with service:
            problems += _store(service)
            project, found = _project(service, folder, url)
            problems += found
    root = folder if project is None else Path(project.root)
    problems += _agents(root, executable, agents(root), installs)
    problems += _mcp(root)
    problems += _state(state)
    return Diagnosis(url, tuple(problems))


def _store(service: Orbital) -> list[Problem]:
    problems: list[Problem] = []
    status = service.store_status()
    if status.state != "ok":
        problems.append(
            Problem("error", "store", status.detail, "free the disk, or restore the store")
        )
    if service.store_backend == "sqlite":
        import pysqlite3.dbapi2 as driver

        if not has_wal_reset_fix(driver.sqlite_version_info):
            problems.append(
                Problem(
                    "error",
                    "store",
                    f"SQLite {driver.sqlite_version} lacks the WAL-reset fix (3.51.3, 3.50.7, "
                    "3.44.6): several processes writing one store may corrupt it",
                    "reinstall Orbital (pip install --force-reinstall orbital-memory) to get "
                    "its own SQLite",
                )
            )
        path = plain_sqlite_file(service.store.url)
        problems += _space("store", path.expanduser().parent) if path else []
    return problems


def _space(area: str, folder: Path) -> list[Problem]:
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return []
    if free >= LOW_SPACE:
        return []
    return [
        Problem(
            "error" if free == 0 else "warning",
            area,
            f"only {free // (1024 * 1024)} MiB free on the disk of {folder}",
            "free some space on that disk",
        )
    ]


def _project(service: Orbital, folder: Path, url: str) -> tuple[Project | None, list[Problem]]:
    identity = identity_above(folder)
    with service.store.reader() as r:
        found = locate(r, folder)
    if found is None and identity is None:
        return None, [
            Problem("warning", "project", f"{folder} is in no Orbital project", "orbital init")
        ]
    if found is None:
        assert identity is not None
        known = [s for s in stores_knowing(identity) if s != url]
        fix = (
            f"ORBITAL_DB={known[0]} orbital init"
            if known
            else "orbital --db <the team's store URL> init (or `orbital init --new-project`)"
        )
        problem = (
            f"{folder} is a checkout of project {identity}, which the store {url} does not know"
        )
        return None, [Problem("error", "project", problem, fix)]
    if isinstance(found, Path):
        problem = f"{found} is a checkout of a project in {url} not registered on this machine"
        return None, [Problem("warning", "project", problem, f"orbital init --project {found}")]
    problems: list[Problem] = []
    recorded = stores_knowing(identity)[:1] if identity else []
    if identity and recorded != [url]:
        names = recorded[0] if recorded else "no store"
        called = service.names.of(found.project_id)
        problems.append(
            Problem(
                "warning",
                "project",
                f"this user's record names {names} for project {called}, not {url}: "
                "an agent started without ORBITAL_DB will not find its memory",
                f"ORBITAL_DB={url} orbital init --project {found.root}",
            )
        )
    unmerged = service.local.unmerged(found)
    if unmerged or service.local.behind(found):
        what = f"changed by hand: {', '.join(unmerged)}" if unmerged else "behind the store"
        problems.append(
            Problem(
                "warning",
                "project",
                f"the memory files at {found.root} are {what}",
                f"orbital sync --project {found.root}",
            )
        )
    return found, problems


def _agents(
    root: Path, executable: str, agents: Mapping[str, Sequence[Target]], records: Installs
) -> list[Problem]:
    """Each installed agent's files: present, and as an install with this ``orbital`` would
    leave them (so current, and calling this executable)."""
    problems: list[Problem] = []
    for agent, targets in agents.items():
        if not records.record_path(agent, root).exists():
            continue
        fix = f"orbital install {agent} --project {root}"
        for target in targets:
            current = read_text(target.path)
            if current is None:
                problem = f"{target.name} is missing"
            elif target.install(current).written == current:
                continue
            elif executable not in current and "orbital" in current:
                problem = f"{target.name} calls another orbital than {executable}"
            else:
                problem = f"{target.name} is not as this Orbital installs it"
            problems.append(Problem("error", f"agent {agent}", problem, fix))
    return problems


def _mcp(root: Path) -> list[Problem]:
    """An MCP configuration in the project whose ``orbital`` server cannot be started."""
    problems: list[Problem] = []
    for name in MCP_FILES:
        text = read_text(root / name)
        if text is None:
            continue
        try:
            servers = json.loads(text).get("mcpServers", {})
        except (ValueError, AttributeError):
            problems.append(Problem("error", "mcp", f"{name} is not a JSON object", f"fix {name}"))
            continue
        for server, config in servers.items() if isinstance(servers, dict) else ():
            command = config.get("command") if isinstance(config, dict) else None
            if not isinstance(command, str) or "orbital" not in Path(command).name:
                continue
            if shutil.which(command) is None:
                problems.append(
                    Problem(
                        "error",
                        "mcp",
                        f"{name}: server {server!r} runs {command}, which is not found",
                        f"put orbital on the PATH, or edit {name}",
                    )
                )
    return problems


def _state(state: Path) -> list[Problem]:
    """The state folder is writable, has room, and what the hooks logged lately."""
    if state.exists() and not os.access(state, os.W_OK | os.X_OK):
        return [
            Problem(
                "error",
                "state",
                f"the state folder {state} is not writable",
                f"chmod u+rwx {state}",
            )
        ]
    problems = _space("state", state if state.exists() else state.parent)
    log = state / "hooks.log"
    recent = [line for line in _lines(log) if _recent(line)]
    if recent:
        problems.append(
            Problem(
                "warning",
                "state",
                f"the hooks logged {len(recent)} problems in 7 days, the last: {recent[-1]}",
                f"read {log}, then remove it",
            )
        )
    return problems


def _lines(log: Path) -> list[str]:
    try:
        return log.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _recent(line: str) -> bool:
    """A line the hooks logged in the last week, not a traceback's."""
    stamp, _, message = line.partition(" ")
    try:
        at = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return False
    fresh = at.tzinfo is not None and dt.datetime.now(dt.UTC) - at < RECENT_LOG
    return fresh and not message.startswith("Traceback")
