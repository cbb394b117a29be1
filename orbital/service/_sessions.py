"""What Orbital keeps of an agent's sessions between hook processes (stdlib only: the quick
hook paths read it without importing the store).

Per session, the last position seen and the transcript's path are kept in a small JSON file
under the state directory (``ORBITAL_STATE_DIR``, default the user state directory).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import NamedTuple

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def state_dir() -> Path:
    """Where Orbital keeps small per-machine state (hook sessions, install records, logs)."""
    named = os.environ.get("ORBITAL_STATE_DIR", "").strip()
    if named:
        return Path(named)
    import platformdirs

    return Path(platformdirs.user_state_dir("orbital", appauthor=False))


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


class SessionMark(NamedTuple):
    """What Orbital remembers of one agent session: the last position it saw, its
    transcript, the memory files whose held write its file tool has not reported
    writing yet (``pending``), and the entries a prompt's recall pointed it at already."""

    seen: int | None = None
    transcript: str = ""
    pending: tuple[str, ...] = ()
    recalled: tuple[str, ...] = ()


class SessionMarks:
    """The per-session marks, one small file each: ``sessions/<project>/<session>.json``."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or state_dir() / "sessions"

    def path(self, project: str, session: str) -> Path:
        return self.root / _SAFE.sub("_", project) / f"{_SAFE.sub('_', session)}.json"

    def get(self, project: str, session: str) -> SessionMark:
        try:
            data = json.loads(self.path(project, session).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return SessionMark()
        if not isinstance(data, dict):
            return SessionMark()
        seen = data.get("seen")
        return SessionMark(
            seen if isinstance(seen, int) else None,
            str(data.get("transcript", "")),
            _names(data.get("pending")),
            _names(data.get("recalled")),
        )

    def put(self, project: str, session: str, mark: SessionMark) -> None:
        data = {"seen": mark.seen, "transcript": mark.transcript, "pending": list(mark.pending)}
        if mark.recalled:
            data["recalled"] = list(mark.recalled)
        write_atomic(self.path(project, session), json.dumps(data))


def _names(value: object) -> tuple[str, ...]:
    return tuple(n for n in value if isinstance(n, str)) if isinstance(value, list) else ()


#: A tool call running longer than this is taken as ended (its PostToolUse never came):
#: Claude Code's longest Bash timeout is 10 minutes.
TOOL_CALL_MAX_SECONDS = 660.0


class ToolCalls:
    """The agents' tool calls running now, one empty file each: ``tools/<project>/<session>``,
    begun by PreToolUse and ended by PostToolUse (its mtime says when it began). While one
    runs in a project, a memory file changed there is that agent's doing: the watcher and the
    follower leave it to the hook's take-in, which records it as the agent's, in its session,
    and tells the model what was refused."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or state_dir() / "tools"

    def path(self, project: str, session: str) -> Path:
        return self.root / _SAFE.sub("_", project) / _SAFE.sub("_", session or "unknown")

    def begin(self, project: str, session: str) -> None:
        write_atomic(self.path(project, session), "")

    def end(self, project: str, session: str) -> None:
        self.path(project, session).unlink(missing_ok=True)

    def running(self, project: str, now: float) -> bool:
        """Whether a tool call of some session runs in ``project`` at ``now`` (epoch s)."""
        try:
            calls = list(os.scandir(self.root / _SAFE.sub("_", project)))
        except OSError:
            return False
        for call in calls:
            try:
                began = call.stat().st_mtime
            except OSError:
                continue
            if not call.name.startswith(".") and now - began < TOOL_CALL_MAX_SECONDS:
                return True
        return False


#: The sessions whose injections are kept per project (older logs are removed at a session's
#: end): what ``orbital context --cost`` takes its medians over.
KEPT_SESSIONS = 20


class InjectionLog:
    """What the hooks put in each session's context, one JSON line per hook that could:
    ``injected/<project>/<session>.jsonl``, each line ``[kind, text]`` with ``kind`` one of
    ``start`` (the view file the agent loaded and the session start's context), ``turn``
    (a prompt's context, "" when nothing moved) and ``subagent``. The texts are kept, not
    their token counts: counting loads the tokenizer (≈ 0.2 s), which no hook process waits
    for; ``orbital context --cost`` counts them (each text counted once, kept by digest)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or state_dir() / "injected"

    def folder(self, project: str) -> Path:
        return self.root / _SAFE.sub("_", project)

    def add(self, project: str, session: str, kind: str, text: str) -> None:
        """One line appended (a single write: no lock, no rewrite). Bookkeeping never costs
        the hook its answer: a line that cannot be written is left out."""
        path = self.folder(project) / f"{_SAFE.sub('_', session or 'unknown')}.jsonl"
        line = (json.dumps([kind, text], ensure_ascii=False) + "\n").encode()
        try:
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            except FileNotFoundError:
                path.parent.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(descriptor, line)
            finally:
                os.close(descriptor)
        except OSError:
            return

    def _logs(self, project: str) -> list[Path]:
        """The project's session logs, newest first (by their last line's time)."""
        try:
            found = [(p.stat().st_mtime_ns, p) for p in self.folder(project).glob("*.jsonl")]
        except OSError:
            return []
        return [p for _, p in sorted(found, reverse=True)]

    def sessions(self, project: str, last: int = KEPT_SESSIONS) -> list[list[tuple[str, str]]]:
        """The injections of the ``last`` sessions, newest session first, each oldest first
        (a line that does not read back is skipped)."""
        found = []
        for path in self._logs(project)[:last]:
            lines: list[tuple[str, str]] = []
            try:
                raw = path.read_text(encoding="utf-8").splitlines()
            except OSError:
                continue
            for line in raw:
                try:
                    kind, text = json.loads(line)
                except (ValueError, TypeError):
                    continue
                if isinstance(kind, str) and isinstance(text, str):
                    lines.append((kind, text))
            found.append(lines)
        return found

    def prune(self, project: str, keep: int = KEPT_SESSIONS) -> None:
        """Remove the logs of sessions older than the ``keep`` newest."""
        for path in self._logs(project)[keep:]:
            path.unlink(missing_ok=True)
