"""The agent swap's events (stream ``handoff``): what a session left for the next one, and
which session took it."""

from __future__ import annotations

from orbital.events._base import Event


class HandoffKept(Event, frozen=True, tag="handoff.kept"):
    """What session ``session`` of ``agent`` left when it stopped (``stopped``: ``stop``, a
    turn ended; ``end``, the session ended): the person's last ``requests`` (their words,
    checked against the session's transcript), what the agent was ``doing`` (its
    PROJECT_STATE lines) and its last message's ``plan`` (the agent's words), the ``files``
    it changed and the ``asks`` it opened (``<id> <text>``)."""

    session: str
    agent: str
    stopped: str
    requests: tuple[str, ...] = ()
    doing: tuple[str, ...] = ()
    plan: str = ""
    files: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()


class HandoffTaken(Event, frozen=True, tag="handoff.taken"):
    """Session ``session`` of ``agent`` started and was given the hand-off of
    ``from_session``: nobody else gets it."""

    session: str
    agent: str
    from_session: str


HANDOFF_EVENTS: tuple[type[Event], ...] = (HandoffKept, HandoffTaken)
