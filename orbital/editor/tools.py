"""The editor's read-only tools: read and grep the memory files, list and read sessions.

Files are read through an injected reader (the service passes the file gateway's, which owns
name matching and containment), so these tools cannot reach past the memory directory. A
tool's failure is an ``Error: …`` result the model can react to, not a failed run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from orbital.domain.transcripts import render_turns
from orbital.editor.sessions import SessionDir
from orbital.errors import InvalidInput, OrbitalError

#: Reads a memory file or archive by name; None when it does not exist.
ReadFile = Callable[[str], str | None]
GREP_MAX_MATCHES = 200


class ReadOnlyTools:
    """The tools behind ``TOOL_SPECS`` (:mod:`orbital.domain.editor.conversation`)."""

    def __init__(self, read_file: ReadFile, file_names: Sequence[str], sessions: SessionDir):
        self._read_file = read_file
        self._file_names = tuple(file_names)
        self._sessions = sessions

    def run(self, name: str, arguments: Mapping[str, object]) -> str:
        """The tool's result text. ``name`` must be one of the read-only tools."""
        try:
            if name == "read":
                return self._read(_arg(arguments, "path"))
            if name == "grep":
                return self._grep(_arg(arguments, "pattern"))
            if name == "list_sessions":
                return self._list_sessions()
            if name == "read_session":
                return self._read_session(_arg(arguments, "session"))
        except (OrbitalError, OSError) as exc:
            return f"Error: {exc}"
        raise ValueError(f"{name!r} is not a read-only tool")

    def _read(self, path: str) -> str:
        text = self._read_file(path.rsplit("/", 1)[-1])
        return f"Error: {path} does not exist" if text is None else text

    def _grep(self, pattern: str) -> str:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            return f"Error: bad pattern: {exc}"
        matches: list[str] = []
        for name in self._file_names:
            text = self._read_file(name) or ""
            for number, line in enumerate(text.splitlines(), start=1):
                if regex.search(line):
                    matches.append(f"{name}:{number}: {line}")
                    if len(matches) >= GREP_MAX_MATCHES:
                        return "\n".join([*matches, f"[stopped at {GREP_MAX_MATCHES} matches]"])
        return "\n".join(matches) or "(no matches)"

    def _list_sessions(self) -> str:
        found = self._sessions.sessions()
        lines = (f"{s.name}  (modified {s.modified:%Y-%m-%d %H:%M} UTC)" for s in found)
        return "\n".join(lines) or "(no sessions)"

    def _read_session(self, session: str) -> str:
        turns = self._sessions.turns(session)
        if turns is None:
            return f"Error: no session named {session!r}"
        return render_turns(turns) or "(empty session)"


def _arg(arguments: Mapping[str, object], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"the argument {key!r} (a non-empty string) is required")
    return value
