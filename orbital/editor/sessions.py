"""Reading session transcripts: from a directory (``orbital/sessions/`` or ``--sessions DIR``)
for the editor, or one file an agent's session names (Claude Code's ``transcript_path``).

In a directory, names are checked before any path is built, and the file must resolve inside
the directory, so a model-chosen session name cannot read anything else.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import msgspec

from orbital.domain.quotes import UserWords
from orbital.domain.transcripts import Turn, is_session_name, parse_transcript, user_words
from orbital.errors import InvalidInput, SessionUnreadable

SUFFIX = ".jsonl"


class SessionInfo(msgspec.Struct, frozen=True):
    name: str
    modified: dt.datetime


class SessionDir:
    """The transcripts in one directory, each ``<name>.jsonl``."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def _path(self, name: str) -> Path:
        if not is_session_name(name):
            raise InvalidInput(f"bad session name {name!r}")
        path = self.directory / f"{name}{SUFFIX}"
        if path.exists() and path.resolve().parent != self.directory.resolve():
            raise InvalidInput(f"session {name!r} resolves outside {self.directory}")
        return path

    def sessions(self, limit: int = 30) -> list[SessionInfo]:
        """The sessions, most recently modified first."""
        found: list[SessionInfo] = []
        try:
            candidates = list(self.directory.glob(f"*{SUFFIX}"))
        except OSError:
            return []
        for path in candidates:
            name = path.name[: -len(SUFFIX)]
            if not is_session_name(name):
                continue
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            found.append(SessionInfo(name, dt.datetime.fromtimestamp(mtime, dt.UTC)))
        found.sort(key=lambda s: (s.modified, s.name), reverse=True)
        return found[:limit]

    def turns(self, name: str) -> list[Turn] | None:
        """The turns of session ``name``; None when there is no such session."""
        path = self._path(name)
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                return parse_transcript(handle)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SessionUnreadable(name, str(exc)) from None

    def user_messages(self, name: str) -> list[str]:
        """What the user typed in session ``name`` (empty when it does not exist)."""
        return user_words(self.turns(name) or [])


def transcript_words(path: Path) -> UserWords:
    """What the user typed in the transcript at ``path`` (the caller's own session file,
    given by its client, never chosen by a model). A transcript that cannot be read is
    evidence of nothing, never a failure: no words, and the reason, for the agent's warning."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return UserWords.of(user_words(parse_transcript(handle)))
    except OSError as exc:
        return UserWords(problem=f"{path}: {exc.strerror or exc}")
