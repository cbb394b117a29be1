"""What Orbital keeps of an agent's sessions between hook processes (stdlib only: the quick
hook paths read it without importing the store).

Per session, the last position seen and the transcript's path are kept in a small JSON file
under the state directory (``ORBITAL_STATE_DIR``, default the user state directory).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

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


@dataclass
class SessionMark:
    """What Orbital remembers of one agent session."""

    seen: int | None = None
    transcript: str = ""


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
        seen = data.get("seen") if isinstance(data, dict) else None
        transcript = data.get("transcript", "") if isinstance(data, dict) else ""
        return SessionMark(seen if isinstance(seen, int) else None, str(transcript))

    def put(self, project: str, session: str, mark: SessionMark) -> None:
        text = json.dumps({"seen": mark.seen, "transcript": mark.transcript})
        write_atomic(self.path(project, session), text)
