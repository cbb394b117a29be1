"""Asks: the record, the fold, and the deciders for every way an ask changes.

Pure: time ("today") and id minting are arguments. The fold follows the reference (§6.4):
an ask's state is its last event. The deciders return events to append and never touch
storage; the agent write path over ASKS.md text (``orbital/domain/asks_write.py``) is built on the
agent deciders here.
"""

from __future__ import annotations

import datetime as dt
import functools
import random
import re
from collections.abc import Callable, Container, Iterable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Literal

import msgspec

from orbital.domain.layered import Layered
from orbital.domain.lazy_meanings import IndexBuilder, LazyMeaningIndex, build_meaning_index
from orbital.domain.quotes import UserWords, quoted, reopen_refusal
from orbital.events import Actor, Event
from orbital.events.asks import (
    AskClosed,
    AskOpened,
    AskReopenDeclined,
    AskReopened,
    AskReopenProposed,
)
from orbital.grammar.text import norm, one_line

if TYPE_CHECKING:
    pass

AskState = Literal["open", "done", "dropped"]
CloseKind = Literal["done", "dropped"]
#: Returns a candidate id (6 lowercase hex); callers retry until it is unused.
Minter = Callable[[], str]

_QUOTES = ('"', "\u201c", "\u201d", "\u300c", "\u300d", "\u300e", "\u300f")
_NON_WORD = re.compile(r"[\W_]+")
_HEX6 = re.compile(r"[0-9a-f]{6}")


class Ask(msgspec.Struct, frozen=True, gc=False):
    """One ask as of its last event. ``seq`` orders events (the store's global position).

    A msgspec Struct: asks are materialised and snapshotted as JSON, and tens of thousands
    decode several times faster than dataclasses would; they hold no references to other
    objects, so the garbage collector need not track them (``gc=False``)."""

    id: str
    text: str
    due: str | None
    opened: dt.date
    state: AskState
    updated: dt.date
    closed_by: str | None
    note: str
    seq: int
    #: The quote of an agent's close or reopen was found in its session's transcript.
    verified: bool = False
    #: The words of a reopen held for the person (:class:`AskReopenProposed`), while it waits.
    proposal: str | None = None
    #: Who reopened an open ask (``None``: opened, never reopened).
    reopened_by: str | None = None
    #: The dropped asks the agent said this one differs from when it opened it.
    distinct_from: tuple[str, ...] = ()


Asks = Mapping[str, Ask]


@functools.lru_cache(maxsize=1 << 16)
def fuzzy_key(text: str) -> str:
    """Lowercase with every run of non-word characters removed (for the dropped refusal)."""
    return _NON_WORD.sub("", text.lower())


def is_hex_id(value: str) -> bool:
    return _HEX6.fullmatch(value) is not None


def random_minter(rng: random.Random) -> Minter:
    """A minter drawing 6-hex ids from ``rng`` (seed it for reproducible ids)."""
    return lambda: f"{rng.getrandbits(24):06x}"


def mint_id(mint: Minter, taken: Container[str], attempts: int = 10_000) -> str:
    """Draw ids from ``mint`` until one is not ``taken``: an id is never reused."""
    for _ in range(attempts):
        candidate = mint()
        if candidate not in taken:
            return candidate
    raise RuntimeError(f"the id minter produced no unused id in {attempts} attempts")


def fold(events: Iterable[tuple[int, Event]], initial: Asks | None = None) -> dict[str, Ask]:
    """Apply ``(seq, event)`` pairs in order; the result keeps first-appearance order.

    Events that are not ask events, opens without text and events for unknown ids are ignored.
    A second open of a known id acts as a reopen (the first open's text and due are kept).
    """
    asks = dict(initial or {})
    fold_into(asks, events)
    return asks


def fold_into(asks: MutableMapping[str, Ask], events: Iterable[tuple[int, Event]]) -> list[Ask]:
    """:func:`fold`, writing into ``asks`` (a write's own overlay, so that folding a few
    events never copies every known ask); returns the asks the events changed, in order."""
    changed: list[Ask] = []
    for seq, event in events:
        after = _evolve(asks, seq, event)
        if after is not None:
            asks[after.id] = after
            changed.append(after)
    return changed


