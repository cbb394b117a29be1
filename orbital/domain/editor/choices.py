"""The editor's choices document: tolerant extraction from a model reply, typed validation.

Schema (reference §8.3)::

    {"archive":    [{"file": "PROJECT_STATE.md", "id": "…", "pointer": "…"}],
     "merge":      [{"file": "DECISIONS.md", "ids": ["…", "…"], "text": "…", "pointer": "…"}],
     "close_asks": [{"id": "…", "session": "…", "quote": "…"}],
     "lessons":    [{"title": "…", "text": "…", "session": "…", "quote": "…"}],
     "index":      "<complete INDEX.md>"}

``lessons`` is beyond the reference: a lesson from the person's correction in a session, each
carrying the person's words (quote-checked like a close, :mod:`orbital.domain.editor.lessons`).

Validation here is structural only (shapes, file names, non-empty fields), item by item: a bad
item becomes a rejection reason and the rest still apply. Whether an id exists, is pinned or
already used, and the merge length rule, need the entries and are the applier's job
(:mod:`orbital.domain.editor.apply`). Unknown top-level keys are ignored, so a reply that pastes
whole files (``"decisions": "…"``) changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Literal, TypeVar, get_args

import msgspec

from orbital.catalogue import MEMORY_FILES
from orbital.grammar.text import one_line

EntryFile = Literal["state", "decisions", "lessons"]
#: The files the editor edits by id, by key; the file name and the key are both accepted.
ENTRY_FILES: dict[EntryFile, str] = {key: MEMORY_FILES[key] for key in get_args(EntryFile)}
POINTER_MAX = 200
_FILE_KEYS: dict[str, EntryFile] = {
    **{key: key for key in ENTRY_FILES},
    **{name.casefold(): key for key, name in ENTRY_FILES.items()},
}
_TRAILING_ARCHIVE = re.compile(r"\s*(?:→|->)\s*[A-Z_]+_ARCHIVE\.md\s*$")
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?|\n?\s*```\s*$")
_Choice = TypeVar("_Choice")


class ArchiveChoice(msgspec.Struct, frozen=True, kw_only=True):
    """Move one entry (or PROJECT_STATE block) to its archive, leaving a pointer line."""

    file: EntryFile
    id: str
    #: Cleaned pointer text; empty means "summarise the entry" (the applier does that).
    pointer: str = ""


class MergeChoice(msgspec.Struct, frozen=True, kw_only=True):
    """Replace several entries of one file by one shorter entry; originals go to the archive."""

    file: EntryFile
    ids: tuple[str, ...]
    text: str
    pointer: str = ""


class CloseAskChoice(msgspec.Struct, frozen=True, kw_only=True):
    """A proposed close; every field may be empty here (the quote check rejects it then)."""

    id: str = ""
    session: str = ""
    quote: str = ""


class LessonChoice(msgspec.Struct, frozen=True, kw_only=True):
    """A proposed lesson from the person's correction; fields may be empty here (the quote
    check rejects it then)."""

    title: str = ""
    #: What happened and what to do next time.
    text: str = ""
    session: str = ""
    #: The person's words in ``session`` that the lesson comes from.
    quote: str = ""


class EntryChoices(msgspec.Struct, frozen=True, kw_only=True):
    """The part of the choices that edits durable memory (applied by the entries applier)."""

    archive: tuple[ArchiveChoice, ...] = ()
    merge: tuple[MergeChoice, ...] = ()
    #: Lessons whose quote was verified (only those reach the entries applier).
    lessons: tuple[LessonChoice, ...] = ()
    #: A complete new INDEX.md, stripped-non-blank; "unchanged" is for the applier to judge.
    index: str | None = None


class Choices(msgspec.Struct, frozen=True, kw_only=True):
    entries: EntryChoices = EntryChoices()
    close_asks: tuple[CloseAskChoice, ...] = ()
    #: Proposed lessons, not yet quote-checked.
    lessons: tuple[LessonChoice, ...] = ()
    #: Items refused while reading the document, with their reasons.
    rejected: tuple[str, ...] = ()


class Applied(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One choice that took effect, as reported in the run record and by ``editor apply``."""

    kind: Literal["archive", "merge", "index", "close_ask", "lesson"]
    file: str = ""
    id: str = ""
    ids: tuple[str, ...] = ()
    session: str = ""


