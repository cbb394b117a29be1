"""What the person's form proposes (the Workbench's "add a decision or lesson" and "change
it"): the memory file's text with one entry added or rewritten. The form holds no rule of
its own: the text it builds is decided by the write path like any whole-file write (ids,
budgets, growth, secrets, supersedes), against the version the text was built from.
"""

from __future__ import annotations

import re

from orbital.errors import InvalidInput, UnknownEntry
from orbital.grammar.durable import MARKERS, parse_title_line, render_title_comment, split_entries
from orbital.grammar.pointers import is_pointer_line

#: The files a form adds to: their entries have a title line and a body.
FORM_FILES = ("decisions", "lessons")
_STARTS = {key: re.compile(MARKERS[key]) for key in FORM_FILES}


def _lines(key: str, title: str, body: str) -> tuple[str, list[str]]:
    """The entry's title (one line) and its body's lines as the file holds them (a lesson's
    indented under its number)."""
    if key not in FORM_FILES:
        raise InvalidInput(f"a form adds a decision or a lesson, not {key!r}")
    title = " ".join(title.split())
    if not title:
        raise InvalidInput("an entry needs a title")
    lines = body.replace("\r\n", "\n").strip("\n").split("\n") if body.strip() else []
    starts = [line for line in lines if _STARTS[key].match(line)]
    if starts:
        raise InvalidInput(
            f"a line of the body would start another entry: {starts[0]!r}; add it on its own"
        )
    if key == "lessons":
        lines = [f"   {line.strip()}" if line.strip() else "" for line in lines]
    return title, lines


def with_new_entry(text: str, key: str, title: str, body: str) -> str:
    """``text`` (a file's current text) with a new entry last."""
    title, lines = _lines(key, title, body)
    split = split_entries(text, key)
    if key == "decisions":
        head, gap = f"## {title}", "\n\n"
    else:
        head, gap = f"{len(split[1]) + 1 if split else 1}. {title}", "\n"
    return text.rstrip("\n") + gap + "\n".join([head, *lines]) + "\n"


def with_entry_changed(text: str, key: str, entry_id: str, title: str, body: str) -> str:
    """``text`` with entry ``entry_id``'s title and body replaced (its id comment, marker
    and the pointer lines after it kept)."""
    title, lines = _lines(key, title, body)
    preamble, entries = split_entries(text, key) or (text, [])
    for i, chunk in enumerate(entries):
        first, _, rest = chunk.partition("\n")
        shown, fields = parse_title_line(first)
        if fields.get("id") != entry_id:
            continue
        marker = _STARTS[key].match(shown)
        assert marker is not None  # every chunk starts at a marker
        old = rest.splitlines(keepends=True)
        kept = next((j for j, line in enumerate(old) if is_pointer_line(line)), len(old))
        body_part, tail = "".join(old[:kept]), "".join(old[kept:])
        trailing = body_part[len(body_part.rstrip("\n")) :]
        extra = trailing[1:] if body_part.strip() else body_part
        head = f"{marker.group()}{title} {render_title_comment(fields)}"
        entries[i] = "\n".join([head, *lines]) + "\n" + extra + tail
        return preamble + "".join(entries)
    raise UnknownEntry(entry_id)