def _evolve(asks: Asks, seq: int, event: Event) -> Ask | None:
    """The ask one event leaves behind (``None``: the event changes no ask)."""
    if isinstance(event, AskOpened):
        if not event.text:
            return None
        known = asks.get(event.ask_id)
        if known is not None:
            return msgspec.structs.replace(
                known,
                state="open",
                closed_by=None,
                note="",
                updated=event.date,
                seq=seq,
                verified=False,
                proposal=None,
                reopened_by=None,
            )
        return Ask(
            id=event.ask_id,
            text=event.text,
            due=event.due,
            opened=event.date,
            state="open",
            updated=event.date,
            closed_by=None,
            note="",
            seq=seq,
            distinct_from=event.distinct_from,
        )
    if not isinstance(event, AskClosed | AskReopened | AskReopenProposed | AskReopenDeclined):
        return None
    known = asks.get(event.ask_id)
    if known is None:
        return None
    if isinstance(event, AskReopenProposed | AskReopenDeclined):
        proposal = event.note if isinstance(event, AskReopenProposed) else None
        return msgspec.structs.replace(known, proposal=proposal, seq=seq)
    if isinstance(event, AskClosed):
        return msgspec.structs.replace(
            known,
            state=event.kind,
            closed_by=event.by or "agent",
            note=event.note,
            updated=event.date,
            seq=seq,
            verified=event.verified,
            proposal=None,
            reopened_by=None,
        )
    return msgspec.structs.replace(
        known,
        state="open",
        closed_by=None,
        note=event.note,
        updated=event.date,
        seq=seq,
        verified=event.verified,
        proposal=None,
        reopened_by=event.by or "agent",
    )


#: The refusals' indexes an ask is filed in: open by its text; dropped by its text, and by its
#: text without punctuation (:func:`fuzzy_key`).
OPEN, DROPPED, LOOSE = "open", "dropped", "loose"


def filed(ask: Ask) -> list[tuple[str, str]]:
    """Where the refusals look ``ask`` up, as ``(index, key)``: the one rule the in-memory
    indexes below and the store's keys (``orbital/service/_stream_keys.py``) both file by."""
    if ask.state == "open":
        return [(OPEN, norm(ask.text))]
    if ask.state == "dropped":
        loose = fuzzy_key(ask.text)
        return [(DROPPED, norm(ask.text)), *([(LOOSE, loose)] if loose else [])]
    return []


def _filed_as(ask: Ask, index: str) -> str | None:
    return next((key for kind, key in filed(ask) if kind == index), None)


class OpenIndex(msgspec.Struct, frozen=True):
    """The open asks by normalised text (then by id, in the order they became open), for the
    duplicate-open refusal: a lookup instead of a scan of every ask. A key whose asks all
    closed maps to an empty mapping."""

    by_text: Layered[str, Mapping[str, Ask]] = msgspec.field(default_factory=Layered)

    def first(self, key: str) -> Ask | None:
        found = self.by_text.get(key)
        return next(iter(found.values())) if found else None

    def changed(self, asks: Iterable[Ask]) -> OpenIndex:
        """The index once ``asks`` hold these states. An ask's text never changes, so each
        stays under one key: only the keys of the changed asks are rebuilt."""
        updates: dict[str, dict[str, Ask]] = {}
        for ask in asks:
            key = norm(ask.text)
            by_id = updates.get(key)
            if by_id is None:
                by_id = updates[key] = dict(self.by_text.get(key, {}))
            by_id.pop(ask.id, None)
            if _filed_as(ask, OPEN) is not None:
                by_id[ask.id] = ask
        return OpenIndex(self.by_text.updated(updates.items())) if updates else self


def index_open(asks: Asks) -> OpenIndex:
    by_text: dict[str, dict[str, Ask]] = {}
    for ask in asks.values():
        key = _filed_as(ask, OPEN)
        if key is not None:
            by_text.setdefault(key, {})[ask.id] = ask
    return OpenIndex(Layered(dict[str, Mapping[str, Ask]](by_text)))


def open_with_text(asks: Asks, text: str, index: OpenIndex | None = None) -> Ask | None:
    """The currently open ask whose normalised text equals ``text``'s, if any. ``index``
    (describing ``asks``) makes it a lookup, not a scan."""
    key = norm(text)
    if index is not None:
        return index.first(key)
    return next((a for a in asks.values() if _filed_as(a, OPEN) == key), None)


def _layered(found: Mapping[str, Ask], items: Iterable[tuple[str, Ask]]) -> Layered[str, Ask]:
    """``found`` with ``items`` over it (a mapping kept elsewhere is never copied)."""
    base = found if isinstance(found, Layered) else Layered(found)
    return base.updated(items)


