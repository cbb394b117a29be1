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
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping

from orbital.domain.asks import Ask, Asks
from orbital.domain.layered import Ordered
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


class ViewAsks(Mapping[str, Ask]):
    """The asks (read like the mapping they are) in the orders the view reads them: open
    ones with a due by due date, open ones without by when they were opened, done ones and
    dropped ones each by when they last changed (each then by ``seq``: :func:`view_key`).
    Built with a sort from a mapping (:meth:`of`), or over the store's keys
    (``orbital/service/_stored_asks.py``), so the view reads its first open asks and its
    newest closes, never the rest of a long log: the dropped ones apart, as the view shows
    the newest 15 of them however many asks were done since."""

    __slots__ = ("_asks", "_orders")

    def __init__(self, asks: Asks, orders: tuple[Ordered[Ask], ...]) -> None:
        self._asks, self._orders = asks, orders

    @classmethod
    def of(cls, asks: Asks) -> ViewAsks:
        """``asks`` in the view's orders (themselves when they are a :class:`ViewAsks`)."""
        if isinstance(asks, ViewAsks):
            return asks
        placed: tuple[list[Ask], ...] = tuple([] for _ in range(ORDERS))
        for a in asks.values():
            placed[order_of(a)].append(a)
        return cls(asks, tuple(Ordered.of(placed[n], view_key) for n in range(ORDERS)))

    @property
    def open_count(self) -> int:
        return len(self._orders[0]) + len(self._orders[1])

    def open_first(self, first: int) -> list[Ask]:
        """The first ``first`` open asks in the view's order: dated ones soonest due first,
        then undated ones newest first."""
        dated, undated = self._orders[0], self._orders[1]
        found = list(itertools.islice(dated.ascending(), first))
        return found + list(itertools.islice(undated.descending(), max(first - len(found), 0)))

    def newest_closed(
        self,
        first: int,
        since: dt.date,
        chosen: Callable[[Ask], bool],
        *,
        dropped_only: bool = False,
    ) -> list[Ask]:
        """The newest ``first`` asks not open that ``chosen`` keeps, changed on ``since`` or
        later, newest first (``dropped_only``: of the dropped ones, their order alone read)."""
        orders = self._orders[3:] if dropped_only else self._orders[2:]
        newest = heapq.merge(*(o.descending() for o in orders), key=_changed, reverse=True)
        found: list[Ask] = []
        for ask in newest:
            if ask.updated < since or len(found) == first:
                break
            if chosen(ask):
                found.append(ask)
        return found

    def __getitem__(self, key: str) -> Ask:
        return self._asks[key]

    def __contains__(self, key: object) -> bool:
        return key in self._asks

    def __iter__(self) -> Iterator[str]:
        return iter(self._asks)

    def __len__(self) -> int:
        return len(self._asks)


#: Separates a view key's parts; below every character a part holds, so the key sorts as the
#: tuple of its parts would.
_SEP = "\x01"


#: How many orders a :class:`ViewAsks` keeps (:func:`order_of`).
ORDERS = 4


def order_of(a: Ask) -> int:
    """Which of a :class:`ViewAsks`' orders holds ``a``: dated open asks (0), undated open
    asks (1), done ones (2), dropped ones (3)."""
    if a.state == "open":
        return 0 if a.due else 1
    return 3 if a.state == "dropped" else 2


def _changed(a: Ask) -> tuple[dt.date, int]:
    """Where a closed ask stands among closed ones (the done and the dropped merged): as
    :func:`view_key` orders each."""
    return a.updated, a.seq


def view_key(a: Ask) -> str:
    """Where ``a`` stands in the view's orders: its order, then what that order sorts by (the
    due date; when it was opened; when it last changed), then ``seq``. One string that sorts
    byte by byte as that tuple does, so the store keeps the orders as keys
    (:mod:`orbital.service._stream_keys`) and they are the ones a :class:`ViewAsks` sorts by."""
    n = order_of(a)
    by = a.due if n == 0 and a.due else (a.opened if n == 1 else a.updated).isoformat()
    return f"v{n}{_SEP}{by}{_SEP}{a.seq:016d}"


def order_range(n: int) -> tuple[str, str]:
    """The keys of order ``n``: ``[lo, hi)``."""
    return f"v{n}{_SEP}", f"v{n}\x02"


def recent_dropped(asks: Asks, today: dt.date) -> list[Ask]:
    """Asks dropped (by anyone) in the last 60 days, newest first, at most 15."""
    since = today - dt.timedelta(days=DROPPED_DAYS)
    return ViewAsks.of(asks).newest_closed(DROPPED_CAP, since, lambda a: True, dropped_only=True)


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
    open, so the agent knows where asks live. The asks are read in the view's orders
    (:class:`ViewAsks`; built here from a plain mapping): the first open ones, and the newest
    closes each selection may show.
    """
    view = ViewAsks.of(asks)
    sections: list[str] = []
    total = view.open_count
    if total:
        lines = [f"Open asks ({total}):"]
        lines += [_open_line(a, today) for a in view.open_first(OPEN_CAP)]
        if total > OPEN_CAP:
            lines.append(f"…and {total - OPEN_CAP} more in orbital/ASKS.md")
        sections.append("\n".join(lines))
    elif empty_cue:
        sections.append(EMPTY_CUE)
    since = today - dt.timedelta(days=SETTLED_DAYS)
    settled = view.newest_closed(SETTLED_CAP, since, lambda a: a.closed_by == "user")
    if settled:
        sections.append("\n".join([SETTLED_HEADER, *(_settled_line(a) for a in settled)]))
    shown = {a.id for a in settled}
    dropped = [a for a in recent_dropped(view, today) if a.id not in shown]
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
