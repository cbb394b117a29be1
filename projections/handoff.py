"""The hand-off as the next session reads it (pure): the block the view shows after today's
date (:mod:`projections.view_order`), and what ``orbital handoff`` and the Workbench show.

The person's requests are their words, checked against the transcript of the session that
left them; what the agent was doing is marked as the agent's words, never the person's. The
block is fitted to :data:`HANDOFF_BUDGET` tokens (counted in the view's budget): the texts are
cut shorter, then the oldest requests and the last lines of each list left out.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from orbital.domain.handoff import clip

if TYPE_CHECKING:
    from orbital.domain.budgets import TokenCounter
    from orbital.events.handoff import HandoffKept

#: The most a hand-off may take of the view, in tokens.
HANDOFF_BUDGET = 1500
#: How long each text may be, tried in turn until the block fits.
_CLIPS = (1500, 600, 300, 160, 80)
_STOPPED = {"stop": "stopped", "end": "ended"}


def _lines(kept: HandoffKept, at: dt.datetime | None, limit: int, keep: int) -> list[str]:
    when = f" at {at.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC" if at is not None else ""
    how = _STOPPED.get(kept.stopped, "stopped")
    lines = [
        f"[Hand-off] The last session ({kept.agent}, {kept.session}) {how}{when}; pick up "
        "where it left off."
    ]
    requests = kept.requests[-keep:] if keep else ()
    if requests:
        lines.append(
            "The person's last requests in it (their words, checked against its transcript):"
        )
        lines += [f'- "{clip(text, limit)}"' for text in requests]
    if kept.doing or kept.plan:
        lines.append("What the agent was doing (the agent's words, not the person's):")
        lines += [f"- PROJECT_STATE: {clip(line, limit)}" for line in kept.doing[: keep + 2]]
        if kept.plan:
            lines.append(f"- Its last message: {clip(kept.plan, limit)}")
    if kept.files:
        shown = kept.files[: 5 * (keep + 1)]
        more = len(kept.files) - len(shown)
        lines.append(
            "Files it changed: " + ", ".join(shown) + (f" (and {more} more)" if more else "")
        )
    if kept.asks:
        lines.append("Asks it opened: " + "; ".join(clip(a, limit) for a in kept.asks[: keep + 3]))
    return lines


def handoff_block(
    kept: HandoffKept | None,
    at: dt.datetime | None,
    count: TokenCounter,
    budget: int = HANDOFF_BUDGET,
) -> str:
    """The hand-off ``kept`` (kept at ``at``) in at most ``budget`` tokens ("" for none)."""
    if kept is None:
        return ""
    text = ""
    for keep in range(len(kept.requests) or 1, -1, -1):
        for limit in _CLIPS:
            text = "\n".join(_lines(kept, at, limit, keep))
            if count(text) <= budget:
                return text
    return text
