"""The MCP tools as the SDK sees them: names, descriptions for a model, argument schemas.

Each tool's body is a call of :class:`._calls.Calls`. The signatures are the one definition of
the tools' arguments: the SDK derives each schema from them and lists it, and a call's
arguments are checked against that schema by :mod:`._schema` on both transports (the SDK's
own model only sees arguments that passed). The stdio server lists the same tools from the
manifest written from here (:mod:`._manifest`), so a change here is followed by
``python -m tests.mcp.test_manifest``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from orbital.catalogue import MEMORY_FILES
from orbital.mcp._answer import Answer, wire
from orbital.mcp._caller import caller
from orbital.mcp._calls import Calls

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


def result(answer: Answer) -> CallToolResult:
    """The SDK's form of an answer: the stdio server's, validated into the SDK's model."""
    return CallToolResult.model_validate(wire(answer))


def register_tools(server: MCPServer, calls: Calls) -> None:
    """Add the twelve tools to ``server``; each acts as the agent on the caller's project."""

    @server.tool(
        annotations=_READ,
        description="The project memory as injected at each turn: project state, decisions, "
        "lessons (each within its token budget) and the open asks. Read it at the start of a "
        "task. audience 'subagent' gives the shorter view for a delegated subtask.",
    )
    def memory_context(audience: Literal["agent", "subagent"] = "agent") -> CallToolResult:
        return result(calls.memory_context(caller(), audience))

    @server.tool(
        annotations=_READ,
        description=f"One memory file ({_FILES}) or an archive (PROJECT_STATE_ARCHIVE.md, "
        "DECISIONS_ARCHIVE.md, LESSONS_ARCHIVE.md) exactly as Orbital renders it. Read a file "
        "before you memory_write it: a memory file's answer ends with a second block, its "
        "version, to pass to memory_write as base.",
    )
    def memory_read(
        file: Annotated[str, Field(description="The file name, e.g. DECISIONS.md.")],
        as_of: AsOf = None,
    ) -> CallToolResult:
        return result(calls.memory_read(caller(), file, as_of))

    @server.tool(
        annotations=_WRITE,
        description=f"Replace one memory file ({_FILES}) with your full proposed content; "
        "Orbital records the change and answers with warnings, the events, the file as "
        "stored and its new version. Keep the <!--mem id:…--> comments: ids are never reused "
        "or invented. ASKS.md is append-only: add `- open <text>` or "
        '`- done <id> "<the user\'s words>"`. Refused, as a tool error with the reason, when '
        "nothing could be kept: an open ask repeated, an ask the user dropped proposed again, "
        "an ask reworded, or (with base) a change to what someone else changed since your read. "
        "A line that resembles an ask the user dropped, or an entry that resembles one they "
        "retracted, is held (listed under held with its id, not added): only if it really is a "
        "different thing, write it again naming it: `- open <text> (distinct from <id>)`, or a "
        "`Distinct from: <id>` line in the entry.",
    )
    def memory_write(
        file: Annotated[str, Field(description="The file name, e.g. LESSONS.md.")],
        content: Annotated[str, Field(description="The whole new text of the file.")],
        base: Annotated[
            int | None,
            Field(
                description="The version memory_read gave with the text you changed. Changes "
                "made since by others are kept; if they touch what you change, the write is "
                "refused as stale: read again and redo it. Omit it and the write removes only "
                "the entries named in remove: any other entry your text leaves out is kept."
            ),
        ] = None,
        remove: Annotated[
            list[str] | None,
            Field(
                description="Entry ids you remove on purpose: without base, the only entries "
                "the write removes; with it, a write that would empty the file or remove most "
                "of its entries at once is refused unless it names them."
            ),
        ] = None,
    ) -> CallToolResult:
        return result(calls.memory_write(caller(), file, content, base, remove))

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
        return result(calls.memory_history(caller(), file, entry, ask, since, until))

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
        return result(calls.memory_get(caller(), ref))

    @server.tool(
        annotations=_READ,
        description="Search everything the project's memory holds, by words: live entries, "
        "the archives (entries moved out of the files to keep them short) and asks; with "
        "past, also superseded, retracted and removed entries and the texts entries had "
        "before. Best match first; each hit has its id (open it with memory_get), its state "
        "and where it lives. Every word must match.",
    )
    def memory_search(
        query: Annotated[str, Field(description="The words to look for.")],
        file: Annotated[
            str | None, Field(description="Only this memory file, e.g. DECISIONS.md.")
        ] = None,
        trust: Annotated[
            Literal["held", "disputed", "superseded", "retracted"] | None,
            Field(description="Only entries in this trust state."),
        ] = None,
        actor: Annotated[
            Literal["user", "agent", "editor", "system", "file"] | None,
            Field(description="Only texts written by this actor."),
        ] = None,
        since: Instant = None,
        until: Instant = None,
        past: Annotated[
            bool, Field(description="Also superseded, retracted and removed entries.")
        ] = False,
        limit: Annotated[int, Field(description="At most this many hits.", ge=1, le=100)] = 20,
    ) -> CallToolResult:
        return result(
            calls.memory_search(caller(), query, file, trust, actor, since, until, past, limit)
        )

    @server.tool(
        annotations=_READ,
        description="The lessons of this project's workspace, kept once for every project in "
        "it (LESSONS.md's format), with their version: pass it to workspace_lessons_write.",
    )
    def workspace_lessons() -> CallToolResult:
        return result(calls.workspace_lessons(caller()))

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
        return result(calls.workspace_lessons_write(caller(), text, version))

    @server.tool(
        annotations=_READ,
        description="The project's asks (what the user asked for or is waiting on): open "
        "ones by default, or done, dropped, or all.",
    )
    def asks_list(state: Literal["open", "done", "dropped", "all"] = "open") -> CallToolResult:
        return result(calls.asks_list(caller(), state))

    @server.tool(
        annotations=_WRITE,
        description="Open an ask: something the user asked for or must decide. Refused, as a "
        "tool error with the reason, when an open ask already has that text or the user "
        "dropped this ask (exactly or reworded): never propose a dropped ask again. Held (not "
        "added; listed under held with the dropped ask's id) when it resembles an ask the user "
        "dropped: only if it really is a different thing, call again naming that ask in "
        "distinct_from.",
    )
    def ask_open(
        text: Annotated[str, Field(description="One line: what is asked.")],
        due: Annotated[
            str | None, Field(description="Due date: YYYY-MM-DD or YYYY-MM-DDTHH:MM.")
        ] = None,
        distinct_from: Annotated[
            list[str] | None,
            Field(
                description="The ids of dropped asks this one resembles but is not (the ones "
                "a held answer named)."
            ),
        ] = None,
    ) -> CallToolResult:
        return result(calls.ask_open(caller(), text, due, distinct_from or []))

    @server.tool(
        annotations=_WRITE,
        description="Close an open ask as done or dropped, only on the user's word: quote the "
        "user's own words (a close without a quote is kept but warned about). Refused when the "
        "ask is already closed.",
    )
    def ask_close(
        id: AskId, state: Literal["done", "dropped"], quote: Quote = ""
    ) -> CallToolResult:
        return result(calls.ask_close(caller(), id, state, quote))

    @server.tool(
        annotations=_WRITE,
        description="Reopen a closed ask, only when the user asks for it again: quote their "
        "words. Refused when the ask is already open.",
    )
    def ask_reopen(id: AskId, quote: Quote = "") -> CallToolResult:
        return result(calls.ask_reopen(caller(), id, quote))

    @server.tool(
        annotations=_WRITE,
        description="Ask the memory editor to consolidate the memory now (archive what is "
        "done, merge duplicates), e.g. after finishing a piece of work or before a long new "
        "one. Answers its status at once; the pass runs in the background and its result "
        "comes with your next reminder.",
    )
    def memory_checkpoint(
        reason: Annotated[str, Field(description="Why now: what the memory should catch up on.")],
    ) -> CallToolResult:
        return result(calls.memory_checkpoint(caller(), reason))
