"""The application service: one entry point per use case, each one unit of work.

The CLI and the HTTP app call these and hold no rules themselves. The names below load on
first use (PEP 562), so a process that needs only a small module of this package (a hook's
quick path) does not import the store, SQLAlchemy or the tokenizer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orbital.lazy import lazy_names

if TYPE_CHECKING:
    from orbital.project import Project
    from orbital.service._as_of import AsOf
    from orbital.service._codex import CodexHooks
    from orbital.service._conflicts import ConflictPreview
    from orbital.service._context import EventSummary, InitReport, WriteOutcome
    from orbital.service._credentials import Audience, Credential, Credentials, IssuedToken
    from orbital.service._cursor import CursorHooks
    from orbital.service._editor import EditorReport
    from orbital.service._history import ConflictCopy, HistoryQuery, Revision
    from orbital.service._mentions import MentionedFile, referenced_text
    from orbital.service._page_sessions import SESSION_SECONDS, PageSession, PageSessions
    from orbital.service._rescue import rescue
    from orbital.service._service import Orbital
    from orbital.service._setup import AgentSetup, codex_home, cursor_home

_WHERE = {
    "AgentSetup": "orbital.service._setup",
    "CodexHooks": "orbital.service._codex",
    "CursorHooks": "orbital.service._cursor",
    "codex_home": "orbital.service._setup",
    "cursor_home": "orbital.service._setup",
    "SESSION_SECONDS": "orbital.service._page_sessions",
    "AsOf": "orbital.service._as_of",
    "Audience": "orbital.service._credentials",
    "ConflictCopy": "orbital.service._history",
    "ConflictPreview": "orbital.service._conflicts",
    "Credential": "orbital.service._credentials",
    "Credentials": "orbital.service._credentials",
    "EditorReport": "orbital.service._editor",
    "EventSummary": "orbital.service._context",
    "HistoryQuery": "orbital.service._history",
    "InitReport": "orbital.service._context",
    "MentionedFile": "orbital.service._mentions",
    "referenced_text": "orbital.service._mentions",
    "IssuedToken": "orbital.service._credentials",
    "Orbital": "orbital.service._service",
    "PageSession": "orbital.service._page_sessions",
    "PageSessions": "orbital.service._page_sessions",
    "Project": "orbital.project",
    "Revision": "orbital.service._history",
    "rescue": "orbital.service._rescue",
    "WriteOutcome": "orbital.service._context",
}

__all__ = [
    "SESSION_SECONDS",
    "AgentSetup",
    "AsOf",
    "Audience",
    "CodexHooks",
    "ConflictCopy",
    "ConflictPreview",
    "Credential",
    "Credentials",
    "CursorHooks",
    "EditorReport",
    "EventSummary",
    "HistoryQuery",
    "InitReport",
    "IssuedToken",
    "MentionedFile",
    "Orbital",
    "PageSession",
    "PageSessions",
    "Project",
    "Revision",
    "WriteOutcome",
    "codex_home",
    "cursor_home",
    "referenced_text",
    "rescue",
]


__getattr__ = lazy_names(__name__, _WHERE)
