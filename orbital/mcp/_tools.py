"""The MCP tools: each one calls the service as the agent and answers in text a model reads.

Every answer is a ``CallToolResult`` built here, so an Orbital error or a refusal reaches the
model as a tool error carrying exactly the lines the CLI prints (``error: …``, ``warning: …``),
and nothing else: a crash is the SDK's generic tool error, bad arguments its schema error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from orbital.catalogue import MEMORY_FILES
from orbital.clock import parse_as_of
from orbital.domain.asks import Ask, agent_note
from orbital.domain.history import summarize
from orbital.domain.workbench import EntryRow
from orbital.errors import OrbitalError, error_line
from orbital.events import Actor, RecordedEvent, event_type
from orbital.mcp._caller import caller
from orbital.service import HistoryQuery, MentionedFile, Orbital, WriteOutcome

#: How much of an entry's or ask's history ``memory_get`` returns (the latest events).
RECENT = 10
_FILES = ", ".join(MEMORY_FILES.values())

_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

AsOf = Annotated[
    str | None,
    Field(
        description="Read it as it stood then: an ISO 8601 instant (naive is UTC), a date "
        "(the end of that day in the project's timezone) or @N, "
        "the log position N. Omit for now."
    ),
]
Instant = Annotated[
    str | None, Field(description="An ISO 8601 date or instant (naive is UTC), e.g. 2026-11-01.")
]
AskId = Annotated[str, Field(description="The ask's 6-hex id, e.g. a1b2c3 (from asks_list).")]
Quote = Annotated[
    str,
    Field(description="The user's own words that close or reopen it, verbatim (stored in quotes)."),
]


def _text(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _data(value: dict[str, Any]) -> CallToolResult:
    """JSON for the model to read, and the same as structured content."""
    builtins = msgspec.to_builtins(value)
    text = msgspec.json.encode(builtins).decode()
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=builtins
    )


def _answer(work: Callable[[], CallToolResult]) -> CallToolResult:
    """Run one tool's work; an Orbital error becomes the tool error the CLI's line is."""
    try:
        return work()
    except OrbitalError as exc:
        return _error(error_line(exc))


def _outcome(outcome: WriteOutcome, *, content: bool) -> CallToolResult:
    """A refused write is a tool error with the CLI's warning lines; otherwise the warnings,
    the events appended, and (for a file write) the file as it now stands."""
    if outcome.refused:
        return _error("\n".join(f"warning: {w}" for w in outcome.warnings))
    answer: dict[str, Any] = {"warnings": outcome.warnings, "events": outcome.events}
    if content:
        answer["content"] = outcome.content
    return _data(answer)


def _as_agent(
    write: Callable[[str, str | None], WriteOutcome], *, content: bool = False
) -> CallToolResult:
    """Run ``write(project, session)`` for the caller and answer with its outcome."""

    def work() -> CallToolResult:
        who = caller()
        return _outcome(write(who.project, who.session), content=content)

    return _answer(work)


def _timeline(events: list[RecordedEvent]) -> list[dict[str, Any]]:
    return [
        {
            "position": e.position,
            "recorded_at": e.recorded_at,
            "actor": e.actor.value,
            "session": e.session,
            "stream": e.stream,
            "type": event_type(type(e.event)),
            "summary": summarize(e.event),
        }
        for e in events
    ]


def _entry(row: EntryRow) -> dict[str, Any]:
    history = [msgspec.to_builtins(item) for item in row.history[-RECENT:]]
    fields: dict[str, Any] = msgspec.to_builtins(row)
    fields.update(kind="entry", file=MEMORY_FILES[row.file], history=history)
    return fields


def register_tools(server: MCPServer, service: Orbital) -> None:
    """Add the eleven tools to ``server``; each acts as the agent on the caller's project."""

    @server.tool(
        annotations=_READ,
        description="The project memory as injected at each turn: project state, decisions, "
        "lessons (each within its token budget) and the open asks. Read it at the start of a "
        "task. audience 'subagent' gives the shorter view for a delegated subtask.",
    )
    def memory_context(audience: Literal["agent", "subagent"] = "agent") -> CallToolResult:
        return _answer(lambda: _text(service.context_view(caller().project, audience=audience)))

    @server.tool(
        annotations=_READ,
        description=f"One memory file ({_FILES}) or an archive (PROJECT_STATE_ARCHIVE.md, "
        "DECISIONS_ARCHIVE.md, LESSONS_ARCHIVE.md) exactly as Orbital renders it. Read a file "
        "before you memory_write it.",
    )
    def memory_read(
        file: Annotated[str, Field(description="The file name, e.g. DECISIONS.md.")],
        as_of: AsOf = None,
    ) -> CallToolResult:
        return _answer(
            lambda: _text(service.read_file(caller().project, file, as_of=parse_as_of(as_of)))
        )

    @server.tool(
        annotations=_WRITE,
        description=f"Replace one memory file ({_FILES}) with your full proposed content; "
        "Orbital records the change and answers with warnings, the events and the file as "
        "stored. Keep the <!--mem id:…--> comments: ids are never reused or invented. ASKS.md "
        'is append-only: add `- open <text>` or `- done <id> "<the user\'s words>"`. Refused, '
        "as a tool error with the reason, when nothing could be kept: an open ask repeated, an "
        "ask the user dropped proposed again, an ask reworded.",
    )
    def memory_write(
        file: Annotated[str, Field(description="The file name, e.g. LESSONS.md.")],
        content: Annotated[str, Field(description="The whole new text of the file.")],
        remove: Annotated[
            list[str] | None,
            Field(
                description="Entry ids you remove on purpose: a write that would empty the "
                "file or remove most of its entries at once is refused unless it names them."
            ),
        ] = None,
    ) -> CallToolResult:
        return _as_agent(
            lambda project, session: service.write_file(
                project,
                file,
                content.encode(),
                actor=Actor.AGENT,
                session=session,
                remove=remove or (),
            ),
            content=True,
        )

    @server.tool(
        annotations=_READ,
        description="The project's events, oldest first (position, time, actor, session, "
        "summary): all of them, or those of one memory file, one entry or one ask, within "
        "an optional time window.",
    )
    def memory_history(
        file: Annotated[str | None, Field(description="Only this memory file's events.")] = None,
        entry: Annotated[str | None, Field(description="Only this entry id's events.")] = None,
        ask: Annotated[str | None, Field(description="Only this ask id's events.")] = None,
        since: Instant = None,
        until: Instant = None,
    ) -> CallToolResult:
        def work() -> CallToolResult:
            query = HistoryQuery.from_filters(
                since=since, until=until, file=file, entry=entry, ask=ask
            )
            events = list(service.history(caller().project, query))
            return _data({"events": _timeline(events)})

        return _answer(work)

    @server.tool(
        annotations=_READ,
        description="What an id or a mention points at: @decision.<id>, @lesson.<id>, "
        "@state.<id>, @ask.<id> (its text, its state: an entry also its trust, held, disputed "
        "with the person's reason, superseded by newer entries, or retracted; and its latest "
        "events), or @file.<path> (the content of that file of the project). The view shows "
        "mentions as pointers only: fetch one here when you need it.",
    )
    def memory_get(
        ref: Annotated[
            str,
            Field(
                description="An id, or @decision.<id> / @lesson.<id> / @state.<id> / "
                "@ask.<id> / @file.<path>."
            ),
        ],
    ) -> CallToolResult:
        def work() -> CallToolResult:
            project = caller().project
            found = service.mentions.resolve(project, ref)
            if isinstance(found, MentionedFile):
                return _data({"kind": "file", "path": found.path, "content": found.content})
            if isinstance(found, EntryRow):
                return _data(_entry(found))
            events = list(service.history(project, HistoryQuery(ask=found.id)))
            fields = msgspec.to_builtins(found)
            fields.update(kind="ask", history=_timeline(events[-RECENT:]))
            return _data(fields)

        return _answer(work)

    @server.tool(
        annotations=_READ,
        description="The lessons of this project's workspace, kept once for every project in "
        "it (LESSONS.md's format), with their version: pass it to workspace_lessons_write.",
    )
    def workspace_lessons() -> CallToolResult:
        def work() -> CallToolResult:
            read = service.workspaces.read(caller().project, "lessons")
            return _data({"text": read.text, "version": read.version, "workspace": read.workspace})

        return _answer(work)

    @server.tool(
        annotations=_WRITE,
        description="Replace the workspace's lessons with your full text: a lesson learnt "
        "here that holds for every project of the workspace. Give the version you read; a "
        "write over lessons changed since is refused (read them again).",
    )
    def workspace_lessons_write(
        text: Annotated[str, Field(description="The whole lessons text.")],
        version: Annotated[int | None, Field(description="The version you read.")] = None,
    ) -> CallToolResult:
        def work() -> CallToolResult:
            saved = service.workspaces.set_lessons(
                caller().project, text, actor=Actor.AGENT, base=version
            )
            return _data({"version": saved.version, "warnings": saved.warnings})

        return _answer(work)

    @server.tool(
        annotations=_READ,
        description="The project's asks (what the user asked for or is waiting on): open "
        "ones by default, or done, dropped, or all.",
    )
    def asks_list(state: Literal["open", "done", "dropped", "all"] = "open") -> CallToolResult:
        def work() -> CallToolResult:
            chosen: list[Ask] = service.asks(caller().project, state)
            return _data({"asks": chosen})

        return _answer(work)

    @server.tool(
        annotations=_WRITE,
        description="Open an ask: something the user asked for or must decide. Refused, as a "
        "tool error with the reason, when an open ask already has that text or the user "
        "dropped this ask (exactly or reworded): never propose a dropped ask again.",
    )
    def ask_open(
        text: Annotated[str, Field(description="One line: what is asked.")],
        due: Annotated[
            str | None, Field(description="Due date: YYYY-MM-DD or YYYY-MM-DDTHH:MM.")
        ] = None,
    ) -> CallToolResult:
        return _as_agent(
            lambda project, session: service.ask_open(
                project, text, due, actor=Actor.AGENT, session=session
            )
        )

    @server.tool(
        annotations=_WRITE,
        description="Close an open ask as done or dropped, only on the user's word: quote the "
        "user's own words (a close without a quote is kept but warned about). Refused when the "
        "ask is already closed.",
    )
    def ask_close(
        id: AskId, state: Literal["done", "dropped"], quote: Quote = ""
    ) -> CallToolResult:
        return _as_agent(
            lambda project, session: service.ask_close(
                project, id, state, agent_note(quote), actor=Actor.AGENT, session=session
            )
        )

    @server.tool(
        annotations=_WRITE,
        description="Reopen a closed ask, only when the user asks for it again: quote their "
        "words. Refused when the ask is already open.",
    )
    def ask_reopen(id: AskId, quote: Quote = "") -> CallToolResult:
        return _as_agent(
            lambda project, session: service.ask_reopen(
                project, id, agent_note(quote), actor=Actor.AGENT, session=session
            )
        )
