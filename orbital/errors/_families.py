"""The six families every Orbital error is in, under :class:`OrbitalError` (see
:mod:`orbital.errors`)."""

from __future__ import annotations


class OrbitalError(Exception):
    """Base of every error Orbital raises on purpose; each one is in exactly one family."""

    #: What to run at a shell to get past this error; empty when nothing CLI-specific helps
    #: (a class's, or one error's own when it depends on what happened).
    hint: str = ""


class InvalidInput(OrbitalError):
    """Bad input from a person or an agent (a malformed date, an empty text, a bad name):
    correct it and send it again."""


class NotFound(OrbitalError):
    """The request names something the project does not have."""


class Refused(OrbitalError):
    """A well-formed request that the rules refuse (nothing was changed)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Conflict(OrbitalError):
    """What the request builds on changed meanwhile: read again and repeat."""


class Unavailable(OrbitalError):
    """Something Orbital depends on cannot be used now (the store is busy, the editor's model
    is not configured or did not answer, a transcript cannot be read); the input was fine."""


class Internal(OrbitalError):
    """Orbital's own data or installation is broken; no change to the request helps."""
