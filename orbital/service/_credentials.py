"""HTTP credentials: bearer tokens that decide who is acting and which projects they reach.

A token is ``orbital_<id>_<secret>``. The id is public (listing, revoking); only the SHA-256
of the secret is stored, so the token is shown once, at creation. The secret carries 256 bits
of randomness, which makes a plain hash enough (no slow KDF needed). The actor comes from the
credential's audience, never from what a request says about itself (DESIGN.md §4).
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from orbital.clock import Clock
from orbital.errors import InvalidInput
from orbital.events import Actor
from orbital.store import EventStore, StoredCredential

TOKEN_PREFIX = "orbital"
#: A well-formed token no credential has (ids are hex): verifying it prepares the lookup.
WARM_TOKEN = f"{TOKEN_PREFIX}_warm_up"
_ID_BYTES = 6
_SECRET_BYTES = 32
#: Compared against when a token id is unknown, so a miss costs the same as a wrong secret.
_DUMMY_HASH = hashlib.sha256(b"no such credential").hexdigest()


class Audience(enum.StrEnum):
    """Which surface a credential opens: the agent API or the person's Workbench."""

    AGENT = "agent"
    WORKBENCH = "workbench"
    #: Read-only: one project's calendar feed, the token in its URL (a calendar app sends no
    #: header), so it opens nothing else.
    CALENDAR = "calendar"


@dataclass(frozen=True, slots=True)
class Credential:
    token_id: str
    audience: Audience
    #: The projects this credential reaches; empty means every project.
    projects: tuple[str, ...]
    label: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None

    @property
    def actor(self) -> Actor:
        """Who acts with this credential: the Workbench credential is the person's."""
        return Actor.USER if self.audience is Audience.WORKBENCH else Actor.AGENT

    def reaches(self, project: str) -> bool:
        return not self.projects or project in self.projects


@dataclass(frozen=True, slots=True)
class IssuedToken:
    credential: Credential
    #: The bearer token; not stored anywhere, so this is the only time it can be shown.
    token: str


#: How many verified tokens are remembered at most.
_VERIFIED_KEPT = 256


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _credential(stored: StoredCredential) -> Credential:
    return Credential(
        token_id=stored.token_id,
        audience=Audience(stored.audience),
        projects=stored.projects,
        label=stored.label,
        created_at=stored.created_at,
        revoked_at=stored.revoked_at,
    )


class Credentials:
    """Create, verify, revoke and list credentials in the store beside the event log."""

    def __init__(self, store: EventStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        #: Tokens verified live, with the store's commit count then: nothing committed
        #: since (no revocation either) means the same answer without a query.
        self._verified: dict[str, tuple[int, Credential]] = {}

    def create(
        self, audience: str, projects: Iterable[str] = (), *, label: str = ""
    ) -> IssuedToken:
        """A new credential; the returned token is the only copy of its secret."""
        try:
            kind = Audience(audience)
        except ValueError:
            raise InvalidInput(
                f"unknown audience {audience!r}: use " + ", ".join(repr(a.value) for a in Audience)
            ) from None
        bound = tuple(dict.fromkeys(projects))
        token_id = secrets.token_hex(_ID_BYTES)
        secret = secrets.token_urlsafe(_SECRET_BYTES)
        now = self._clock.now()
        with self._store.writing() as w:
            for project in bound:
                w.project(project)  # raises UnknownProject
            w.add_credential(
                token_id, _hash(secret), kind.value, bound, label=label, created_at=now
            )
        credential = Credential(token_id, kind, bound, label, now.astimezone(dt.UTC), None)
        return IssuedToken(credential, f"{TOKEN_PREFIX}_{token_id}_{secret}")

    def verify(self, token: str) -> Credential | None:
        """The live credential for ``token``; None when it is malformed, unknown or revoked."""
        prefix, _, rest = token.partition("_")
        token_id, _, secret = rest.partition("_")
        if prefix != TOKEN_PREFIX or not token_id or not secret:
            return None
        changes = self._store.changes()
        known = self._verified.get(token)
        if known is not None and changes is not None and known[0] == changes:
            return known[1]
        with self._store.reader() as r:
            stored = r.credential(token_id)
        expected = stored.secret_sha256 if stored is not None else _DUMMY_HASH
        matches = hmac.compare_digest(expected, _hash(secret))
        if stored is None or not matches or stored.revoked_at is not None:
            return None
        credential = _credential(stored)
        if changes is not None:
            if len(self._verified) >= _VERIFIED_KEPT:
                self._verified.clear()
            self._verified[token] = (changes, credential)
        return credential

    def by_id(self, token_id: str) -> Credential | None:
        """The live credential with this id (what a page session was opened with); None
        when unknown or revoked."""
        with self._store.reader() as r:
            stored = r.credential(token_id)
        return None if stored is None or stored.revoked_at is not None else _credential(stored)

    def revoke(self, token_id: str) -> Credential:
        """Revoke at once, ending the Workbench page sessions opened with it (idempotent:
        revoking twice keeps the first time)."""
        with self._store.writing() as w:
            stored = w.credential(token_id)
            if stored is None:
                raise InvalidInput(f"no token with id {token_id!r}: see `orbital token list`")
            w.end_page_sessions(token_id=token_id)
            if stored.revoked_at is None:
                w.revoke_credential(token_id, self._clock.now())
                stored = w.credential(token_id)
                assert stored is not None
            return _credential(stored)

    def list(self) -> list[Credential]:
        """Every credential, revoked ones included, oldest first."""
        with self._store.reader() as r:
            return [_credential(stored) for stored in r.credentials()]
