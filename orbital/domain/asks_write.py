"""The agent's write of ASKS.md (reference §6.5): a proposed text in, events out.

ASKS.md is append-only for the agent. Lines it removed or changed are put back; lines it moved
are not new; each genuinely new line is decided by the agent deciders of orbital.domain.asks.
What a write appends is the accepted lines, so a write that appends nothing leaves the
previous text byte-for-byte.

One decision (:func:`_decide_lines`: candidate lines against the state), two entries that
only find the candidates: :func:`decide_agent_append` takes what a proposal adds after the
previous file, and costs the size of that addition, not of the file;
:func:`decide_agent_write` takes the whole previous and proposed texts (any proposal), and
hands a pure append to :func:`decide_agent_append`, diffing only what is not one.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections import ChainMap
from collections.abc import Container, Iterable
from typing import cast

import msgspec
from msgspec.structs import replace

from orbital.domain.asks import (
    Ask,
    Asks,
    Decision,
    DroppedIndex,
    Minter,
    OpenIndex,
    decide_agent_change,
    fold_into,
    index_dropped,
    index_open,
)
from orbital.domain.asks_legacy import flag_line
from orbital.domain.asks_open import decide_agent_open
from orbital.domain.quotes import UserWords
from orbital.events import Actor, Event
from orbital.events.asks import AskClosed, AskOpened, AskReopened, AskReopenProposed
from orbital.grammar.asks_md import (
    append_lines,
    due_warning,
    normalize_newlines,
    parse_line,
    render_lines,
)

_AFTER_EVERYTHING = 1 << 62


class Appended(msgspec.Struct):
    """What one agent write appends.

    ``events`` change state, in order (stream ``ask:<id>`` each); ``audit`` are the
    ``ask.open_refused`` events (stream ``asks``), to record even when nothing else changes;
    ``lines`` are the canonical lines of ``events`` (append them to the file as they are).
    """

    events: list[Event] = msgspec.field(default_factory=list)
    audit: list[Event] = msgspec.field(default_factory=list)
    lines: list[str] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class WriteResult(Appended):
    """:class:`Appended`, with ``text``: the whole file after the write."""

    text: str = ""


def _summary(event: Event) -> str:
    if isinstance(event, AskOpened):
        return f"opened [{event.ask_id}]"
    if isinstance(event, AskClosed):
        return f"{event.kind} [{event.ask_id}]"
    if isinstance(event, AskReopenProposed):
        return f"reopen of [{event.ask_id}] held for the user"
    assert isinstance(event, AskReopened)
    return f"reopened [{event.ask_id}]"


def _added(prev: str, new: str) -> str | None:
    """What ``new`` adds after ``prev`` when it is a pure append (``new`` starts with the whole
    of ``prev``, which is empty or ends with a newline), else ``None``.

    Every previous line is then in ``new``, so none is restored, and a line of ``new`` can be
    new only if it is absent from ``prev``, which holds for no line of the common prefix: the
    append's decision (:func:`decide_agent_append`) is what :func:`_diff` would find, whatever
    the matcher pairs up.
    """
    if not new.startswith(prev) or (prev and not prev.endswith("\n")):
        return None
    return new[len(prev) :]


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
    dropped: DroppedIndex,
    opened: OpenIndex,
    actor: Actor,
    words: UserWords | None,
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
        text, due, bad_due = legacy
        decided = decide_agent_open(
            asks, text, due, today, mint, dropped_index=dropped, open_index=opened
        )
        return _with_due_warning(decided, bad_due, text)
    if parsed.kind == "open":
        decided = decide_agent_open(
            asks,
            parsed.text,
            parsed.due,
            today,
            mint,
            parsed.ask_id,
            dropped_index=dropped,
            open_index=opened,
            distinct_from=parsed.distinct_from,
        )
        return _with_due_warning(decided, parsed.bad_due, parsed.text)
    return decide_agent_change(asks, parsed.kind, parsed.ask_id, parsed.text, today, actor, words)


def _with_due_warning(decided: Decision, bad_due: str | None, text: str) -> Decision:
    """``decided`` telling the writer that a due which is not a date was dropped."""
    if bad_due is None or not text:
        return decided
    return replace(decided, warnings=[due_warning(bad_due, text), *decided.warnings])


def _decide_lines(
    asks: Asks,
    candidates: Iterable[str],
    restored: int,
    today: dt.date,
    mint: Minter,
    dropped: DroppedIndex | None,
    opened: OpenIndex | None,
    actor: Actor,
    words: UserWords | None,
) -> Appended:
    """Decide each candidate line in order, each seeing the events of the ones before it.

    The write's own events are folded into an overlay over ``asks`` and the indexes are
    updated by the asks they change, so deciding a line never copies or rescans the state.
    """
    overlay: dict[str, Ask] = {}
    # Read-only below the overlay: ChainMap writes only to its first map.
    state = ChainMap(overlay, cast(dict[str, Ask], asks))
    dropped = dropped if dropped is not None else index_dropped(asks)
    opened = opened if opened is not None else index_open(asks)
    seq = _AFTER_EVERYTHING  # events decided here come after every recorded one
    decision = Decision()
    for line in candidates:
        if not line.strip() or line.lstrip().startswith("<!--"):
            continue
        step = _decide_line(state, line, today, mint, dropped, opened, actor, words)
        decision.extend(step)
        if step.events:
            changed = fold_into(state, ((seq := seq + 1, e) for e in step.events))
            dropped, opened = dropped.changed(changed), opened.changed(changed)
    warnings = decision.warnings
    if restored:
        warnings.insert(
            0,
            f"ASKS.md is append-only: restored {restored} line(s) you removed or changed. "
            'Record a change as a new line instead, e.g. `- done <id> "<the user\'s words>"`.',
        )
    lines = render_lines(decision.events)
    if lines:
        done = ", ".join(_summary(e) for e in decision.events)
        warnings.append(f"ASKS.md: {done}. The file now ends with: {lines[-1]}")

    return Appended(decision.events, decision.audit, lines, warnings)


def decide_agent_write(
    asks: Asks,
    prev: str,
    new: str,
    today: dt.date,
    mint: Minter,
    dropped: DroppedIndex | None = None,
    opened: OpenIndex | None = None,
    *,
    actor: Actor,
    words: UserWords | None = None,
) -> WriteResult:
    """Decide an agent's proposed full ASKS.md ``new`` against the projected ``prev``.

    ``asks`` is the folded state ``prev`` shows; ``prev`` is ``""`` when no file exists yet;
    ``dropped`` and ``opened``, when given, index the dropped and the open asks of ``asks``;
    ``actor`` is who wrote ``new`` (it decides the ``by:`` of closes and reopens); ``words``
    are the user's messages of the writer's session, to verify the quotes of closes and
    reopens against (``None``: no transcript given).
    """
    prev_text, new_text = normalize_newlines(prev)[0], normalize_newlines(new)[0]
    added = _added(prev_text, new_text)
    if added is not None:
        result = decide_agent_append(
            asks,
            set(prev_text.split("\n")),
            added,
            today,
            mint,
            dropped,
            opened,
            actor=actor,
            words=words,
        )
    else:
        restored, candidates = _diff(prev_text.split("\n"), new_text.split("\n"))
        result = _decide_lines(
            asks, candidates, restored, today, mint, dropped, opened, actor, words
        )
    return WriteResult(
        result.events,
        result.audit,
        result.lines,
        result.warnings,
        text=append_lines(prev, result.lines),
    )


def decide_agent_append(
    asks: Asks,
    prev_lines: Container[str],
    added: str,
    today: dt.date,
    mint: Minter,
    dropped: DroppedIndex | None = None,
    opened: OpenIndex | None = None,
    *,
    actor: Actor,
    words: UserWords | None = None,
) -> Appended:
    """Decide a proposal that is the projected file (which ends with a newline) followed by
    ``added``: what :func:`decide_agent_write` decides for it, from ``prev_lines`` (the set of
    the previous file's lines) instead of the previous text.

    Nothing of the file was removed, so nothing is restored; an added line that repeats a
    line of the file was moved, not written, so it is not new.
    """
    candidates = [
        line for line in normalize_newlines(added)[0].split("\n") if line and line not in prev_lines
    ]
    return _decide_lines(asks, candidates, 0, today, mint, dropped, opened, actor, words)