class DroppedIndex(msgspec.Struct, frozen=True):
    """The dropped asks indexed for the refusal: the latest one per exact key (normalised
    text, and text without punctuation) and every one by meaning (:mod:`rephrase`), so an
    open compares itself with the few dropped asks that share its words, never all of them.
    Kept up to date with :meth:`changed`: a new drop files one ask, it never rebuilds."""

    by_norm: Mapping[str, Ask]
    by_fuzzy: Mapping[str, Ask]
    by_meaning: LazyMeaningIndex
    by_id: Mapping[str, Ask]
    #: Every one by the wider reading that holds a line (:mod:`resemble`).
    by_resemblance: LazyMeaningIndex

    def changed(self, asks: Iterable[Ask]) -> DroppedIndex:
        """The index once ``asks`` hold these states (each newer than every indexed one)."""
        asks = list(asks)
        fresh = sorted((a for a in asks if a.state == "dropped"), key=lambda a: a.seq)
        if any(a.id in self.by_id for a in asks):  # dropped before, changed again: rebuild
            left = {a.id for a in asks}
            kept = [a for a in self.by_id.values() if a.id not in left]
            return _dropped_index([*kept, *fresh], self.by_meaning.build)
        if not fresh:
            return self
        return DroppedIndex(
            by_norm=_layered(self.by_norm, _keyed(fresh, DROPPED)),
            by_fuzzy=_layered(self.by_fuzzy, _keyed(fresh, LOOSE)),
            by_meaning=self.by_meaning.added((a.id, a.text) for a in fresh),
            by_id=_layered(self.by_id, ((a.id, a) for a in fresh)),
            by_resemblance=self.by_resemblance.added((a.id, a.text) for a in fresh),
        )


def _keyed(oldest_first: Iterable[Ask], index: str) -> list[tuple[str, Ask]]:
    """``(key, ask)`` of each ask filed in ``index``, oldest first (a later one wins)."""
    return [(key, a) for a in oldest_first for kind, key in filed(a) if kind == index]


def _dropped_index(
    dropped: Iterable[Ask], build: IndexBuilder = build_meaning_index
) -> DroppedIndex:
    oldest_first = sorted(dropped, key=lambda a: a.seq)  # later ones overwrite: the latest wins
    items = tuple((a.id, a.text) for a in oldest_first)
    return DroppedIndex(
        by_norm=dict(_keyed(oldest_first, DROPPED)),
        by_fuzzy=dict(_keyed(oldest_first, LOOSE)),
        by_meaning=LazyMeaningIndex(items, build=build),
        by_id={a.id: a for a in oldest_first},
        by_resemblance=LazyMeaningIndex(items, build=build, reading="resembles"),
    )


def index_dropped(asks: Asks, build: IndexBuilder = build_meaning_index) -> DroppedIndex:
    return _dropped_index((a for a in asks.values() if a.state == "dropped"), build)


def dropped_match(asks: Asks, text: str, index: DroppedIndex | None = None) -> Ask | None:
    """The dropped ask ``text`` repeats: same normalised text (or the same without
    punctuation), else the one it rephrases most closely (:func:`rephrase.overlap`).

    Exact matches win (the latest one); of equally close rephrasings the latest wins.
    ``index`` must describe ``asks`` (built by :func:`index_dropped` when not given).
    """
    dropped = index if index is not None else index_dropped(asks)
    key, fkey = norm(text), fuzzy_key(text)
    candidates = [dropped.by_norm.get(key), dropped.by_fuzzy.get(fkey) if fkey else None]
    exact = [a for a in candidates if a is not None]
    if exact:
        return max(exact, key=lambda a: a.seq)
    found = dropped.by_meaning.restated_by(text)
    if not found:
        return None
    best = max(found, key=lambda ask_id: (found[ask_id], dropped.by_id[ask_id].seq))
    return dropped.by_id[best]


def dropped_resembled(text: str, index: DroppedIndex, besides: Container[str] = ()) -> Ask | None:
    """The dropped ask ``text`` possibly repeats (:mod:`resemble`), other than those in
    ``besides`` (the ones the writer says it differs from): the closest, else the latest."""
    found = {k: v for k, v in index.by_resemblance.restated_by(text).items() if k not in besides}
    if not found:
        return None
    best = max(found, key=lambda ask_id: (found[ask_id], index.by_id[ask_id].seq))
    return index.by_id[best]


# --- the agent path ---------------------------------------------------------------------------


class Decision(msgspec.Struct):
    """What a decider concluded.

    ``events`` change state (append them to their ask streams); ``audit`` are log-level events
    (stream ``asks``) that record what was refused; ``warnings`` go back to the agent.
    """

    events: list[Event] = msgspec.field(default_factory=list)
    audit: list[Event] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)

    def extend(self, other: Decision) -> None:
        self.events += other.events
        self.audit += other.audit
        self.warnings += other.warnings


def agent_stamp(actor: Actor) -> str:
    """The ``by:`` of a close or reopen taken in through the agent path: ``agent`` whatever
    the line said, except a hand edit found on disk (actor ``file``), stamped ``file`` so it
    never reads as the user's consent and stays undoable."""
    return "file" if actor is Actor.FILE else "agent"


def request_stamp(actor: Actor) -> str:
    """The ``by:`` of a close or reopen asked for directly (Workbench, CLI, editor)."""
    return {Actor.USER: "user", Actor.EDITOR: "editor", Actor.FILE: "file"}.get(actor, "agent")


