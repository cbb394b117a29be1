"""The decider for a writer's full-file rewrite: which entry and layout events it means.

Ids survive a rewrite that stripped the id comments: DECISIONS/LESSONS entries re-attach by
their own id, then by normalised title; PROJECT_STATE lines by exact ``match_key`` (§5.3 of the
reference). Every previous entry is claimed at most once, so duplicates get distinct ids, and a
new id never reuses one the project ever had. Entries the rewrite dropped are retired, not lost.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet

import msgspec

from orbital.catalogue import DISPLAY
from orbital.clock import day_or_none
from orbital.domain.pointer_groups import regroup_after_restore
from orbital.domain.rewording import pair_rewordings
from orbital.domain.trust_fold import OUT_OF_FORCE, out_of_force_why
from orbital.events._base import Event
from orbital.events.entries import (
    EntryCreated,
    EntryMetaSet,
    EntryPinned,
    EntryRestored,
    EntryRetired,
    EntryRetitled,
    EntryRevised,
    EntryTouched,
)
from orbital.events.files import FileLayoutSet, FileStoredRaw, Slot
from orbital.grammar.model import Carved, Entry, FileState, ParsedDoc, ParsedEntry
from orbital.grammar.render import comment_fields

_DATE_KEYS = ("id", "created", "touched")


class Decision(msgspec.Struct, frozen=True):
    """Events to append (in order) and warnings for the writer."""

    events: tuple[Event, ...] = ()
    warnings: tuple[str, ...] = ()


class _Plan(msgspec.Struct):
    """How one proposed entry is recorded: matched, restored or new, with its comment fields."""

    entry_id: str
    kind: str  # "match" | "reword" | "restore" | "new"
    fields: dict[str, str] = msgspec.field(default_factory=dict)


def _meta(fields: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in fields.items() if k not in _DATE_KEYS}


def _entries(doc: ParsedDoc) -> Iterator[tuple[int, ParsedEntry]]:
    for i, piece in enumerate(doc.pieces):
        if isinstance(piece, ParsedEntry):
            yield i, piece


class _Ids:
    """Id bookkeeping for one write: what is taken, what this write has used."""

    def __init__(self, state: FileState, ever_used: AbstractSet[str]) -> None:
        self.taken = set(ever_used) | set(state.entries)
        self.used: set[str] = set()

    def fresh_slug(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self.taken or candidate in self.used:
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    def fresh_minted(self, mint: Callable[[], str]) -> str:
        candidate = mint()
        while candidate in self.taken or candidate in self.used:
            candidate = mint()
        return candidate


def _plan_durable(state: FileState, doc: ParsedDoc, live: list[str], ids: _Ids) -> dict[int, _Plan]:
    """DECISIONS/LESSONS: own id first (whole write), then first unclaimed same title."""
    plans: dict[int, _Plan] = {}
    claimed: set[str] = set()
    for i, p in _entries(doc):
        own = p.fields.get("id", "")
        if own in live and own not in claimed:
            plans[i] = _Plan(own, "match")
            claimed.add(own)
    for i, p in _entries(doc):
        if i in plans:
            continue
        for lid in live:
            if lid not in claimed and doc.previous[lid].match == p.match:
                plans[i] = _Plan(lid, "match")
                claimed.add(lid)
                break
    ids.used |= claimed
    for i, p in _entries(doc):
        if i in plans:
            continue
        own = p.fields.get("id", "")
        if own and own not in ids.used and own in state.entries:
            plans[i] = _Plan(own, "restore", dict(p.fields))
        elif own and own not in ids.used and own not in ids.taken:
            plans[i] = _Plan(own, "new", dict(p.fields))
        else:
            tag = {"tag": p.fields["tag"]} if p.fields.get("tag") else {}
            plans[i] = _Plan(ids.fresh_slug(p.base_id), "new", tag)
        ids.used.add(plans[i].entry_id)
    return plans


def _plan_state(
    state: FileState,
    doc: ParsedDoc,
    live: list[str],
    ids: _Ids,
    mint: Callable[[], str],
) -> dict[int, _Plan]:
    """PROJECT_STATE (§5.3): own id with the same match_key (writer's fields win), else the
    first unclaimed line with the same match_key; then a line reworded keeps the id of the
    leftover line it rewords (:mod:`orbital.domain.rewording`); else a foreign id kept, else a
    fresh id."""
    plans: dict[int, _Plan] = {}
    claimed: set[str] = set()
    leftover: list[int] = []
    foreign_seen: set[str] = set()
    for i, p in _entries(doc):
        own = p.fields.get("id", "")
        foreign = bool(own) and own not in live and own not in foreign_seen
        if foreign:
            foreign_seen.add(own)
        if (
            own in live
            and own not in claimed
            and own not in ids.used
            and doc.previous[own].match == p.match
        ):
            plans[i] = _Plan(own, "match", {**comment_fields(state.entries[own]), **p.fields})
        elif not foreign:
            free = (i for i in live if i not in claimed and i not in ids.used)
            lid = next((i for i in free if doc.previous[i].match == p.match), None)
            if lid is not None:
                plans[i] = _Plan(lid, "match", comment_fields(state.entries[lid]))
        if i in plans:
            claimed.add(plans[i].entry_id)
            ids.used.add(plans[i].entry_id)
        else:
            leftover.append(i)
    for i, lid in _rewordings(doc, live, claimed | ids.used, leftover).items():
        plans[i] = _Plan(lid, "reword", comment_fields(state.entries[lid]))
        claimed.add(lid)
        ids.used.add(lid)
    for i in leftover:
        if i in plans:
            continue
        piece = doc.pieces[i]
        assert isinstance(piece, ParsedEntry)
        own = piece.fields.get("id", "")
        foreign = bool(own) and own not in live and own not in ids.used
        if foreign and own in state.entries:
            plans[i] = _Plan(own, "restore", dict(piece.fields))
        elif foreign and own not in ids.taken:
            plans[i] = _Plan(own, "new", dict(piece.fields))
        else:
            plans[i] = _Plan(ids.fresh_minted(mint), "new", {})
        ids.used.add(plans[i].entry_id)
    return plans


def _rewordings(
    doc: ParsedDoc, live: list[str], taken: AbstractSet[str], leftover: list[int]
) -> dict[int, str]:
    """Leftover new lines that reword a leftover live line (a foreign id is not a rewording:
    it names the entry it restores)."""
    order = {i: n for n, (i, _) in enumerate(_entries(doc))}
    earlier = {lid: (n, doc.previous[lid].match) for n, lid in enumerate(live) if lid not in taken}
    later = []
    for i in leftover:
        p = doc.pieces[i]
        assert isinstance(p, ParsedEntry)
        own = p.fields.get("id", "")
        if not own or own in live:
            later.append((order[i], p.match))
    paired = pair_rewordings(earlier, later)
    by_order = {n: i for i, n in order.items()}
    return {by_order[n]: lid for n, lid in paired.items()}


def _matched_durable(
    entry: Entry, old: ParsedEntry, p: ParsedEntry, plan: _Plan, today: dt.date
) -> list[Event]:
    events: list[Event] = []
    eid = entry.entry_id
    # Whitespace between entries is no revision (an equal shape, the most common, is one test).
    if p.shape != old.shape and p.shape.rstrip() != old.shape.rstrip():
        if p.body != old.body:
            events.append(EntryRevised(entry_id=eid, text=p.text, touched=today))
        elif p.title != old.title:
            events.append(EntryRetitled(entry_id=eid, text=p.text))
        else:
            events.append(EntryRevised(entry_id=eid, text=p.text))
    tag = p.fields.get("tag", "")
    if tag and tag != entry.meta.get("tag"):
        if tag == "pinned":
            events.append(EntryPinned(entry_id=eid))
        else:
            events.append(EntryMetaSet(entry_id=eid, meta={**entry.meta, "tag": tag}))
    return events


def _trailing(text: str) -> str:
    return text[len(text.rstrip()) :]


def _spacing(entry: Entry, p: ParsedEntry, events: list[Event]) -> str | None:
    """The whitespace the writer left after a matched entry, when it is not the end of the
    entry's text after ``events`` (recorded in the layout, not as a revision)."""
    revised = any(isinstance(e, EntryRevised | EntryRetitled) for e in events)
    after = p.text if revised else entry.text
    if p.text == after:  # the entry as it was (most of a whole-file write): its own end
        return None
    return None if _trailing(p.text) == _trailing(after) else _trailing(p.text)


def _matched_state(
    entry: Entry, old: ParsedEntry, p: ParsedEntry, plan: _Plan, today: dt.date
) -> list[Event]:
    events: list[Event] = []
    eid = entry.entry_id
    if plan.kind == "reword":
        return [EntryRevised(entry_id=eid, text=p.text, touched=today)]
    if p.shape != old.shape:
        events.append(EntryRevised(entry_id=eid, text=p.text))
    created = day_or_none(plan.fields.get("created")) or entry.created
    touched = day_or_none(plan.fields.get("touched")) or entry.touched
    if (created, touched) != (entry.created, entry.touched):
        new_created = created if created != entry.created else None
        events.append(EntryTouched(entry_id=eid, touched=touched, created=new_created))
    meta = _meta(plan.fields)
    if meta != dict(entry.meta):
        events.append(EntryMetaSet(entry_id=eid, meta=meta))
    return events


def _restored(entry: Entry, p: ParsedEntry, plan: _Plan, today: dt.date) -> list[Event]:
    events: list[Event] = [EntryRestored(entry_id=entry.entry_id, date=today)]
    if p.text != entry.text:
        events.append(EntryRevised(entry_id=entry.entry_id, text=p.text, touched=today))
    meta = {**entry.meta, **_meta(plan.fields)}
    if meta != dict(entry.meta):
        events.append(EntryMetaSet(entry_id=entry.entry_id, meta=meta))
    return events


def _created(key: str, p: ParsedEntry, plan: _Plan, today: dt.date) -> EntryCreated:
    created = day_or_none(plan.fields.get("created")) or today
    touched = day_or_none(plan.fields.get("touched")) or created
    return EntryCreated(
        file=key,
        entry_id=plan.entry_id,
        text=p.text,
        created=created,
        touched=touched,
        meta=_meta(plan.fields),
    )


def decide_write(
    state: FileState,
    doc: ParsedDoc,
    today: dt.date,
    *,
    mint: Callable[[], str],
    ever_used: AbstractSet[str],
) -> Decision:
    """Events that make ``state`` render ``doc``; none when the write changes nothing.

    ``mint`` returns a fresh random id (6 lowercase hex for PROJECT_STATE); it is retried until
    the id is neither in ``ever_used`` (every id the project ever had) nor used in this write.
    """
    live = state.live_ids() if state.raw is None else []
    today_retire = [EntryRetired(entry_id=i, date=today) for i in live]
    if doc.stored_raw is not None:
        raw_events: list[Event] = list(today_retire)
        if state.raw != doc.stored_raw:
            raw_events.append(FileStoredRaw(file=state.key, text=doc.stored_raw))
        return Decision(tuple(raw_events), doc.warnings)

    ids = _Ids(state, ever_used)
    if state.key == "state":
        plans = _plan_state(state, doc, live, ids, mint)
    else:
        plans = _plan_durable(state, doc, live, ids)

    held_out = {
        p.entry_id
        for p in plans.values()
        if p.kind == "restore" and state.entries[p.entry_id].trust.state in OUT_OF_FORCE
    }
    carved = {piece.entry_id for piece in doc.pieces if isinstance(piece, Carved)}
    kept = {p.entry_id for p in plans.values()} - held_out
    events: list[Event] = []
    slots: list[Slot] = []
    warnings = list(doc.warnings)
    for i, piece in enumerate(doc.pieces):
        if isinstance(piece, str):
            slots.append(Slot(text=piece))
            continue
        if isinstance(piece, Carved):
            if piece.entry_id not in kept:  # a pasted-back entry wins over its pointer
                slots.append(Slot(entry=piece.entry_id))
            continue
        plan = plans[i]
        if plan.entry_id in held_out:
            held = state.entries[plan.entry_id]
            warnings.append(_held_out(state.key, held))
            if held.status == "archived" and held.entry_id not in carved:
                # its pointer, where the text was, with the blank lines the text ended with
                slots.append(Slot(entry=held.entry_id))
                if blank := _trailing(piece.text)[len(_trailing(held.text)) :]:
                    slots.append(Slot(text=blank))
            continue
        if plan.kind == "new":
            slots.append(Slot(entry=plan.entry_id))
            events.append(_created(state.key, piece, plan, today))
            continue
        entry = state.entries[plan.entry_id]
        spacing = None
        if plan.kind == "restore":
            events.extend(_restored(entry, piece, plan, today))
        elif state.key == "state":
            old = doc.previous[entry.entry_id]
            events.extend(_matched_state(entry, old, piece, plan, today))
        else:
            matched = _matched_durable(entry, doc.previous[entry.entry_id], piece, plan, today)
            events.extend(matched)
            spacing = _spacing(entry, piece, matched)
        slots.append(Slot(entry=plan.entry_id, spacing=spacing))
    events.extend(r for r in today_retire if r.entry_id not in kept)
    restored = {p.entry_id for p in plans.values() if p.kind == "restore"} - held_out
    if restored:
        regroup, layout = regroup_after_restore(state, restored, slots)
        events.extend(regroup)
        slots = list(layout)
    if state.raw is not None or tuple(slots) != state.layout:
        events.append(FileLayoutSet(file=state.key, slots=tuple(slots)))
    return Decision(tuple(events), tuple(warnings))


def _held_out(key: str, entry: Entry) -> str:
    """A write that names a superseded or retracted entry by its id comment does not bring it
    back: that is the person's reaffirm, or a new entry saying why (warned and linked)."""
    return (
        f"{DISPLAY[key]}: {entry.entry_id} was {out_of_force_why(entry.trust)}; the write does "
        "not bring it back (it stays in the archive). The person can reaffirm it; to say it "
        "again, write a new entry without its id comment and say why"
    )
