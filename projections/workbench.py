"""The person's Workbench views (reference §9): pure rows over folded asks and entries.

Dates are the project's: callers pass "now" already in the project's timezone, so ages and
lateness are counted in the days the person lives in.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

import msgspec

from orbital.domain.asks import Ask, Asks, ask_mark
from orbital.domain.projects import PROJECT_ID
from orbital.grammar.model import Entry, FileState
from projections.asks_view import recently_closed
from projections.beliefs import moved_citations

#: Done asks stay on the page (with Reopen) this long; the API can reopen any close.
DONE_DAYS = 30
_DUE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2}))?")
_MARKER = re.compile(r"^\s*(?:#+|[-*+]|\d+[.)])\s+")


class OpenAsk(msgspec.Struct, frozen=True):
    """An open ask as the person's list shows it (``created`` = opened, ``touched`` = last
    change; ``days_late`` is 0 unless overdue)."""

    project_id: str
    id: str
    text: str
    due: str | None
    created: dt.date
    touched: dt.date
    age_days: int
    overdue: bool
    days_late: int


class ClosedAsk(msgspec.Struct, frozen=True):
    """A done or dropped ask (or, in "Closed for you", one an agent reopened: ``kind``
    ``reopened``); ``closed_by`` is who closed (or reopened) it (user, agent, editor, file);
    ``quote`` what an agent's close rests on: ``verified``, ``unverified`` or ``no quote``."""

    project_id: str
    id: str
    text: str
    due: str | None
    created: dt.date
    closed: dt.date
    closed_by: str | None
    kind: str
    note: str
    quote: str | None = None


class ProposedReopen(msgspec.Struct, frozen=True):
    """A dropped ask an agent (or a change on disk) asked to reopen without words of the
    person's verified in its session: it waits on the person's Confirm or Decline."""

    project_id: str
    id: str
    text: str
    dropped: dt.date
    reason: str
    #: The proposer's words, as written.
    words: str


class DistinctClaim(msgspec.Struct, frozen=True):
    """An open ask the agent said is not the dropped ask ``dropped`` it resembled: shown beside
    that drop, for the person to judge (and drop in one click)."""

    project_id: str
    id: str
    text: str
    dropped: str


class ProjectInfo(msgspec.Struct, frozen=True):
    """A project in reach, with its own "today" (the date its asks are counted against), its
    display name and its label among the projects in reach (:func:`project_labels`)."""

    project_id: str
    root: str
    timezone: str
    today: dt.date
    name: str
    label: str
    #: The newest hand-off an agent's session left (as ``orbital handoff`` shows it), "" none.
    handoff: str = ""


class WorkbenchView(msgspec.Struct, frozen=True, omit_defaults=True):
    """The person's asks across projects: open ones (overdue first, then oldest), recently
    done, every dropped one, the reopens waiting on the person, and on request the recent
    closes (and reopens) made by someone else."""

    projects: list[ProjectInfo]
    asks: list[OpenAsk]
    done: list[ClosedAsk]
    dropped: list[ClosedAsk]
    recently_closed: list[ClosedAsk] | None = None
    proposed_reopens: list[ProposedReopen] = msgspec.field(default_factory=list)
    #: Open asks the agent said differ from a dropped ask they resembled.
    claims: list[DistinctClaim] = msgspec.field(default_factory=list)


class TimelineItem(msgspec.Struct, frozen=True):
    """One event in an entry's history."""

    position: int
    recorded_at: dt.datetime
    actor: str
    type: str
    summary: str


class EntryRow(msgspec.Struct, frozen=True):
    """A durable memory entry with what the person can do to it and its history."""

    file: str
    id: str
    title: str
    text: str
    status: str
    pinned: bool
    created: dt.date
    touched: dt.date
    archived_on: dt.date | None
    history: list[TimelineItem]
    #: Trust state (issue 16): held, needs-check, disputed, superseded or retracted, and its
    #: details.
    trust: str = "held"
    trust_reason: str = ""
    superseded_by: tuple[str, ...] = ()
    superseded_since: dt.date | None = None
    restates: str = ""
    #: Its citations that no longer match, and since when (trust ``needs-check``, issue 29).
    citations_moved: tuple[str, ...] = ()


def due_moment(due: str | None) -> dt.datetime | None:
    """A due ``YYYY-MM-DD[THH:MM]`` as a naive project-local moment (a date alone is due at
    the end of that day); None when absent or not a real date (dues are not validated)."""
    found = _DUE.fullmatch(due.strip()) if due else None
    if found is None:
        return None
    day, hour, minute = found.groups()
    try:
        date = dt.date.fromisoformat(day)
        if hour is None:
            return dt.datetime.combine(date, dt.time.max)
        return dt.datetime.combine(date, dt.time(int(hour), int(minute)))
    except ValueError:
        return None


def open_row(project_id: str, ask: Ask, now: dt.datetime) -> OpenAsk:
    """``now`` is the project-local time; an ask is overdue once its due moment has passed."""
    today = now.date()
    moment = due_moment(ask.due)
    overdue = moment is not None and now.replace(tzinfo=None) > moment
    days_late = (today - moment.date()).days if overdue and moment is not None else 0
    return OpenAsk(
        project_id=project_id,
        id=ask.id,
        text=ask.text,
        due=ask.due,
        created=ask.opened,
        touched=ask.updated,
        age_days=max((today - ask.opened).days, 0),
        overdue=overdue,
        days_late=days_late,
    )


def closed_row(project_id: str, ask: Ask) -> ClosedAsk:
    """An ask's last close (or, open again, its reopen) as the person's lists show it."""
    reopened = ask.state == "open"
    return ClosedAsk(
        project_id=project_id,
        id=ask.id,
        text=ask.text,
        due=ask.due,
        created=ask.opened,
        closed=ask.updated,
        closed_by=ask.reopened_by if reopened else ask.closed_by,
        kind="reopened" if reopened else ask.state,
        note=ask.note,
        quote=ask_mark(ask),
    )


