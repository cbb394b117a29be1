"""The agent's write of ASKS.md (reference §6.5): a full proposed text in, events out.

ASKS.md is append-only for the agent. Lines it removed or changed are put back; lines it moved
are not new; each genuinely new line is decided by the agent deciders of orbital.domain.asks.
The result's text is the previous text with the accepted lines appended, so a write that
appends nothing returns the previous text byte-for-byte.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from orbital.domain.asks import (
    Ask,
    Asks,
    Decision,
    DroppedIndex,
    Minter,
    decide_agent_change,
    decide_agent_open,
    fold,
)
from orbital.domain.asks_legacy import flag_line
from orbital.events import Event
from orbital.events.asks import AskClosed, AskOpened, AskReopened
from projections.asks_md import append_lines, normalize_newlines, parse_line, render_event

_AFTER_EVERYTHING = 1 << 62


@dataclass
class WriteResult:
    """The outcome of one agent write of ASKS.md.

    ``events`` change state, in order (stream ``ask:<id>`` each); ``audit`` are the
    ``ask.open_refused`` events (stream ``asks``), to record even when nothing else changes;
    ``lines`` are the canonical lines of ``events`` (append them to the file as they are);
    ``text`` is the file after the write.
    """

    text: str
    events: list[Event] = field(default_factory=list)
    audit: list[Event] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _summary(event: Event) -> str:
    if isinstance(event, AskOpened):
        return f"opened [{event.ask_id}]"
    if isinstance(event, AskClosed):
        return f"{event.kind} [{event.ask_id}]"
    assert isinstance(event, AskReopened)
    return f"reopened [{event.ask_id}]"


def _appended(prev: str, new: str) -> list[str] | None:
    """The new lines of a pure append (``new`` starts with the whole of ``prev``, which is
    empty or ends with a newline), else ``None``: what :func:`_diff` returns, without it.

    Every previous line is then in ``new``, so none is restored, and a line of ``new`` can be
    new only if it is absent from ``prev``, which holds for no line of the common prefix: the
    candidates are the appended lines not in ``prev``, whatever the matcher pairs up.
    """
    if not new.startswith(prev) or (prev and not prev.endswith("\n")):
        return None
    return [
        line
        for line in new[len(prev) :].split("\n")
        if line and not (prev.startswith(f"{line}\n") or f"\n{line}\n" in prev)
    ]


def _diff(prev: list[str], new: list[str]) -> tuple[int, list[str]]:
    """How many previous lines the agent removed or changed, and its genuinely new lines."""
    matcher = difflib.SequenceMatcher(None, prev, new, autojunk=False)
    matched_prev: set[int] = set()
    matched_new: set[int] = set()
    for block in matcher.get_matching_blocks():
        matched_prev.update(range(block.a, block.a + block.size))
        matched_new.update(range(block.b, block.b + block.size))
    prev_set, new_set = set(prev), set(new)
    restored = sum(
        1
        for i, line in enumerate(prev)
        if i not in matched_prev
        and line.strip()
        and line not in new_set
        and not line.lstrip().startswith("<!--format")
    )
    candidates = [
        line for i, line in enumerate(new) if i not in matched_new and line not in prev_set
    ]
    return restored, candidates


def _decide_line(
    asks: Asks,
    line: str,
    today: dt.date,
    mint: Minter,
    dropped: DroppedIndex | None,
    opened: Mapping[str, Ask] | None,
) -> Decision:
    parsed = parse_line(line)
    if parsed is None:
        legacy = flag_line(line)
        if legacy is None:
            return Decision(
                warnings=[
                    f'ASKS.md: ignored "{line.strip()[:60]}" — not an ask event. Add '
                    '`- open <text>`, or `- done <id> "<the user\'s words>"`.'
                ]
            )
        text, due = legacy
        return decide_agent_open(
            asks, text, due, today, mint, dropped_index=dropped, open_index=opened
        )
    if parsed.kind == "open":
        return decide_agent_open(
            asks,
            parsed.text,
            parsed.due,
            today,
            mint,
            parsed.ask_id,
            dropped_index=dropped,
            open_index=opened,
        )
    return decide_agent_change(asks, parsed.kind, parsed.ask_id, parsed.text, today)


def decide_agent_write(
    asks: Asks,
    prev: str,
    new: str,
    today: dt.date,
    mint: Minter,
    dropped: DroppedIndex | None = None,
    opened: Mapping[str, Ask] | None = None,
) -> WriteResult:
    """Decide an agent's proposed full ASKS.md ``new`` against the projected ``prev``.

    ``asks`` is the folded state ``prev`` shows; ``prev`` is ``""`` when no file exists yet;
    ``dropped`` and ``opened``, when given, index the dropped and the open asks of ``asks``
    (``index_dropped``, ``index_open``).
    """
    prev_text, new_text = normalize_newlines(prev)[0], normalize_newlines(new)[0]
    appended = _appended(prev_text, new_text)
    if appended is not None:
        restored, candidates = 0, appended
    else:
        restored, candidates = _diff(prev_text.split("\n"), new_text.split("\n"))
    state: Asks = asks
    seq = _AFTER_EVERYTHING  # events decided here come after every recorded one
    decision = Decision()
    for line in candidates:
        if not line.strip() or line.lstrip().startswith("<!--"):
            continue
        step = _decide_line(state, line, today, mint, dropped, opened)
        decision.extend(step)
        if step.events:
            opened = None  # the open set changed: look it up in ``state`` from here on
        for event in step.events:
            seq += 1
            was_dropped = getattr(state.get(getattr(event, "ask_id", "")), "state", "")
            state = fold([(seq, event)], state)
            now_dropped = getattr(state.get(getattr(event, "ask_id", "")), "state", "")
            if "dropped" in (was_dropped, now_dropped):
                dropped = None  # the dropped set changed: index it again from ``state``
    warnings = decision.warnings
    if restored:
        warnings.insert(
            0,
            f"ASKS.md is append-only: restored {restored} line(s) you removed or changed. "
            'Record a change as a new line instead, e.g. `- done <id> "<the user\'s words>"`.',
        )
    lines = [line for line in map(render_event, decision.events) if line is not None]
    if lines:
        done = ", ".join(_summary(e) for e in decision.events)
        warnings.append(f"ASKS.md: {done}. The file now ends with: {lines[-1]}")
    return WriteResult(
        text=append_lines(prev, lines),
        events=decision.events,
        audit=decision.audit,
        lines=lines,
        warnings=warnings,
    )
