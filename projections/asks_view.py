"""What the agents see of the asks (reference §4.5, §4.6) and the Workbench's recently closed.

Pure functions over the folded asks and today's date.

Beyond the reference — **what the person settled reaches the agent, with their words.** The
Workbench's Done note and Drop reason are the person's answer to the agent; upstream kept them
in the Workbench only. The block shows the asks the user closed in the last
:data:`SETTLED_DAYS` days (their close's project-local date), newest first, at most
:data:`SETTLED_CAP`, each with its note. The view serves every session of the project alike
and does not know which one asks, so "since the agent's last session" is a time bound: 7 days,
the Workbench's own "recently closed" window (upstream's ``recently_closed(days=7)``), reaches
the next session of a project worked on weekly and then leaves the view. An ask shown there is
not listed again under the dropped ones.
"""

from __future__ import annotations

import datetime as dt
import heapq
import operator
from collections.abc import Iterable

from orbital.domain.asks import Ask, Asks
from orbital.grammar.text import clipped

OPEN_CAP = 10
DROPPED_CAP = 15
DROPPED_DAYS = 60
CLIP = 240
EMPTY_CUE = "Open asks: none (orbital/ASKS.md)"
DROPPED_HEADER = "Dropped by the user — never re-propose:"
SETTLED_DAYS = 7
SETTLED_CAP = 10
SETTLED_HEADER = (
    f"Settled by the user in the last {SETTLED_DAYS} days, in their words "
    "(a dropped one: never re-propose):"
)
_QUOTE_MARKS = "\"'\u201c\u201d\u2018\u2019\u300c\u300d\u300e\u300f"


#: The sort keys, read in C rather than by a Python function per ask.
_DUE_KEY = operator.attrgetter("due", "seq")
_NEWEST_KEY = operator.attrgetter("opened", "seq")
_UPDATED_KEY = operator.attrgetter("updated", "seq")


def open_in_order(dated: list[Ask], undated: list[Ask], first: int) -> list[Ask]:
    """The first ``first`` open asks in the view's order: dated ones soonest due first, then
    undated ones newest first (a heap instead of a full sort of a long list)."""
    head = heapq.nsmallest(first, dated, key=_DUE_KEY)
    return head + heapq.nlargest(first - len(head), undated, key=_NEWEST_KEY)


def _is_recent_dropped(a: Ask, since: dt.date) -> bool:
    return a.state == "dropped" and a.updated >= since


def recent_dropped(asks: Asks, today: dt.date) -> list[Ask]:
    """Asks dropped (by anyone) in the last 60 days, newest first, at most 15."""
    since = today - dt.timedelta(days=DROPPED_DAYS)
    dropped = (a for a in asks.values() if _is_recent_dropped(a, since))
    return heapq.nlargest(DROPPED_CAP, dropped, key=_UPDATED_KEY)


def dropped_texts(asks: Asks, today: dt.date, recent: bool = True) -> list[str]:
    """Texts of the recent dropped selection, or of every dropped ask when ``recent`` is off."""
    chosen: Iterable[Ask] = (
        recent_dropped(asks, today)
        if recent
        else (a for a in asks.values() if a.state == "dropped")
    )
    return [a.text for a in chosen]


def _settled_line(ask: Ask) -> str:
    """``- done [id] text (date): "note"``: the note is the person's own words, quoted
    unless they already are."""
    line = f"- {ask.state} [{ask.id}] {clipped(ask.text, CLIP)} ({ask.updated.isoformat()})"
    note = clipped(ask.note, CLIP)
    if not note:
        return line
    quoted = len(note) > 1 and note[0] in _QUOTE_MARKS and note[-1] in _QUOTE_MARKS
    return f"{line}: {note}" if quoted else f'{line}: "{note}"'


def _open_line(ask: Ask, today: dt.date) -> str:
    line = f"[{ask.id}] {clipped(ask.text, CLIP)}"
    if ask.due:
        overdue = ", overdue" if ask.due[:10] < today.isoformat() else ""
        line += f" (due {ask.due}{overdue})"
    return line


def runtime_block(asks: Asks, today: dt.date, empty_cue: bool) -> str:
    """The asks block of the per-call runtime text; ``""`` when there is nothing to show.

    ``empty_cue`` (a real project with an ``orbital/`` directory) shows "none" when no ask is
    open, so the agent knows where asks live. The asks are read once (the view is built again
    after every ask change): the open ones, and the closed ones each selection may show.
    """
    settled_since = today - dt.timedelta(days=SETTLED_DAYS)
    dropped_since = today - dt.timedelta(days=DROPPED_DAYS)
    dated: list[Ask] = []
    undated: list[Ask] = []
    settled: list[Ask] = []
    dropped: list[Ask] = []
    for a in asks.values():
        if a.state == "open":
            (dated if a.due else undated).append(a)
            continue
        if a.closed_by == "user" and a.updated >= settled_since:
            settled.append(a)
        if _is_recent_dropped(a, dropped_since):
            dropped.append(a)
    sections: list[str] = []
    total = len(dated) + len(undated)
    if total:
        lines = [f"Open asks ({total}):"]
        lines += [_open_line(a, today) for a in open_in_order(dated, undated, OPEN_CAP)]
        if total > OPEN_CAP:
            lines.append(f"…and {total - OPEN_CAP} more in orbital/ASKS.md")
        sections.append("\n".join(lines))
    elif empty_cue:
        sections.append(EMPTY_CUE)
    settled = heapq.nlargest(SETTLED_CAP, settled, key=_UPDATED_KEY)
    if settled:
        sections.append("\n".join([SETTLED_HEADER, *(_settled_line(a) for a in settled)]))
    shown = {a.id for a in settled}
    newest = heapq.nlargest(DROPPED_CAP, dropped, key=_UPDATED_KEY)
    dropped = [a for a in newest if a.id not in shown]
    if dropped:
        sections.append(
            "\n".join([DROPPED_HEADER, *(f"- {clipped(a.text, CLIP)}" for a in dropped)])
        )
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
    """Asks closed, or reopened, by someone other than the user (or the editor's reopen) in
    the last ``days`` days, newest first.

    The Workbench offers these for undo.
    """
    since = today - dt.timedelta(days=days)
    closed = [
        a
        for a in asks.values()
        if a.updated >= since
        and (
            (a.state in ("done", "dropped") and a.closed_by != "user")
            or (a.state == "open" and a.reopened_by not in (None, "user", "editor"))
        )
    ]
    closed.sort(key=lambda a: (a.updated, a.seq), reverse=True)
    return closed
