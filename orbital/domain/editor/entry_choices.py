"""The editor's entry choices (``archive``, ``merge``, ``index``) as entry events — pure.

:class:`MemoryChoicesApplier` implements
:class:`~orbital.domain.editor.apply.EntryChoicesApplier` (reference §8.3); its rules read
the entries through the grammars (entry split, bullet blocks, pointer lines).

Binding: the service builds the applier inside the apply transaction from the memory files as
they stand then (``files`` and ``positions``, the position of the last event that changed
each file) and the ``baseline`` positions it recorded when the run started, before the model
was called. **Optimistic concurrency**: a file whose position moved since the baseline (an agent
wrote it during the run, or a hand edit was taken in) gets no events at all; its name goes to
``skipped_files`` when a choice wanted to touch it, and those choices are neither applied nor
rejected. For every other file ``files`` *is* the baseline state the model saw.

Rules, per file (merges planned before archives; an id is used at most once):

* **archive** — the id must be a live entry of that file, not pinned, not used earlier in the
  document; the entry becomes ``EntryArchived`` with the pointer line
  ``[archived <today> id:<id>] <pointer> → <NAME>_ARCHIVE.md`` (empty pointer: the entry's
  title or sentence, as the backstop writes it). Its text goes to the archive with its id.
* **merge** — every id known, live, unpinned, unused; the merged text must not be longer than
  ``1.1 * sum(len(original texts)) + 20`` (all one-lined; originals without their pointer lines).
  DECISIONS/LESSONS: the text must parse as exactly one entry of that file (no preamble); it
  becomes a new entry with id ``<slug>-m<4 hex>`` (never an id the project ever had) dated
  today, in the slot before the first original (file order), followed by a blank line and
  one pointer line carrying all original ids. PROJECT_STATE: the lines become one bullet block
  (the first original's list marker when the text has none, continuation lines indented two
  spaces) with a fresh 6-hex id. The originals become ``EntryMerged`` (the first carries the
  pointer; the others keep only their own pointer lines) and go to the archive under
  ``[merged <today> into id:<new>]`` / ``[merged <today> into: <summary>]``.
* **lessons** (verified: :mod:`orbital.domain.editor.lessons`) — each a new LESSONS entry at
  the end of the file, with the id its title slugs to (a fresh ``<slug>-<4 hex>`` when the
  project ever had it), dated today; refused when it is not exactly one LESSONS entry, when a
  live lesson has the same title (punctuation and case aside), or when it says again what a
  superseded or retracted entry said.
* **index** — a complete INDEX.md; rejected ``index: empty or unchanged`` when equal (after
  strip, format contract aside) to the current one. Every old line naming a ``*_ARCHIVE.md``
  file the new text no longer mentions is appended back verbatim, then every archive that
  has entries is made discoverable (as the backstop does). INDEX is written once, last, but
  the rewrite is decided before the other choices change the archives.

Rejections start with the section and id(s): ``archive x: pinned``, ``merge a,b: …``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from orbital.catalogue import ARCHIVE_FILES, DISPLAY, MEMORY_FILES
from orbital.domain.editor import lessons
from orbital.domain.editor.apply import EntriesOutcome
from orbital.domain.editor.choices import (
    ENTRY_FILES,
    Applied,
    ArchiveChoice,
    EntryChoices,
    EntryFile,
    LessonChoice,
    MergeChoice,
)
from orbital.domain.entries import fold_file
from orbital.domain.pointer_groups import entry_summary
from orbital.domain.trust import restated_entry
from orbital.domain.trust_fold import OUT_OF_FORCE
from orbital.events._base import Event
from orbital.events.entries import EntryArchived, EntryCreated, EntryMerged
from orbital.events.files import FileLayoutSet, Slot
from orbital.events.trust import EntrySuperseded
from orbital.grammar.durable import split_entries
from orbital.grammar.model import Entry, FileState
from orbital.grammar.parse import parse_durable_entry, proposed_body
from orbital.grammar.pointers import (
    ensure_index_mentions,
    is_pointer_line,
    pointer_line,
    pointer_summary,
)
from orbital.grammar.render import render_body
from orbital.grammar.state_blocks import parse_blocks, strip_comments_from_block
from orbital.grammar.text import one_line

INDEX_NAME = MEMORY_FILES["index"]
#: A merge may be at most this much longer than its originals together, plus :data:`SLACK`.
MERGE_GROWTH = 1.1
MERGE_SLACK = 20
#: Tries at minting an unused id before the merge is refused.
MINT_TRIES = 64
_ARCHIVE_NAME = re.compile(r"[A-Z_]+_ARCHIVE\.md")
_LIST_MARKER = re.compile(r"^(?:-|\d+[.)])\s+")


def original_text(entry: Entry, key: str) -> str:
    """What the length rule measures of an original: one line, without pointer lines."""
    if key == "state":
        blocks = parse_blocks(entry.text)
        return one_line(blocks[0].text if blocks else entry.text)
    return one_line("\n".join(ln for ln in entry.text.splitlines() if not is_pointer_line(ln)))


def keep_archive_lines(old: str, new: str) -> str:
    """``new`` with every line of ``old`` that names an archive file ``new`` no longer
    mentions appended back verbatim."""
    kept = [
        line
        for line in old.splitlines()
        if any(name not in new for name in _ARCHIVE_NAME.findall(line))
    ]
    body = new if new.endswith("\n") or not new else new + "\n"
    if not kept:
        return body
    return body + "".join(f"{line}\n" for line in kept)


@dataclass
class _File:
    """One file while its choices are planned."""

    key: EntryFile
    state: FileState
    events: list[Event] = field(default_factory=list)
    layout: list[Slot] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    touched_archive: bool = False


@dataclass(frozen=True)
class MemoryChoicesApplier:
    """The entries applier bound to the memory files (see the module docstring)."""

    #: The folded files now (keys ``state``, ``decisions``, ``lessons``, ``index``).
    files: Mapping[str, FileState]
    #: Per file, the position of the last event that changed it when the run started.
    baseline: Mapping[str, int]
    #: The same, now.
    positions: Mapping[str, int]
    #: Every entry id the project ever had (a minted id never reuses one).
    ever_used: AbstractSet[str]
    #: 4 random hex digits (``<slug>-m<4hex>`` merge ids).
    mint_suffix: Callable[[], str]
    #: A fresh PROJECT_STATE id (6 hex).
    mint_id: Callable[[], str]

    def moved(self, key: str) -> bool:
        return self.positions.get(key, 0) != self.baseline.get(key, 0)

    def __call__(self, choices: EntryChoices, today: dt.date) -> EntriesOutcome:
        events: list[Event] = []
        applied: list[Applied] = []
        rejected: list[str] = []
        skipped: list[str] = []
        minted: set[str] = set()

        index = self.files.get("index", FileState(key="index"))
        old_index = render_body(index)
        new_index: str | None = None
        if choices.index is not None:
            if self.moved("index"):
                skipped.append(INDEX_NAME)
            else:
                proposed = proposed_body(choices.index, "index")
                if not proposed.strip() or proposed.strip() == old_index.strip():
                    rejected.append("index: empty or unchanged")
                else:
                    new_index = keep_archive_lines(old_index, proposed)
                    applied.append(Applied(kind="index", file=INDEX_NAME))

        archives: list[str] = []
        for key, name in ENTRY_FILES.items():
            merges = [m for m in choices.merge if m.file == key]
            moves = [a for a in choices.archive if a.file == key]
            added = choices.lessons if key == "lessons" else ()
            if not merges and not moves and not added:
                continue
            if self.moved(key):
                skipped.append(name)
                continue
            plan = _File(key, self.files.get(key, FileState(key=key)))
            plan.layout = list(plan.state.layout)
            for merge in merges:
                verdict = self._merge(plan, merge, today, minted)
                if isinstance(verdict, str):
                    rejected.append(verdict)
                else:
                    applied.append(verdict)
            for move in moves:
                verdict = self._archive(plan, move, today)
                if isinstance(verdict, str):
                    rejected.append(verdict)
                else:
                    applied.append(verdict)
            for lesson in added:
                verdict = self._lesson(plan, lesson, today, minted)
                if isinstance(verdict, str):
                    rejected.append(verdict)
                else:
                    applied.append(verdict)
            if tuple(plan.layout) != plan.state.layout:
                plan.events.append(FileLayoutSet(file=key, slots=tuple(plan.layout)))
            events += plan.events
            if plan.touched_archive:
                archives.append(ARCHIVE_FILES[key])

        if not self.moved("index") and (new_index is not None or archives):
            text = old_index if new_index is None else new_index
            for live in ARCHIVE_FILES:
                after = fold_file(live, events, self.files.get(live, FileState(key=live)))
                if after.archive:
                    text = ensure_index_mentions(text, ARCHIVE_FILES[live])
            if text != old_index:
                events.append(FileLayoutSet(file="index", slots=(Slot(text=text),)))
        return EntriesOutcome(tuple(events), tuple(applied), tuple(rejected), tuple(skipped))

    # -- one choice -----------------------------------------------------------------------

    def _check_ids(self, plan: _File, label: str, ids: Sequence[str]) -> list[Entry] | str:
        live = plan.state.live_ids()
        found: list[Entry] = []
        for entry_id in ids:
            entry = plan.state.entries.get(entry_id)
            if entry is None or entry_id not in live:
                return f"{label}: unknown id {entry_id} in {MEMORY_FILES[plan.key]}"
            if entry_id in plan.used:
                return f"{label}: id {entry_id} already used in this document"
            if entry.pinned:
                return f"{label}: {entry_id} is pinned"
            if entry.trust.state in OUT_OF_FORCE:
                return f"{label}: {entry_id} is {entry.trust.state}: it is not merged back"
            found.append(entry)
        return sorted(found, key=lambda e: live.index(e.entry_id))

    def _archive(self, plan: _File, choice: ArchiveChoice, today: dt.date) -> Applied | str:
        label = f"archive {choice.id}"
        checked = self._check_ids(plan, label, [choice.id])
        if isinstance(checked, str):
            return checked
        entry = checked[0]
        summary = choice.pointer or entry_summary(entry, plan.key)
        pointer = pointer_line(today, [entry.entry_id], summary, ARCHIVE_FILES[plan.key])
        plan.events.append(EntryArchived(entry_id=entry.entry_id, pointer=pointer, date=today))
        plan.used.add(entry.entry_id)
        plan.touched_archive = True
        return Applied(kind="archive", file=MEMORY_FILES[plan.key], id=entry.entry_id)

    def _merge(
        self, plan: _File, choice: MergeChoice, today: dt.date, minted: set[str]
    ) -> Applied | str:
        label = f"merge {','.join(choice.ids)}"
        checked = self._check_ids(plan, label, choice.ids)
        if isinstance(checked, str):
            return checked
        try:
            if plan.key == "state":
                text, sentence, base = _state_text(checked[0], choice.text)
            else:
                text, sentence, base = _durable_text(plan.key, choice.text)
        except _Refused as refused:
            return f"{label}: {refused.reason}"
        back = restated_entry(self.files, plan.key, text, frozenset(choice.ids), out_of_force=True)
        if back is not None:
            return (
                f"{label}: the merged text says again what {back.entry_id} said, which is "
                f"{back.trust.state}: it is not merged back"
            )
        limit = MERGE_GROWTH * sum(len(original_text(e, plan.key)) for e in checked)
        limit += MERGE_SLACK
        if len(one_line(sentence)) > limit:
            return (
                f"{label}: the merged text is longer than the originals "
                f"({len(one_line(sentence))} > {int(limit)} chars)"
            )
        new_id = self._mint(base, minted)
        if new_id is None:
            return f"{label}: could not mint an unused id"
        minted.add(new_id)
        summary = choice.pointer or (
            pointer_summary(sentence) if plan.key == "state" else pointer_summary(base_title(text))
        )
        pointer = pointer_line(today, choice.ids, summary, ARCHIVE_FILES[plan.key])
        plan.events.append(
            EntryCreated(file=plan.key, entry_id=new_id, text=text, created=today, touched=today)
        )
        first = checked[0].entry_id
        for entry in checked:
            shown = pointer if entry.entry_id == first else ""
            plan.events.append(
                EntryMerged(entry_id=entry.entry_id, into=new_id, date=today, pointer=shown)
            )
            plan.events.append(EntrySuperseded(entry_id=entry.entry_id, by=(new_id,), date=today))
        at = next(i for i, s in enumerate(plan.layout) if s.entry == first)
        plan.layout.insert(at, Slot(entry=new_id))
        plan.used.update(choice.ids)
        plan.touched_archive = True
        return Applied(kind="merge", file=MEMORY_FILES[plan.key], id=new_id, ids=choice.ids)

    def _lesson(
        self, plan: _File, choice: LessonChoice, today: dt.date, minted: set[str]
    ) -> Applied | str:
        name = lessons.label(choice)
        try:
            text = _durable_text(plan.key, lessons.lesson_text(choice))[0].rstrip("\n") + "\n"
        except _Refused as refused:
            return f"{name}: {refused.reason}"
        parsed = parse_durable_entry(text, plan.key)
        for entry_id in plan.state.live_ids():
            entry = plan.state.entries[entry_id]
            if entry_id not in plan.used and _slug_of(entry, plan.key) == parsed.base_id:
                return f"{name}: {MEMORY_FILES[plan.key]} already has this lesson ({entry_id})"
        back = restated_entry(self.files, plan.key, text, out_of_force=True)
        if back is not None:
            return f"{name}: it says again what {back.entry_id} said, which is {back.trust.state}"
        taken = self.ever_used | minted | {i for f in self.files.values() for i in f.entries}
        new_id = parsed.base_id if parsed.base_id not in taken else None
        new_id = new_id or self._mint(parsed.base_id + "-", minted)
        if new_id is None:
            return f"{name}: could not mint an unused id"
        minted.add(new_id)
        plan.events.append(
            EntryCreated(file=plan.key, entry_id=new_id, text=text, created=today, touched=today)
        )
        plan.layout.append(Slot(entry=new_id))
        return Applied(
            kind="lesson", file=MEMORY_FILES[plan.key], id=new_id, session=choice.session
        )

    def _mint(self, base: str, minted: set[str]) -> str | None:
        taken = self.ever_used | minted | {i for f in self.files.values() for i in f.entries}
        for _ in range(MINT_TRIES):
            candidate = f"{base}{self.mint_suffix()}" if base else self.mint_id()
            if candidate not in taken:
                return candidate
        return None


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _durable_text(key: str, text: str) -> tuple[str, str, str]:
    """``(entry text, measured text, id base)`` of a DECISIONS/LESSONS merge."""
    split = split_entries(text.strip("\n") + "\n", key)
    if split is None or split[0].strip() or len(split[1]) != 1:
        raise _Refused(f"the text must be exactly one {DISPLAY[key]} entry")
    parsed = parse_durable_entry(split[1][0], key)
    return parsed.text.rstrip("\n") + "\n\n", parsed.text, parsed.base_id + "-m"


def _state_text(first: Entry, text: str) -> tuple[str, str, str]:
    """``(block text, sentence, "")`` of a PROJECT_STATE merge (the id is minted)."""
    lines = [ln.strip() for ln in strip_comments_from_block(text).splitlines() if ln.strip()]
    if not lines:
        raise _Refused("empty text")
    if not _LIST_MARKER.match(lines[0]):
        marker = _LIST_MARKER.match(first.text)
        lines[0] = (marker.group(0) if marker else "- ") + lines[0]
    block = "\n".join([lines[0], *(f"  {ln}" for ln in lines[1:])]) + "\n"
    blocks = parse_blocks(block)
    if len(blocks) != 1:
        raise _Refused("the text must be one PROJECT_STATE bullet")
    return block, blocks[0].text, ""


def _slug_of(entry: Entry, key: str) -> str:
    """What a title comes to once punctuation and case are set aside (its id's base)."""
    return parse_durable_entry(entry.text, key).base_id


def base_title(text: str) -> str:
    """The title of a DECISIONS/LESSONS entry text, without its marker."""
    first = text.partition("\n")[0]
    return re.sub(r"^(?:##\s+|\d+\.\s+)", "", first)
