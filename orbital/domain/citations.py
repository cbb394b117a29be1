"""Citations (issue 29): which files an entry cites, and the events that say what became of
them. Pure: the shell observes the files (``observed``: each cited ``(path, lines)`` -> the
SHA-256 of its content now, ``""`` gone) and hands the answers in.

- A write of an entry's text records what its ``@file.`` mentions cite as they are then
  (``entry.cited``), whoever wrote it; rewriting the entry is one way to re-validate it.
- A check (at session start, on the agent's writes) records each citation of an entry in
  force whose content no longer matches what was last observed (``entry.citation_checked``):
  the fold then shows the entry as *needs check* (:func:`~orbital.domain.trust_fold.settled`).
- A confirmation by the agent or the person cites the files as they are now.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence

from orbital.domain.trust import find
from orbital.domain.trust_fold import OUT_OF_FORCE
from orbital.errors import Refused, UnknownEntry
from orbital.events import Actor, Event
from orbital.events.citations import CitationChecked, Cite, EntryCited
from orbital.events.entries import EntryCreated, EntryRetitled, EntryRevised
from orbital.grammar.mentions import PATH, cited_span, find_mentions
from orbital.grammar.model import Entry, FileState

#: A cited file's ``(path, lines)``.
Span = tuple[str, str]
#: Who may confirm an entry's citations: the worker agent and the person.
CONFIRMERS = frozenset({Actor.AGENT, Actor.USER})


def spans_of(text: str) -> list[Span]:
    """The ``(path, lines)`` each ``@file.`` mention of ``text`` cites, once each, in order."""
    return list(dict.fromkeys(cited_span(m.id) for m in find_mentions(text) if m.file == PATH))


def checked_entries(files: Mapping[str, FileState]) -> Iterable[Entry]:
    """The entries whose citations a check looks at: live and in force."""
    for state in files.values():
        for entry in state.entries.values():
            if entry.citations and entry.status == "live" and entry.trust.state not in OUT_OF_FORCE:
                yield entry


def checked_spans(files: Mapping[str, FileState]) -> set[Span]:
    """What a check observes: every citation of :func:`checked_entries`."""
    return {(c.path, c.lines) for e in checked_entries(files) for c in e.citations}


def written_spans(written: Sequence[Event]) -> set[Span]:
    """What a write's new texts cite (for the shell to observe before :func:`decide_cited`)."""
    return {s for e in written if _new_text(e) is not None for s in spans_of(_new_text(e) or "")}


def _new_text(event: Event) -> str | None:
    return event.text if isinstance(event, EntryCreated | EntryRevised | EntryRetitled) else None


def decide_cited(
    files: Mapping[str, FileState],
    written: Sequence[Event],
    observed: Mapping[Span, str | None],
    today: dt.date,
) -> list[Event]:
    """What each entry a write created or rewrote cites now (``files``: before the write):
    its mentions of files inside the project (``observed`` None: not one, so not cited). An
    entry whose citations stand as they were, all matching, records nothing."""
    texts: dict[str, str] = {}
    for event in written:
        text = _new_text(event)
        if text is not None:
            texts[getattr(event, "entry_id")] = text  # noqa: B009 - each of the three has one
    events: list[Event] = []
    for entry_id, text in texts.items():
        cites = tuple(
            Cite(path, lines, found)
            for path, lines in spans_of(text)
            if (found := observed.get((path, lines))) is not None
        )
        before = find(files, entry_id)
        had = () if before is None else before.citations
        if (
            not any(c.moved for c in had)
            and tuple(Cite(c.path, c.lines, c.hash) for c in had) == cites
        ):
            continue
        events.append(EntryCited(entry_id=entry_id, cites=cites, date=today))
    return events


def decide_checks(
    files: Mapping[str, FileState], observed: Mapping[Span, str | None], today: dt.date
) -> list[Event]:
    """One ``entry.citation_checked`` per citation of an entry in force whose content is not
    what was last observed (a file now outside the project, or gone, observes ``""``)."""
    events: list[Event] = []
    for entry in checked_entries(files):
        for c in entry.citations:
            now = observed.get((c.path, c.lines)) or ""
            if now != c.seen:
                events.append(
                    CitationChecked(
                        entry_id=entry.entry_id, path=c.path, lines=c.lines, hash=now, date=today
                    )
                )
    return events


def decide_confirm(
    files: Mapping[str, FileState],
    entry_id: str,
    observed: Mapping[Span, str | None],
    actor: Actor,
    today: dt.date,
) -> list[Event]:
    """The agent's or the person's confirmation that ``entry_id`` still holds with its cited
    files as they are now; ``[]`` when every citation matches already."""
    if actor not in CONFIRMERS:
        raise Refused(f"only the agent or the person confirms an entry's citations, not {actor}")
    entry = find(files, entry_id)
    if entry is None:
        raise UnknownEntry(entry_id)
    if not entry.citations:
        raise Refused(f"entry {entry_id!r} cites no file (no @file. mention): nothing to confirm")
    now = tuple(
        Cite(c.path, c.lines, observed.get((c.path, c.lines)) or "") for c in entry.citations
    )
    same = all(c.hash == n.hash for c, n in zip(entry.citations, now, strict=True))
    if same and not any(c.moved for c in entry.citations):
        return []
    return [EntryCited(entry_id=entry_id, cites=now, date=today, confirmed=True)]
