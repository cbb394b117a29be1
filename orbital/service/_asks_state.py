"""The asks a decision is made on: current (materialised stream states, updated by what
changed) and as of a position (nearest snapshot plus the events after it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from orbital.catalogue import ASK_PREFIX
from orbital.domain.asks import (
    Ask,
    DroppedIndex,
    OpenIndex,
    fold,
    index_dropped,
    index_open,
)
from orbital.domain.lazy_meanings import READINGS, IndexBuilder, build_meaning_index
from orbital.events import RecordedEvent
from orbital.grammar.asks_md import FORMAT_HEADER, render_lines
from orbital.service._ask_rows import decode_ask, decode_asks, encode_ask, encode_asks
from orbital.service._context import Context
from orbital.service._stored_asks import (
    Keyed,
    StoredAsks,
    stored_dropped,
    stored_open,
    stored_view,
)
from orbital.service._stream_keys import ASK_KEYS, catch_up
from orbital.service._wordnet import Indexing, LoadedWordNet
from orbital.store import Projected, Reader, Reducer, Writer
from projections.asks_view import ViewAsks
from projections.files import render_asks_file

if TYPE_CHECKING:
    from orbital.domain.wordnet import WordNet

#: Every ask, as of the snapshot's position.
ASKS_SNAPSHOT = "asks"
#: The asks changed since the previous asks snapshot (full or delta).
ASKS_DELTA = "asks-delta"
SNAPSHOTS = (ASKS_SNAPSHOT, ASKS_DELTA)
LINES_SNAPSHOT = "asks-lines"
ASKS_SNAPSHOT_EVERY = 1000
#: Event types that render a line of ASKS.md (audit events render none).
RENDERED_TYPES = ("ask.opened", "ask.closed", "ask.reopened", "ask.file_line")
#: Stream prefix covering ``ask:<id>`` and the log-level ``asks`` stream.
ASKS_PREFIX = "ask"


class Extent(NamedTuple):
    """How far ASKS.md reaches: its ``lines`` after the header and its ``size`` in bytes
    up to the end of them (0: not known)."""

    lines: int
    size: int


#: ASKS.md with no lines: its header line.
HEADER_EXTENT = Extent(0, len(FORMAT_HEADER.encode()) + 1)


def _kept_extent(raw: bytes | None) -> Extent:
    """A lines snapshot read back: ``b"<lines> <bytes>"``, or ``b"<lines>"`` as kept before
    sizes were (size 0: unknown)."""
    if raw is None:
        return Extent(0, 0)
    lines, _, size = raw.decode().partition(" ")
    return Extent(int(lines), int(size or 0))


def fold_ask_stream(state: Ask | None, recorded: RecordedEvent) -> Ask | None:
    """Materialised state of one ``ask:<id>`` stream (the reference fold, one ask)."""
    initial = {state.id: state} if state is not None else None
    folded = fold([(recorded.position, recorded.event)], initial)
    return next(iter(folded.values()), None)


ASK_REDUCER = Reducer(Ask, fold_ask_stream, encode_ask, decode_ask)


class AsksNow:
    """A project's asks as of ``head`` (the newest position of its ``ask…`` streams), with
    the indexes the agent's refusals look up and the view's orders: read from the store's
    keys (:meth:`keyed`, :mod:`._stored_asks`), or built from every ask at their first
    lookup (:meth:`of`: where the keys are not there for this code and the process may not
    make them)."""

    __slots__ = ("_build", "_dropped", "_opened", "_view", "asks", "head")

    def __init__(
        self,
        head: int,
        asks: Mapping[str, Ask],
        build: IndexBuilder = build_meaning_index,
        opened: OpenIndex | None = None,
        dropped: DroppedIndex | None = None,
        view: ViewAsks | None = None,
    ) -> None:
        self.head, self.asks, self._build = head, asks, build
        self._opened, self._dropped, self._view = opened, dropped, view

    @classmethod
    def of(
        cls, head: int, asks: dict[str, Ask], build: IndexBuilder = build_meaning_index
    ) -> AsksNow:
        return cls(head, asks, build)

    @classmethod
    def keyed(cls, head: int, keyed: Keyed, indexing: Indexing) -> AsksNow:
        """The asks read from the store's keys through one transaction."""
        stored = StoredAsks(keyed)
        dropped = stored_dropped(keyed, indexing, indexing.lexicon)
        return cls(head, stored, indexing, stored_open(keyed), dropped, stored_view(keyed))

    @property
    def opened(self) -> OpenIndex:
        """The open asks by text (a duplicate open is refused)."""
        if self._opened is None:
            self._opened = index_open(self.asks)
        return self._opened

    @property
    def dropped(self) -> DroppedIndex:
        """The dropped asks by text and by meaning (their return is refused)."""
        if self._dropped is None:
            self._dropped = index_dropped(self.asks, self._build)
        return self._dropped

    @property
    def view(self) -> ViewAsks:
        """The asks in the view's orders (the view reads the first few of each)."""
        if self._view is None:
            self._view = ViewAsks.of(self.asks)
        return self._view


