"""The injection view (reference §4): what the agent sees of each memory file per call.

Views are computed from the rendered file text, never written back. When nothing is omitted
the input string itself is returned (prompt-prefix caches stay warm).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from orbital.catalogue import (
    ARCHIVE_FILES,
    DISPLAY,
    LAYER1_KEYS,
    MEMORY_DIR,
    MEMORY_FILES,
    WORKSPACE_LESSONS,
    WORKSPACE_LESSONS_BUDGET,
)
from orbital.domain.budgets import PROTECT_OLDEST, TokenCounter, budgets_for_window
from orbital.domain.line_trims import head_lines
from orbital.grammar.durable import split_entries
from orbital.grammar.pointers import is_pointer_line, pointer_date, pointer_ids
from orbital.grammar.state_blocks import segments, strip_mem_comments

TRIM_NOTE = (
    "\n[... older content trimmed from this view — read the file on disk for the full text ...]"
)
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_BLANK_RUNS = re.compile(r"\n{3,}")


def durable_note(key: str, omitted: int) -> str:
    return (
        f"\n[... {omitted} older {DISPLAY[key]} entries omitted from this view — read "
        f"{MEMORY_DIR}/{MEMORY_FILES[key]} (and its archive, listed in INDEX.md) "
        "for the full set ...]\n\n"
    )


def state_note(omitted: int) -> str:
    return (
        f"\n[... {omitted} older PROJECT_STATE line(s) omitted from this view — read "
        "orbital/PROJECT_STATE.md for the full text ...]"
    )


def head_trim(text: str, hard: float, count: TokenCounter, note: str = TRIM_NOTE) -> str:
    """The top lines that fit ``hard`` tokens, then ``note`` (``text`` if it fits)."""
    if count(text) <= hard:
        return text
    limit = max(hard - count(note), count("x"))
    return "\n".join(head_lines(text, limit, count)) + note


#: At most this many ids in the view's line about a file's archived entries.
VIEW_IDS = 8


def archived_note(key: str, ids: list[str], stubs: int) -> str:
    """The one line that stands in the view for all of a file's archive pointer lines."""
    total = len(ids) + stubs
    named = ", ".join(ids[:VIEW_IDS])
    more = f" and {len(ids) - VIEW_IDS} more" if len(ids) > VIEW_IDS else ""
    which = f" (ids {named}{more})" if ids else ""
    return (
        f"[{total} {DISPLAY[key]} entr{'y' if total == 1 else 'ies'} archived in "
        f"{MEMORY_DIR}/{ARCHIVE_FILES[key]}{which} — read it on demand]"
    )


def lift_pointers(text: str) -> tuple[str, list[str], int]:
    """``text`` without its archive pointer lines, the ids they name (newest line first, then
    file order) and how many name no id (legacy stubs)."""
    kept: list[str] = []
    found: list[tuple[str, int, list[str]]] = []
    for n, line in enumerate(text.splitlines(keepends=True)):
        day = pointer_date(line)
        if day is None and not is_pointer_line(line):
            kept.append(line)
            continue
        found.append(((day or dt.date.min).isoformat(), -n, pointer_ids(line)))
    if not found:
        return text, [], 0
    found.sort(reverse=True)
    ids = [i for _, _, named in found for i in named]
    return _BLANK_RUNS.sub("\n\n", "".join(kept)), ids, sum(1 for *_, n in found if not n)


def with_archived_note(
    text: str, key: str, hard: float, count: TokenCounter, view: Callable[[str, float], str]
) -> str:
    """``view`` of ``text`` with its pointer lines replaced by one line at the end, which is
    counted in ``hard``: pointers never crowd out live entries."""
    body, ids, stubs = lift_pointers(text)
    if not ids and not stubs:
        return view(text, hard)
    note = archived_note(key, ids, stubs)
    shown = view(body, max(count("x"), hard - count(note) - count("\n\n"))).rstrip("\n")
    return (shown + "\n\n" if shown.strip() else "") + note + "\n"


def durable_view(text: str, key: str, hard: float, count: TokenCounter) -> str:
    """Preamble, the oldest 3 entries, the omission note, then the newest entries that fit."""
    split = split_entries(text, key)
    if split is None or len(split[1]) < 2:
        return head_trim(text, hard, count)
    preamble, entries = split
    oldest, rest = entries[:PROTECT_OLDEST], entries[PROTECT_OLDEST:]
    used = count(preamble) + sum(count(e) for e in oldest)
    newest: list[str] = []
    for entry in reversed(rest):
        cost = count(entry)
        if used + cost > hard:
            break
        newest.append(entry)
        used += cost
    omitted = len(rest) - len(newest)
    if omitted == 0:
        return text
    return preamble + "".join(oldest) + durable_note(key, omitted) + "".join(reversed(newest))