def extract_json_object(reply: str) -> dict[str, object] | None:
    """The JSON object a model reply carries, tolerating ``` fences and surrounding prose.

    The whole reply (fences removed) is tried first; failing that, the text from the first
    ``{`` to the last ``}``. Anything that is not an object — an array, a string — is None,
    including an object found inside an array.
    """
    text = _FENCE.sub("", reply.strip())
    try:
        whole = json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end < start or text[:start].rstrip().endswith("["):
            return None
        try:
            whole = json.loads(text[start : end + 1])
        except ValueError:
            return None
    return whole if isinstance(whole, dict) else None


def clean_pointer(text: str) -> str:
    """One line, a trailing ``→ X_ARCHIVE.md`` / ``-> X_ARCHIVE.md`` removed, cut to 200."""
    return _TRAILING_ARCHIVE.sub("", one_line(text))[:POINTER_MAX].rstrip()


def entry_file(value: object) -> EntryFile | None:
    """The key of a file the editor may edit by id (name or key, any case), else None."""
    return _FILE_KEYS.get(value.strip().casefold()) if isinstance(value, str) else None


def _text(item: Mapping[str, object], key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def _bad_file(label: str, file: object) -> str:
    if not isinstance(file, str) or not file.strip():
        return f"{label}: missing file"
    return f"{label}: {file.strip()} cannot be edited by id"


def _archive(item: object) -> ArchiveChoice | str:
    if not isinstance(item, Mapping):
        return "archive: not an object"
    entry_id = _text(item, "id").strip()
    label = f"archive {entry_id or '?'}"
    file = entry_file(item.get("file"))
    if file is None:
        return _bad_file(label, item.get("file"))
    if not entry_id:
        return f"{label}: missing id"
    return ArchiveChoice(file=file, id=entry_id, pointer=clean_pointer(_text(item, "pointer")))


def _merge(item: object) -> MergeChoice | str:
    if not isinstance(item, Mapping):
        return "merge: not an object"
    raw_ids = item.get("ids")
    ids = (
        tuple(i.strip() for i in raw_ids if isinstance(i, str)) if isinstance(raw_ids, list) else ()
    )
    label = f"merge {','.join(ids) or '?'}"
    file = entry_file(item.get("file"))
    if file is None:
        return _bad_file(label, item.get("file"))
    if (
        not isinstance(raw_ids, list)
        or len(ids) != len(raw_ids)
        or not ids
        or not all(ids)
        or len(set(ids)) != len(ids)
    ):
        return f"{label}: ids must be a non-empty list of distinct ids"
    text = _text(item, "text")
    if not text.strip():
        return f"{label}: empty text"
    return MergeChoice(file=file, ids=ids, text=text, pointer=clean_pointer(_text(item, "pointer")))


def _close(item: object) -> CloseAskChoice | str:
    if not isinstance(item, Mapping):
        return "close_asks: not an object"
    return CloseAskChoice(
        id=_text(item, "id"), session=_text(item, "session"), quote=_text(item, "quote")
    )


def _lesson(item: object) -> LessonChoice | str:
    if not isinstance(item, Mapping):
        return "lessons: not an object"
    fields = {k: _text(item, k) for k in ("title", "text", "session", "quote")}
    return LessonChoice(**fields)


def parse_choices(doc: Mapping[str, object]) -> Choices:
    """Validate a decoded choices object; bad items become rejection reasons.

    A missing or ``null`` section is empty; a section of the wrong type is one rejection.
    """
    rejected: list[str] = []

    def section(key: str, parse: Callable[[object], _Choice | str]) -> tuple[_Choice, ...]:
        value = doc.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            rejected.append(f"{key}: not a list")
            return ()
        kept: list[_Choice] = []
        for raw in value:
            choice = parse(raw)
            if isinstance(choice, str):
                rejected.append(choice)
            else:
                kept.append(choice)
        return tuple(kept)

    archive = section("archive", _archive)
    merge = section("merge", _merge)
    close_asks = section("close_asks", _close)
    lessons = section("lessons", _lesson)

    index = doc.get("index")
    if index is not None and not isinstance(index, str):
        rejected.append("index: not a string")
        index = None
    elif isinstance(index, str) and not index.strip():
        rejected.append("index: empty or unchanged")
        index = None

    return Choices(
        entries=EntryChoices(archive=archive, merge=merge, index=index),
        close_asks=close_asks,
        lessons=lessons,
        rejected=tuple(rejected),
    )
