"""The application service: one entry point per use case, each one transaction.

The CLI and the HTTP app call these and hold no rules themselves.
"""

from orbital.project import Project
from orbital.service._context import EventSummary, WriteOutcome
from orbital.service._credentials import Audience, Credential, Credentials, IssuedToken
from orbital.service._editor import EditorReport
from orbital.service._service import AsOf, ConflictCopy, HistoryQuery, Orbital, Revision

__all__ = [
    "AsOf",
    "Audience",
    "ConflictCopy",
    "Credential",
    "Credentials",
    "EditorReport",
    "EventSummary",
    "HistoryQuery",
    "IssuedToken",
    "Orbital",
    "Project",
    "Revision",
    "WriteOutcome",
]