@dataclass(frozen=True)
class _Unit:
    """A piece of PROJECT_STATE for the view: a block or one other line, comment-free."""

    text: str
    day: str  # ISO day when the unit may be hidden (stamped block or pointer), else ""


def _state_units(text: str) -> list[_Unit]:
    units: list[_Unit] = []
    for segment in segments(text):
        if isinstance(segment, str):
            day = pointer_date(segment) if is_pointer_line(segment) else None
            units.append(_Unit(strip_mem_comments(segment), day.isoformat() if day else ""))
        else:
            created = segment.fields.get("created", "")
            stamped = bool(segment.fields.get("id")) and _ISO_DAY.match(created) is not None
            units.append(_Unit(strip_mem_comments(segment.raw), created if stamped else ""))
    return units


def state_view(text: str, hard: float, count: TokenCounter) -> str:
    """PROJECT_STATE without id comments; over budget, the oldest stamped lines hide first."""
    stripped = strip_mem_comments(text)
    if count(stripped) <= hard:
        return stripped
    units = _state_units(text)
    body_budget = max(1, int(hard - count(state_note(999))))
    costs = [count(u.text) for u in units]
    used = sum(costs)
    order = sorted((u.day, i) for i, u in enumerate(units) if u.day)
    hidden: set[int] = set()
    for _, i in order:
        if used <= body_budget:
            break
        hidden.add(i)
        used -= costs[i]
    kept = _BLANK_RUNS.sub("\n\n", "".join(u.text for i, u in enumerate(units) if i not in hidden))
    if used <= body_budget:
        return kept.rstrip("\n") + state_note(len(hidden)) + "\n"
    return head_trim(kept, hard, count)


def file_view(key: str, text: str, hard: float, count: TokenCounter) -> str:
    """The view of one rendered memory file under its hard budget (in tokens)."""
    if key == "state":
        return with_archived_note(text, key, hard, count, lambda t, h: state_view(t, h, count))
    if key in ("decisions", "lessons"):
        return with_archived_note(
            text, key, hard, count, lambda t, h: durable_view(t, key, h, count)
        )
    return head_trim(text, hard, count)


def memory_block(
    files: Mapping[str, str],
    count: TokenCounter,
    *,
    window: int | None = None,
    reserved: float = 0.0,
    workspace_lessons: str = "",
    view: Callable[[str, str, float], str] | None = None,
) -> list[str]:
    """The memory block, last in the view: each file as ``[<FILENAME>]\n<view>`` (state,
    decisions, lessons, index; empty ones skipped), then the workspace's lessons under their
    own budget; all scaled so the whole view fits its share of ``window`` after ``reserved``
    tokens of the parts before it (frames included: see :func:`frame_cost`). ``view``: what
    :func:`file_view` gives for (key, text, hard budget), kept by the caller."""
    extra = {WORKSPACE_LESSONS: WORKSPACE_LESSONS_BUDGET} if workspace_lessons.strip() else {}
    shown = [k for k in LAYER1_KEYS if files.get(k, "").strip()]
    reserved += sum(frame_cost(MEMORY_FILES[k], count) for k in shown)
    if extra:
        reserved += frame_cost(WORKSPACE_LESSONS, count)
    budgets = budgets_for_window(window, reserved=reserved, extra=extra)
    parts = []
    for key in shown:
        hard = budgets[key].hard
        text = (
            file_view(key, files[key], hard, count) if view is None else view(key, files[key], hard)
        )
        if text:
            parts.append(f"[{MEMORY_FILES[key]}]\n{text}")
    if extra:
        hard = budgets[WORKSPACE_LESSONS].hard
        lessons = head_trim(workspace_lessons, hard, count, WORKSPACE_LESSONS_NOTE)
        parts.append(f"[{WORKSPACE_LESSONS}]\n{lessons}")
    return parts


#: Tokens a note an over-budget file's view adds beyond its hard budget may take.
NOTE_ALLOWANCE = 48


def frame_cost(name: str, count: TokenCounter) -> float:
    """What a part costs beyond its budgeted text: its ``[NAME]`` header, the blank line
    joining it and a note saying what was left out."""
    return count(f"[{name}]\n") + count("\n\n") + NOTE_ALLOWANCE


WORKSPACE_LESSONS_NOTE = (
    "\n[... older workspace lessons trimmed from this view — `orbital workspace lessons "
    "--show` (or MCP workspace_lessons) reads them all ...]"
)