def proposed_reopens(project_id: str, asks: Asks) -> list[tuple[ProposedReopen, int]]:
    """The dropped asks with a reopen waiting on the person."""
    return [
        (ProposedReopen(project_id, a.id, a.text, a.updated, a.note, a.proposal), a.seq)
        for a in asks.values()
        if a.state == "dropped" and a.proposal is not None
    ]


def sort_open(rows: Iterable[tuple[OpenAsk, int]]) -> list[OpenAsk]:
    """Overdue first, then the oldest opened; ``seq`` (event order) breaks ties."""
    ordered = sorted(rows, key=lambda pair: (not pair[0].overdue, pair[0].created, pair[1]))
    return [row for row, _ in ordered]


def sort_closed(rows: Iterable[tuple[ClosedAsk, int]]) -> list[ClosedAsk]:
    """Newest close first."""
    ordered = sorted(rows, key=lambda pair: (pair[0].closed, pair[1]), reverse=True)
    return [row for row, _ in ordered]


def open_asks(project_id: str, asks: Asks, now: dt.datetime) -> list[tuple[OpenAsk, int]]:
    return [(open_row(project_id, a, now), a.seq) for a in asks.values() if a.state == "open"]


def recently_closed_asks(
    project_id: str, asks: Asks, today: dt.date
) -> list[tuple[ClosedAsk, int]]:
    """Closes and reopens by anyone but the user in the last 7 days: the ones to check and
    maybe undo."""
    return [(closed_row(project_id, a), a.seq) for a in recently_closed(asks, today)]


def done_asks(project_id: str, asks: Asks, today: dt.date) -> list[tuple[ClosedAsk, int]]:
    """Asks done in the last :data:`DONE_DAYS` days, whoever closed them."""
    since = today - dt.timedelta(days=DONE_DAYS)
    return [
        (closed_row(project_id, a), a.seq)
        for a in asks.values()
        if a.state == "done" and a.updated >= since
    ]


def dropped_asks(project_id: str, asks: Asks) -> list[tuple[ClosedAsk, int]]:
    """Every dropped ask: the agent is told never to re-propose these, so the person should
    be able to see them all and reopen one."""
    return [(closed_row(project_id, a), a.seq) for a in asks.values() if a.state == "dropped"]


def distinct_claims(project_id: str, asks: Asks) -> list[DistinctClaim]:
    """The open asks written ``distinct from`` a dropped ask, one row per dropped ask named."""
    return [
        DistinctClaim(project_id, a.id, a.text, dropped)
        for a in asks.values()
        if a.state == "open"
        for dropped in a.distinct_from
        if dropped in asks and asks[dropped].state == "dropped"
    ]


def entry_title(text: str) -> str:
    """The first line of an entry without its markdown marker (heading, bullet, number)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return _MARKER.sub("", first).strip()


def ordered_entries(files: Mapping[str, FileState], order: Sequence[str]) -> Iterator[Entry]:
    """Entries of the files in ``order``: in each file the live ones in file order, then the
    rest (archived, merged, retired) as they were first created. A stable order: paging
    walks it."""
    for key in order:
        state = files.get(key)
        if state is None:
            continue
        live = state.live_ids()
        shown = set(live)
        rest = sorted(
            (e for e in state.entries.values() if e.entry_id not in shown),
            key=lambda e: (e.created, e.entry_id),
        )
        yield from (state.entries[i] for i in live)
        yield from rest


def entry_rows(
    files: Mapping[str, FileState],
    order: Sequence[str],
    timelines: Mapping[str, list[TimelineItem]],
) -> list[EntryRow]:
    """Every entry of the files in ``order`` (:func:`ordered_entries`), with its history."""
    return [entry_row(e, timelines.get(e.entry_id, [])) for e in ordered_entries(files, order)]


def entry_row(entry: Entry, history: list[TimelineItem]) -> EntryRow:
    return EntryRow(
        file=entry.file,
        id=entry.entry_id,
        title=entry_title(entry.text) or entry.entry_id,
        text=entry.text.strip(),
        status=entry.status,
        pinned=entry.pinned,
        created=entry.created,
        touched=entry.touched,
        archived_on=entry.archived_on,
        history=history,
        trust=entry.trust.state,
        trust_reason=entry.trust.reason,
        superseded_by=entry.trust.by,
        superseded_since=entry.trust.since,
        restates=entry.trust.restates,
        citations_moved=moved_citations(entry),
    )


#: The fewest characters of an id shown to tell two projects of one name apart.
SHORT_ID = 8


def project_labels(names: Mapping[str, str]) -> dict[str, str]:
    """Each project's label in a list (id -> name): its display name, and where several
    share a name (case aside), ``name · <short id>`` — a random id's first characters, at
    least :data:`SHORT_ID` and more until they differ; an older slug id whole — so two
    folders called ``invoicer`` are two distinguishable rows, never one name twice."""
    groups: dict[str, list[str]] = {}
    for pid, name in names.items():
        groups.setdefault(name.casefold(), []).append(pid)
    labels: dict[str, str] = {}
    for ids in groups.values():
        if len(ids) == 1:
            labels[ids[0]] = names[ids[0]]
            continue
        for width in range(SHORT_ID, 33):  # at 32 every id is whole, and ids differ
            short = {p: p[:width] if PROJECT_ID.fullmatch(p) else p for p in ids}
            if len(set(short.values())) == len(ids):
                break
        for pid in ids:
            labels[pid] = f"{names[pid]} · {short[pid]}"
    return labels
