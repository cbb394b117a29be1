"""The person's purge of a text from history: who may, what may be named, what is recorded.

A purge is the one removal the log allows (see ``orbital/store/_purge.py`` for how the
bytes go). The decision is pure: the texts to take out (found by the shell from what the
person named) and the events that hold them come in; the audit event, or a refusal, comes
out. The audit keeps each text's SHA-256, never the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from orbital.errors import InvalidInput, NotFound, Refused
from orbital.events import Actor
from orbital.events.project import HistoryPurged

#: What a purged text reads as, wherever it was.
MARKER = "[purged]"
#: A shorter text would take out words everywhere, not a secret.
MIN_LENGTH = 8
#: What a text or a reason may not be made of alone (the HTTP schema says the same).
BLANK = " \t\r\n"


def decide_purge(
    named: str, texts: Sequence[str], positions: Sequence[int], reason: str, actor: Actor
) -> HistoryPurged:
    """The audit event of purging ``texts`` (held by the events at ``positions``), named
    by the person as ``named``; refused for anyone but the person, without a reason, for a
    text too short to be a secret, and when no event holds it."""
    if actor is not Actor.USER:
        raise Refused(
            "only the person purges history: run it with their Workbench token "
            "(ORBITAL_TOKEN or --token); nothing was changed"
        )
    if not reason.strip(BLANK):
        raise InvalidInput("a purge needs --reason: why the text must go (it is kept)")
    short = [t for t in texts if len(t) < MIN_LENGTH or not t.strip(BLANK)]
    if short or not texts:
        raise InvalidInput(
            f"a purged text is at least {MIN_LENGTH} characters (shorter ones would take "
            "out ordinary words everywhere); nothing was changed"
        )
    if any(t in reason for t in texts):
        raise InvalidInput("the reason holds the text being purged; say why without it")
    if not positions:
        raise NotFound(f"no event of this project holds the {named} named; nothing was changed")
    digests = tuple(hashlib.sha256(t.encode()).hexdigest() for t in texts)
    return HistoryPurged(named=named, sha256=digests, positions=tuple(positions), reason=reason)