class AsksState:
    """Reads the asks for decisions and views from the store's keys, a writer catching them
    up first; where they are not there for this code (a reader, before any write made them)
    from every ask's state."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._since_snapshot: dict[str, int] = {}
        #: The projects whose meaning families this process saw made for its code.
        self._ready: set[str] = set()
        #: The WordNet the wide reading of a held line reads with (loaded when first read).
        self.wordnet: Callable[[], WordNet] = LoadedWordNet()
        #: Builds the dropped asks' meaning index, reading the wide way with that WordNet.
        self.indexing = Indexing(self.wordnet)
        #: Read the asks from the store's keys (off: from every ask, as where the keys are
        #: not there; the tests compare the two).
        self.keyed = True

    def forget(self, project: str) -> None:
        """Drop what this process counted of the project's asks (after a purge)."""
        self._since_snapshot.pop(project, None)
        self._ready.discard(project)

    def ready(self, project: str) -> None:
        """The dropped asks' meaning families made for this code before a unit that may
        look in them begins (:func:`orbital.service._meaning_keys.made_ahead`: filed where no
        lock is held), once a process. Only ahead of time: the unit catches them up itself,
        and makes them whole under its lock if they were dropped since (a purge, another
        version's process)."""
        if project in self._ready:
            return
        from orbital.service._meaning_keys import made_ahead  # the matcher: an agent's decision

        for reading in READINGS:
            made_ahead(self.ctx.store, project, reading, self.indexing.lexicon(reading))
        self._ready.add(project)

    def make_keys(self, project: str) -> None:
        """Every family of the project's asks made for this code now, not at the first
        write that needs one (``orbital db upgrade``: after an upgrade, minutes for a log of
        a million events)."""
        with self.ctx.store.writing() as w:
            catch_up(w, project)
        self._ready.discard(project)
        self.ready(project)

    def now(self, r: Reader, project: str, *, head: int | None = None) -> AsksNow:
        """The asks as ``r`` reads them (use them inside its transaction): from the store's
        keys (a writer catches them up first), else from every ask's state. ``head``: the
        asks' head when the caller read it already (:class:`projections.Heads`)."""
        head = r.prefix_head(project, ASKS_PREFIX) if head is None else head
        if self.keyed:
            if isinstance(r, Writer):
                found: Projected | None = catch_up(r, project)
            else:
                found = r.keys_projected(project, ASK_KEYS.name)
            keyed = Keyed.of(r, project, head, found)
            if keyed is not None:
                return AsksNow.keyed(head, keyed, self.indexing)
        return AsksNow.of(head, self.every(r, project), self.indexing)

    @staticmethod
    def every(r: Reader, project: str) -> dict[str, Ask]:
        """Every ask (a listing of them, or where the keys are not there): every stream
        state read at once."""
        return {a.id: a for a in r.states(project, ASK_PREFIX).values() if a is not None}

    def at(self, r: Reader, project: str, position: int) -> dict[str, Ask]:
        """The asks as of ``position``: the nearest full snapshot at or before it, the deltas
        after it, plus the ask events after those (never the whole log)."""
        full = r.snapshot_position(project, ASKS_SNAPSHOT, position)
        delta = r.snapshot_position(project, ASKS_DELTA, position)
        after = max(full or 0, delta or 0)
        asks: dict[str, Ask] = {}
        if after:
            asks = self.ctx.decoded(
                (project, ASKS_SNAPSHOT, after), lambda: self._snapshotted(r, project, full, after)
            )
        events = r.read_project(
            project, from_position=after, until_position=position, stream_prefix=ASK_PREFIX
        )
        return fold(((e.position, e.event) for e in events), asks)

    def _snapshotted(self, r: Reader, project: str, full: int | None, until: int) -> dict[str, Ask]:
        """The asks as of snapshot position ``until``: the full snapshot ``full`` (kept in the
        decoded cache too) with the deltas after it applied in order."""
        asks: dict[str, Ask] = {}
        if full is not None:

            def load() -> dict[str, Ask]:
                found = r.snapshot(project, ASKS_SNAPSHOT, full)
                assert found is not None
                return decode_asks(found[1])

            asks = self.ctx.decoded((project, ASKS_SNAPSHOT, full), load)
            if until == full:
                return asks
            asks = dict(asks)
        for _, state in r.snapshots_after(project, ASKS_DELTA, full or 0, until):
            asks.update(decode_asks(state))
        return asks

    def maybe_snapshot(self, w: Writer, project: str, appended: int) -> None:
        """Every :data:`ASKS_SNAPSHOT_EVERY` ask events, keep the asks for as-of reads: the
        asks changed since the previous snapshot (a delta), or every ask (a full snapshot)
        once the ask events since the last full one are as many as all asks. So the deltas a
        read applies never hold more asks than the full one under them, and the store keeps
        a full copy every time the log about doubles instead of one per snapshot."""
        since = self._since_snapshot.get(project)
        if since is None:
            head = w.prefix_head(project, ASK_PREFIX)
            last = self._last_snapshot(w, project, head)
            since = w.count(project, ASK_PREFIX, until_position=head, after_position=last)
        else:
            since += appended
        if since >= ASKS_SNAPSHOT_EVERY:
            head = w.prefix_head(project, ASK_PREFIX)
            full = w.snapshot_position(project, ASKS_SNAPSHOT, head)
            # The deltas since the last full snapshot hold at most this many asks.
            since_full = (
                0
                if full is None
                else w.count(project, ASK_PREFIX, until_position=head, after_position=full)
            )
            if full is None or since_full >= len(w.stream_names(project, ASK_PREFIX)):
                every = (a for a in w.states(project, ASK_PREFIX).values() if a is not None)
                w.save_snapshot(project, ASKS_SNAPSHOT, head, encode_asks(every))
            else:
                previous = self._last_snapshot(w, project, head)
                delta = w.states(project, ASK_PREFIX, after=previous).values()
                states = [ask for ask in delta if ask is not None]
                w.save_snapshot(project, ASKS_DELTA, head, encode_asks(states))
            extent = self._extent_now(w, project, head)
            w.save_snapshot(project, LINES_SNAPSHOT, head, f"{extent.lines} {extent.size}".encode())
            since = 0
        counted = since
        w.on_commit(lambda: self._since_snapshot.__setitem__(project, counted))

    @staticmethod
    def _last_snapshot(r: Reader, project: str, position: int) -> int:
        """The position of the newest asks snapshot (full or delta) at or before one."""
        found = (r.snapshot_position(project, name, position) for name in SNAPSHOTS)
        return max((p for p in found if p is not None), default=0)

    def extent_at(self, r: Reader, project: str, position: int) -> tuple[int, Extent]:
        """How many lines ASKS.md had (header aside) as of ``position``, and the nearest
        extent at or before it whose size is known (a snapshot's, else the header's), from
        which a cut of today's file counts newlines."""
        snap = r.snapshot(project, LINES_SNAPSHOT, position)
        kept = _kept_extent(None if snap is None else snap[1])
        lines = kept.lines + r.count(
            project,
            ASKS_PREFIX,
            after_position=0 if snap is None else snap[0],
            until_position=position,
            types=RENDERED_TYPES,
        )
        return lines, kept if kept.size else HEADER_EXTENT

    def _extent_now(self, w: Writer, project: str, head: int) -> Extent:
        """ASKS.md's lines and bytes as of ``head`` (a snapshot's): the previous snapshot's
        plus the lines rendered since; the whole log's once, where the previous snapshot
        kept no size (a store from before sizes were kept)."""
        snap = w.snapshot(project, LINES_SNAPSHOT, head)
        kept = _kept_extent(None if snap is None else snap[1])
        start = kept if kept.size else HEADER_EXTENT
        after = 0 if snap is None or not kept.size else snap[0]
        events = w.read_project(
            project, from_position=after, until_position=head, stream_prefix=ASKS_PREFIX
        )
        lines = render_lines(e.event for e in events)
        size = sum(len(line.encode()) + 1 for line in lines)
        return Extent(start.lines + len(lines), start.size + size)

    @staticmethod
    def render(r: Reader, project: str) -> str:
        """The whole ASKS.md rendered from the log."""
        events = r.read_project(project, stream_prefix=ASKS_PREFIX)
        return render_asks_file(e.event for e in events)
