"""The Workbench page's long lists, a page at a time: each project's memory and the open asks.
A page's size follows these pages, never the size of a project (a 100,000-event project has
10,000 open asks: listed whole they were 12.7 MB of HTML, about 40 MiB at its peak)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from orbital.service import Orbital
from projections.entry_pages import EntryPage, entry_query
from projections.workbench import OpenAsk, ProjectInfo

PAGE = "/workbench"
#: Entries per page narrowed to a project; across projects, each project's first few.
PAGE_ENTRIES = 25
PREVIEW_ENTRIES = 10
#: Open asks per page (overdue first, then the oldest); the API lists them all.
OPEN_SHOWN = 100


@dataclass(frozen=True)
class Search:
    """The page's entry search and where each list starts (entries, others, open asks)."""

    q: str
    offset: int
    archived: int
    asks: int = 0

    def link(self, lens: str, anchor: str, **at: int | None) -> str:
        """The page with this search, narrowed to ``lens``, its lists starting as ``at``
        says (the others where they are)."""
        query = {
            "project": lens,
            "q": self.q,
            "offset": self.offset,
            "archived": self.archived,
            "asks": self.asks,
            **at,
        }
        return f"{PAGE}?{urlencode({k: v for k, v in query.items() if v})}#{anchor}"


@dataclass(frozen=True)
class OpenPage:
    """The open asks shown: :data:`OPEN_SHOWN` of them from ``offset`` of ``total``, with
    the links to the pages before and after ("": none)."""

    rows: Sequence[OpenAsk]
    offset: int
    total: int
    previous: str
    next: str


def open_page(asks: Sequence[OpenAsk], lens: str, search: Search) -> OpenPage:
    start = min(search.asks, max(len(asks) - 1, 0))
    end = start + OPEN_SHOWN
    previous = search.link(lens, "open", asks=max(start - OPEN_SHOWN, 0)) if start else ""
    after = search.link(lens, "open", asks=end) if end < len(asks) else ""
    return OpenPage(asks[start:end], start, len(asks), previous, after)


@dataclass(frozen=True)
class MemoryPanel:
    """One project's memory on the page: a page of its live entries and, narrowed to the
    project, a page of the others (shown collapsed), with the links that page them."""

    project: ProjectInfo
    live: EntryPage
    rest: EntryPage
    links: Mapping[str, str]


def memory_panel(service: Orbital, project: ProjectInfo, lens: str, search: Search) -> MemoryPanel:
    pid = project.project_id
    size = PAGE_ENTRIES if lens else PREVIEW_ENTRIES
    live = entry_query(q=search.q, status="live", offset=search.offset if lens else 0, limit=size)
    # Across projects only the count of the others is shown: one entry is read for it.
    rest = entry_query(
        q=search.q, status="not-live", offset=search.archived, limit=size if lens else 1
    )
    live_page, rest_page = service.entries_page(pid, live), service.entries_page(pid, rest)
    narrowed = Search(search.q, search.offset, search.archived)  # the asks start again

    def at(offset: int | None, archived: int | None) -> str:
        return narrowed.link(pid, f"memory-{pid}", offset=offset, archived=archived)

    links = {
        "more": at(None, None),
        "next": at(live_page.next_offset, search.archived) if live_page.next_offset else "",
        "previous": at(max(search.offset - size, 0), search.archived) if search.offset else "",
        "rest_next": at(search.offset, rest_page.next_offset) if rest_page.next_offset else "",
        "rest_previous": at(search.offset, max(search.archived - size, 0))
        if search.archived
        else "",
    }
    return MemoryPanel(project, live_page, rest_page, links)
