"""The trust fold: an entry's :class:`Trust` after one trust event (issue 16).

Apart from the deciders (:mod:`orbital.domain.trust`) so the entry fold can use it without
importing them.
"""

from __future__ import annotations

from msgspec.structs import replace

from orbital.events._base import Event
from orbital.events.trust import (
    EntryDisputed,
    EntryReaffirmed,
    EntryRestates,
    EntryRetracted,
    EntrySuperseded,
)
from orbital.grammar.model import Trust

#: States that take an entry out of force (out of the view and the live file).
OUT_OF_FORCE = frozenset({"superseded", "retracted"})


def fold_trust(trust: Trust, event: Event) -> Trust:
    """``trust`` after one trust event (other events leave it as it is)."""
    match event:
        case EntryDisputed(reason=reason, date=day):
            return replace(trust, state="disputed", reason=reason, on=day)
        case EntryRetracted(reason=reason, date=day):
            return replace(trust, state="retracted", reason=reason, on=day)
        case EntryReaffirmed(reason=reason, date=day):
            return Trust(reason=reason, on=day, restates=trust.restates)
        case EntrySuperseded(by=by, date=day, since=since):
            merged = trust.by + tuple(i for i in by if i not in trust.by)
            effective = since or day
            earliest = min(effective, trust.since) if trust.since else effective
            if trust.state == "retracted":  # the person's word stands; the link is kept
                return replace(trust, by=merged, since=earliest)
            return replace(trust, state="superseded", reason="", by=merged, since=earliest, on=day)
        case EntryRestates(restates=old):
            return replace(trust, restates=old)
    return trust


def settled(trust: Trust, moved: bool) -> Trust:
    """``trust`` with its citations' word: a held entry whose cited file ``moved`` needs a
    check, and one whose citations all match again is held (the one place the state is set)."""
    if moved and trust.state == "held":
        return replace(trust, state="needs-check")
    if not moved and trust.state == "needs-check":
        return replace(trust, state="held")
    return trust


def retracted_why(reason: str) -> str:
    return f"retracted by the person ({reason})" if reason else "retracted by the person"


def out_of_force_why(trust: Trust) -> str:
    """Why an out-of-force entry is out, in the words of its pointer and of the warnings."""
    if trust.state == "superseded":
        return f"superseded by {', '.join(trust.by)}"
    return retracted_why(trust.reason)
