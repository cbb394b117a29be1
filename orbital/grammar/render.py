"""Render a folded file state to the exact text Orbital writes, and its ``*_ARCHIVE.md``.

Entries carry the reference's id comments so upstream tools read the files unchanged:
DECISIONS/LESSONS on the title line, PROJECT_STATE on the line under the bullet.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping

from orbital.catalogue import ARCHIVE_FILES
from orbital.events.files import Slot
from orbital.grammar.durable import render_title_comment, renumber
from orbital.grammar.memory_files import FORMAT_HEADERS
from orbital.grammar.model import Entry, FileState
from orbital.grammar.pointers import is_pointer_line, pointer_summary
from orbital.grammar.state_blocks import parse_blocks, render_block


def comment_fields(entry: Entry) -> dict[str, str]:
    """The entry's id-comment fields (render order is the grammar's business)."""
    return _fields(entry.entry_id, entry.meta, entry.created, entry.touched)


def _fields(
    entry_id: str, meta: Mapping[str, str], created: dt.date, touched: dt.date
) -> dict[str, str]:
    return {"id": entry_id, **meta, "created": created.isoformat(), "touched": touched.isoformat()}


def render_entry(entry: Entry, key: str, number: int | None = None) -> str:
    """The entry as it stands in the live file (LESSONS numbered ``number`` when given)."""
    return _rendered(
        entry.text,
        key,
        number if key == "lessons" else None,
        entry.entry_id,
        entry.created,
        entry.touched,
        tuple(entry.meta.items()),
    )


@functools.lru_cache(maxsize=4096)
def _rendered(
    text: str,
    key: str,
    number: int | None,
    entry_id: str,
    created: dt.date,
    touched: dt.date,
    meta: tuple[tuple[str, str], ...],
) -> str:
    """:func:`render_entry` of everything it reads, kept by it: a whole-file write renders
    every entry of the file again, nearly all of them as the last write rendered them."""
    fields = _fields(entry_id, dict(meta), created, touched)
    if key == "state":
        return render_block(text, fields)
    first, newline, rest = text.partition("\n")
    if number is not None:
        first = renumber(first, number)
    return f"{first} {render_title_comment(fields)}{newline}{rest}"


def render_pointer_slot(entry: Entry, key: str) -> str:
    """What an archived/merged entry's slot shows: its pointer, then (DECISIONS/LESSONS) the
    pointer lines it carried and its trailing newlines, so the file keeps its spacing."""
    if entry.pointer_dropped:
        return ""
    if key == "state":
        return entry.pointer + ("\n" if entry.text.endswith("\n") and entry.pointer else "")
    carried = [line for line in entry.text.splitlines()[1:] if is_pointer_line(line)]
    shown = [entry.pointer, *carried] if entry.pointer else carried
    if not shown:
        return ""  # a merged entry whose merge pointer stands in another slot
    trailing = entry.text[len(entry.text.rstrip("\n")) :]
    return "\n".join(shown) + trailing


def _slot_texts(state: FileState) -> list[str]:
    out: list[str] = []
    number = 0
    for slot in state.layout:
        entry = state.entries.get(slot.entry) if slot.entry else None
        if entry is not None and entry.status == "live":
            number += 1
        out.append(_render_slot(state, slot, number))
    return out


def _render_slot(state: FileState, slot: Slot, number: int) -> str:
    if not slot.entry:
        return slot.text
    entry = state.entries.get(slot.entry)
    if entry is None or entry.status == "retired":
        return ""
    if entry.status == "live":
        text = render_entry(entry, state.key, number)
        if slot.spacing is not None:
            text = text[: len(text.rstrip())] + slot.spacing
        return text
    return render_pointer_slot(entry, state.key)


def render_slots(state: FileState) -> list[str]:
    """The body piece by piece (raw as-is content is one piece); used for cached measures."""
    if state.raw is not None:
        return [state.raw]
    return _slot_texts(state)


def render_body(state: FileState) -> str:
    """The file without its format contract."""
    return "".join(render_slots(state))


def render_file(state: FileState) -> str:
    """The exact text of the live file: current format contract on line 1, then the body."""
    return FORMAT_HEADERS[state.key] + "\n" + render_body(state)


def archive_body(entry: Entry, key: str) -> str:
    """How a demoted entry reads in the archive: with its id comment, without pointer lines."""
    text = render_entry(entry, key)
    if key != "state":
        text = "".join(line for line in text.splitlines(keepends=True) if not is_pointer_line(line))
    return text.rstrip("\n") + "\n"


def merge_header(state: FileState, entry: Entry, day: str) -> str:
    """The line heading the originals of one editor merge in the archive (reference §8.3):
    ``[merged <day> into id:<new>]`` and a blank line (DECISIONS/LESSONS), or
    ``[merged <day> into: <summary>]`` (PROJECT_STATE)."""
    if state.key != "state":
        return f"[merged {day} into id:{entry.merged_into}]\n\n"
    into = state.entries.get(entry.merged_into)
    blocks = parse_blocks(into.text) if into is not None else []
    summary = pointer_summary(blocks[0].text if blocks else entry.merged_into, 80)
    return f"[merged {day} into: {summary}]\n"


def render_archive(state: FileState) -> str:
    """``*_ARCHIVE.md``: header line, blank line, one section per demotion day ("" if none)."""
    if state.key not in ARCHIVE_FILES:
        return ""
    groups: list[tuple[str, list[str]]] = []
    merge_of: str | None = None
    for entry_id in state.archive:
        entry = state.entries[entry_id]
        day = entry.archived_on.isoformat() if entry.archived_on else ""
        if not groups or groups[-1][0] != day:
            groups.append((day, []))
            merge_of = None
        body = archive_body(entry, state.key)
        if entry.status != "merged":
            merge_of = None
        elif merge_of == entry.merged_into:
            groups[-1][1][-1] += ("\n" if state.key != "state" else "") + body
            continue
        else:
            merge_of = entry.merged_into
            body = merge_header(state, entry, day) + body
        groups[-1][1].append(body)
    if not groups:
        return ""
    verb = "trimmed" if state.key == "state" else "archived"
    name = ARCHIVE_FILES[state.key]
    sections = [f"## [{verb} {day}]\n\n" + "\n".join(bodies) for day, bodies in groups]
    return f"# {name} (archived entries, read-on-demand)\n\n" + "\n".join(sections)
