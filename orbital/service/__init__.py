"""The application service: one entry point per use case, each one unit of work.

The CLI and the HTTP app call these and hold no rules themselves.
"""

from orbital.project import Project
from orbital.service._conflicts import ConflictPreview
from orbital.service._context import EventSummary, InitReport, WriteOutcome
from orbital.service._credentials import Audience, Credential, Credentials, IssuedToken
from orbital.service._editor import EditorReport
from orbital.service._history import ConflictCopy, HistoryQuery, Revision
from orbital.service._page_sessions import SESSION_SECONDS, PageSession, PageSessions
from orbital.service._service import AsOf, Orbital

__all__ = [
    "SESSION_SECONDS",
    "AsOf",
    "Audience",
    "ConflictCopy",
    "ConflictPreview",
    "Credential",
    "Credentials",
    "EditorReport",
    "EventSummary",
    "HistoryQuery",
    "InitReport",
    "IssuedToken",
    "Orbital",
    "PageSession",
    "PageSessions",
    "Project",
    "Revision",
    "WriteOutcome",
]
