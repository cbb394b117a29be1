"""What each MCP tool does: it calls the service as the agent and answers in text a model reads.

No MCP SDK here, so the stdio server (:mod:`._stdio`) runs the tools without loading it;
:mod:`._tools` registers the same calls with the SDK (their names, descriptions and argument
schemas) for the HTTP transport and for the manifest the stdio server lists. An Orbital error
or a refusal reaches the model as a tool error carrying exactly the lines the CLI prints
(``error: …``, ``warning: …``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from orbital.catalogue import ASKS_KEY, MEMORY_FILES
from orbital.clock import parse_as_of, parse_instant
from orbital.domain.asks import agent_note
from orbital.errors import OrbitalError, error_line, warning_lines
from orbital.events import Actor, RecordedEvent, event_type
from orbital.files import projected_file
from orbital.mcp._answer import Answer, data, error, text
from orbital.mcp._caller import Caller
from orbital.service import HistoryQuery, MentionedFile, Orbital, WriteOutcome
from projections.history import summarize
from projections.search import search_query
from projections.workbench import EntryRow

#: How much of an entry's or ask's history ``memory_get`` returns (the latest events).
RECENT = 10


def answer(work: Callable[[], Answer]) -> Answer:
    """Run one tool's work; an Orbital error becomes the tool error the CLI's line is."""
    try:
        return work()
    except OrbitalError as exc:
        return error(error_line(exc))


def outcome(result: WriteOutcome, *, content: bool) -> Answer:
    """A refused write is a tool error with the CLI's warning lines; otherwise the warnings,
    the events appended, and (for a file write) the file as it now stands and its version."""
    if result.refused:
        return error(warning_lines(result.warnings))
    fields: dict[str, Any] = {
        "warnings": result.warnings,
        "events": result.events,
        "held": result.held,
    }
    if content:
        fields["content"] = result.content
        if result.version is not None:
            fields["version"] = result.version
    return data(fields)


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


def _versioned(content: str, version: int) -> tuple[str, str]:
    """``memory_read``'s blocks: the file exactly, then the version to write against."""
    return content, (
        f"version: {version} (pass base={version} to memory_write: a change made since by "
        "someone else is kept, an overlapping one refuses the write)"
    )


class Calls:
    """The twelve tools over one service; each acts as the agent for its caller. Every
    argument is passed: its default is the tool's own (:mod:`._tools`), which the SDK applies
    and the stdio server takes from the same schema (:func:`._schema.bound`)."""

    def __init__(self, service: Orbital) -> None:
        self.service = service

    def memory_context(self, who: Caller, audience: str) -> Answer:
        return answer(lambda: text(self.service.context_view(who.project, audience=audience)))

    def memory_read(self, who: Caller, file: str, as_of: str | None) -> Answer:
        def work() -> Answer:
            key = projected_file(file).key
            if as_of is not None or key == ASKS_KEY or key not in MEMORY_FILES:
                return text(self.service.read_file(who.project, file, as_of=parse_as_of(as_of)))
            return text(*_versioned(*self.service.read_versioned(who.project, file)))

        return answer(work)

    def memory_write(
        self,
        who: Caller,
        file: str,
        content: str,
        base: int | None,
        remove: list[str] | None,
    ) -> Answer:
        return answer(
            lambda: outcome(
                self.service.write_file(
                    who.project,
                    file,
                    content.encode(),
                    actor=Actor.AGENT,
                    session=who.session,
                    base=base,
                    remove=remove or (),
                ),
                content=True,
            )
        )

    def memory_history(
        self,
        who: Caller,
        file: str | None,
        entry: str | None,
        ask: str | None,
        since: str | None,
        until: str | None,
    ) -> Answer:
        def work() -> Answer:
            query = HistoryQuery.from_filters(
                since=since, until=until, file=file, entry=entry, ask=ask
            )
            return data({"events": _timeline(list(self.service.history(who.project, query)))})

        return answer(work)

    def memory_search(
        self,
        who: Caller,
        query: str,
        file: str | None,
        trust: str | None,
        actor: str | None,
        since: str | None,
        until: str | None,
        past: bool,
        limit: int,
    ) -> Answer:
        def work() -> Answer:
            checked = search_query(
                query,
                file=file or "",
                trust=trust or "",
                actor=actor or "",
                since=parse_instant(since) if since else None,
                until=parse_instant(until) if until else None,
                past=past,
                limit=limit,
            )
            return data({"hits": self.service.search(who.project, checked)})

        return answer(work)

    def memory_get(self, who: Caller, ref: str) -> Answer:
        def work() -> Answer:
            found = self.service.mentions.resolve(who.project, ref)
            if isinstance(found, MentionedFile):
                return data({"kind": "file", "path": found.path, "content": found.content})
            if isinstance(found, EntryRow):
                return data(_entry(found))
            events = list(self.service.history(who.project, HistoryQuery(ask=found.id)))
            fields = msgspec.to_builtins(found)
            fields.update(kind="ask", history=_timeline(events[-RECENT:]))
            return data(fields)

        return answer(work)

    def workspace_lessons(self, who: Caller) -> Answer:
        def work() -> Answer:
            read = self.service.workspaces.read(who.project, "lessons")
            return data({"text": read.text, "version": read.version, "workspace": read.workspace})

        return answer(work)

    def workspace_lessons_write(self, who: Caller, text: str, version: int | None) -> Answer:
        def work() -> Answer:
            saved = self.service.workspaces.set_lessons(
                who.project, text, actor=Actor.AGENT, base=version
            )
            return data({"version": saved.version, "warnings": saved.warnings})

        return answer(work)

    def asks_list(self, who: Caller, state: str) -> Answer:
        return answer(lambda: data({"asks": self.service.asks(who.project, state)}))  # type: ignore[arg-type]

    def ask_open(
        self, who: Caller, text: str, due: str | None, distinct_from: list[str] | None = None
    ) -> Answer:
        return answer(
            lambda: outcome(
                self.service.ask_open(
                    who.project,
                    text,
                    due,
                    actor=Actor.AGENT,
                    session=who.session,
                    distinct_from=distinct_from or [],
                ),
                content=False,
            )
        )

    def ask_close(self, who: Caller, id: str, state: str, quote: str) -> Answer:
        return answer(
            lambda: outcome(
                self.service.ask_close(
                    who.project,
                    id,
                    state,
                    agent_note(quote),
                    actor=Actor.AGENT,
                    session=who.session,
                ),
                content=False,
            )
        )

    def ask_reopen(self, who: Caller, id: str, quote: str) -> Answer:
        return answer(
            lambda: outcome(
                self.service.ask_reopen(
                    who.project, id, agent_note(quote), actor=Actor.AGENT, session=who.session
                ),
                content=False,
            )
        )

    def memory_checkpoint(self, who: Caller, reason: str) -> Answer:
        return answer(lambda: text(self.service.editor.checkpoint(who.project, reason).line()))