def agent_note(quote: str) -> str:
    """The note of an agent's close or reopen: the user's words it quotes, in quotation marks
    (the log shows they are the user's, and a close without a quote is warned about)."""
    return f'"{quote}"' if quote else ""


def decide_agent_change(
    asks: Asks,
    kind: Literal["done", "dropped", "reopen"],
    ask_id: str | None,
    note: str,
    today: dt.date,
    actor: Actor,
    words: UserWords | None = None,
) -> Decision:
    """An agent's close or reopen (§6.5), stamped by :func:`agent_stamp` and dated today.

    A close without a quotation mark is kept but warned about. ``words``: the user's messages
    of the agent's session (``None``: no transcript); a quote found there is ``verified``, one
    that is not is kept with a warning. A reopen of an ask the user dropped needs the user's
    words in quotes, verified when ``words`` are given; else it is refused (no event).
    """
    by = agent_stamp(actor)
    ask = asks.get(ask_id) if ask_id is not None else None
    if ask is None:
        return Decision(
            warnings=[
                f"ASKS.md: ignored `{kind}` — no ask with id {ask_id or '(missing)'}; use an id "
                "from the Open asks list."
            ]
        )
    note = one_line(note)
    if kind == "reopen" and ask.state == "open":
        return Decision(warnings=[f"ASKS.md: [{ask.id}] is already open."])
    if kind != "reopen" and ask.state != "open":
        return Decision(
            warnings=[f"ASKS.md: [{ask.id}] is already {ask.state} — not closed again."]
        )
    if kind == "reopen" and ask.state == "dropped" and ask.closed_by == "user":
        refused = reopen_refusal(ask.id, ask.updated, ask.text, note, words)
        if refused is not None:
            return Decision(warnings=[refused])
        if words is None:
            return _propose_reopen(ask, note, today, by)
    check = words.check(note, ask.text) if words is not None else None
    verified = check is not None and check.verified
    event: AskClosed | AskReopened
    if kind == "reopen":
        event = AskReopened(ask_id=ask.id, date=today, by=by, note=note, verified=verified)
    else:
        event = AskClosed(ask_id=ask.id, kind=kind, date=today, by=by, note=note, verified=verified)
    decision = Decision(events=[event])
    if kind != "reopen" and not any(q in note for q in _QUOTES):
        decision.warnings.append(
            f"ASKS.md: closed [{ask.id}] without quoting the user — close an ask only with the "
            "user's own words in quotes."
        )
    elif words is not None and check is not None and not verified and quoted(note):
        decision.warnings.append(
            f"ASKS.md: {'reopened' if kind == 'reopen' else kind} [{ask.id}] with a quote that "
            f"is not verified — {words.why(check)}; quote the user's own words."
        )
    elif words is None and quoted(note):
        decision.warnings.append(
            f"ASKS.md: {'reopened' if kind == 'reopen' else kind} [{ask.id}]; its quote is "
            "not verified (no session transcript of yours to check it against): the user sees "
            "it marked unverified, with Undo."
        )
    return decision


def _propose_reopen(ask: Ask, note: str, today: dt.date, by: str) -> Decision:
    """A reopen of the person's drop whose words nothing ties to the agent's own session:
    held as a proposal that waits on the person (the ask stays dropped)."""
    held = (
        f"ASKS.md: [{ask.id}] was dropped by the user on {ask.updated} — not reopened: nothing "
        "ties your quote to your own session's transcript, so the reopen is held as a "
        "proposal and now waits on the user, who confirms or declines it in the Workbench. "
        "Treat the ask as dropped until then."
    )
    if ask.proposal is not None:
        return Decision(warnings=[f"ASKS.md: [{ask.id}] already has a reopen waiting on the user."])
    proposed = AskReopenProposed(ask_id=ask.id, date=today, by=by, note=note)
    return Decision(events=[proposed], warnings=[held])


#: What an agent's (or a file's) close or reopen rests on, as the person and the next session
#: see it.
QuoteMark = Literal["verified", "unverified", "no quote"]


def ask_mark(ask: Ask) -> QuoteMark | None:
    """The quote mark of an ask's last close or reopen (None: the person's or the editor's,
    or an ask never closed)."""
    by = ask.closed_by if ask.state != "open" else ask.reopened_by
    return None if by is None else quote_mark(by, ask.note, ask.verified)


def quote_mark(by: str | None, note: str, verified: bool) -> QuoteMark | None:
    """The mark of a close or reopen written ``by`` someone other than the person or the
    editor (an agent, a file edit, an unsigned line): the person's word needs no mark."""
    if by in ("user", "editor"):
        return None
    if verified:
        return "verified"
    return "unverified" if quoted(note) else "no quote"
