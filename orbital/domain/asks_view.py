"""What the agents see of the asks (reference §4.5, §4.6) and the Workbench's recently closed.

Pure functions over the folded asks and today's date.
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Iterable

from orbital.domain.asks import Ask, Asks

OPEN_CAP = 10
DROPPED_CAP = 15
DROPPED_DAYS = 60
CLIP = 240
EMPTY_CUE = "Open asks: none (orbital/ASKS.md)"
DROPPED_HEADER = "Dropped by the user — never re-propose:"


def clip(text: str) -> str:
    """Texts longer than 240 characters end with an ellipsis at 240."""
    return text if len(text) <= CLIP else text[: CLIP - 1].rstrip() + "…"


def open_in_order(asks: Asks, first: int | None = None) -> list[Ask]:
    """Open asks: dated ones soonest due first, then undated ones newest first (only the
    ``first`` of them when given: a heap instead of a full sort of a long list)."""
    opened = [a for a in asks.values() if a.state == "open"]
    dated = [a for a in opened if a.due]
    undated = [a for a in opened if not a.due]

    def due_key(a: Ask) -> tuple[str, int]:
        return (a.due or "", a.seq)

    def newest_key(a: Ask) -> tuple[dt.date, int]:
        return (a.opened, a.seq)

    if first is None:
        return sorted(dated, key=due_key) + sorted(undated, key=newest_key, reverse=True)
    head = heapq.nsmallest(first, dated, key=due_key)
    return head + heapq.nlargest(first - len(head), undated, key=newest_key)


def recent_dropped(asks: Asks, today: dt.date) -> list[Ask]:
    """Asks dropped (by anyone) in the last 60 days, newest first, at most 15."""
    since = today - dt.timedelta(days=DROPPED_DAYS)
    dropped = (a for a in asks.values() if a.state == "dropped" and a.updated >= since)
    return heapq.nlargest(DROPPED_CAP, dropped, key=lambda a: (a.updated, a.seq))


def dropped_texts(asks: Asks, today: dt.date, recent: bool = True) -> list[str]:
    """Texts of the recent dropped selection, or of every dropped ask when ``recent`` is off."""
    chosen: Iterable[Ask] = (
        recent_dropped(asks, today)
        if recent
        else (a for a in asks.values() if a.state == "dropped")
    )
    return [a.text for a in chosen]


def _open_line(ask: Ask, today: dt.date) -> str:
    line = f"[{ask.id}] {clip(ask.text)}"
    if ask.due:
        overdue = ", overdue" if ask.due[:10] < today.isoformat() else ""
        line += f" (due {ask.due}{overdue})"
    return line


def runtime_block(asks: Asks, today: dt.date, empty_cue: bool) -> str:
    """The asks block of the per-call runtime text; ``""`` when there is nothing to show.

    ``empty_cue`` (a real project with an ``orbital/`` directory) shows "none" when no ask is
    open, so the agent knows where asks live.
    """
    sections: list[str] = []
    total = sum(1 for a in asks.values() if a.state == "open")
    if total:
        lines = [f"Open asks ({total}):"]
        lines += [_open_line(a, today) for a in open_in_order(asks, OPEN_CAP)]
        if total > OPEN_CAP:
            lines.append(f"…and {total - OPEN_CAP} more in orbital/ASKS.md")
        sections.append("\n".join(lines))
    elif empty_cue:
        sections.append(EMPTY_CUE)
    dropped = recent_dropped(asks, today)
    if dropped:
        sections.append("\n".join([DROPPED_HEADER, *(f"- {clip(a.text)}" for a in dropped)]))
    return "\n\n".join(sections)


def subagent_dropped_line(asks: Asks, today: dt.date) -> str:
    """The pinned sub-agent's line naming the recently dropped asks; ``""`` when none."""
    texts = dropped_texts(asks, today)
    if not texts:
        return ""
    return (
        "- The user dropped these — NEVER re-propose or add entries about: "
        f"{'; '.join(texts)}. They may only return by explicit user request."
    )


def recently_closed(asks: Asks, today: dt.date, days: int = 7) -> list[Ask]:
    """Asks closed by someone other than the user in the last ``days`` days, newest first.

    The Workbench offers these for undo.
    """
    since = today - dt.timedelta(days=days)
    closed = [
        a
        for a in asks.values()
        if a.state in ("done", "dropped") and a.closed_by != "user" and a.updated >= since
    ]
    closed.sort(key=lambda a: (a.updated, a.seq), reverse=True)
    return closed
