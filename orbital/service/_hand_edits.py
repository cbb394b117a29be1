"""Taking in what changed on disk: the step of every unit of work before it decides.

A projected file changed since Orbital wrote it becomes events (actor ``file``; a file from
before the store is imported as ``system``). Memory files are merged three ways: against the
version the person started from, the store's current projection and the file on disk. A file
that is exactly a version Orbital wrote before (``git checkout`` of an older one) is
regenerated, never taken as a revert; overlapping changes keep the person's file beside as a
conflict copy. ASKS.md follows the agent's append-only rules; lines that would be lost are
saved beside.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from orbital.catalogue import ASKS_KEY, MEMORY_FILES, file_stream
from orbital.domain.asks_write import decide_agent_write
from orbital.domain.hand_edits import looks_broken, looks_cut
from orbital.domain.secrets import secrets_in
from orbital.errors import InvalidEncoding, SecretRefused, TooMuchAtOnce, UnsafePath
from orbital.events import Actor, Event
from orbital.events.asks import AskClosed, AskOpened, AskReopened, AskReopenProposed
from orbital.events.files import HandEditDetected
from orbital.files import ABSENT, decode_utf8, sha256
from orbital.grammar.asks_md import decode_asks_bytes, parse_line, read_file
from orbital.grammar.text import norm, same_text, to_lf, without_nul
from orbital.service._asks_file import ASKS_FILE, Changed, Projection
from orbital.service._held import memory_not_landed, not_landed_warning
from orbital.service._memory_state import MEMORY_KEYS
from orbital.service._pending import PendingWrite, find_pending
from orbital.service._proposals import decide_memory_write, decide_proposal
from orbital.service._sessions import state_dir
from orbital.service._trust import decide_trust_of_write
from orbital.service._unit import Intake
from projections.files import render_memory_file

if TYPE_CHECKING:
    from orbital.service._unit import Unit
    from orbital.store import Checkpoint

#: The stream of ASKS.md's hand-edit events.
ASKS_FILE_STREAM = file_stream(ASKS_KEY)


# -- memory files --------------------------------------------------------------------------


def take_in_memory(u: Unit) -> None:
    """Each memory file changed on disk becomes events before anything else is decided."""
    files = u.units.ctx.files(u.project)
    for key in MEMORY_KEYS:
        name = MEMORY_FILES[key]
        checkpoint = u.w.checkpoint(u.project, name)
        try:
            stat = files.stat(name)
        except UnsafePath as exc:  # a symlink: it blocks itself, not the others
            if key in u.proposals:
                raise
            u.blocked[name] = exc.reason
            continue
        if stat is None:
            u.seen[name] = ABSENT
            continue
        if checkpoint is not None and stat == (checkpoint.size, checkpoint.mtime_ns):
            u.seen[name] = checkpoint.sha256
            continue
        raw = files.read_bytes(name) or b""
        u.seen[name] = sha256(raw)  # what is decided on: a save after it is never overwritten
        if u.proposals.get(key) == raw:
            continue  # a write being made is this very content (``orbital ingest``)
        ours = render_memory_file(u.memory.files[key])
        if checkpoint is not None and same_text(raw, ours):
            # Orbital's text under a new stat (touched, or written by an agent's own file
            # tool from a held write): adopt the stat and the bytes' hash (line endings are
            # the file's own), so the checkpoint is what ``seen`` holds; leave the file alone.
            adopted = msgspec.structs.replace(
                checkpoint, size=stat[0], mtime_ns=stat[1], sha256=u.seen[name]
            )
            u.w.set_checkpoint(u.project, name, adopted)
            continue
        if same_text(raw, ours) or not raw.strip():
            # Same text (line endings are the file's own), or an editor's truncate-then-write
            # caught half way: no change.
            u.rewrite.add(key)
            continue
        if checkpoint is None and not u.w.written_versions(u.pid, name):
            _import(u, key, raw)  # never written by Orbital: from before the store
        elif checkpoint is not None and memory_not_landed(u.w, u.pid, name, checkpoint, raw, ours):
            u.rewrite.add(key)
            u.warnings.append(not_landed_warning(name, checkpoint.position))
        elif not _agents_write(u, key, raw, checkpoint):
            _merge(u, key, raw, ours)


def _import(u: Unit, key: str, raw: bytes) -> None:
    """A file from before Orbital's store (upstream Orbital, a hand-made one) is read in as a
    write by ``system``: its id comments are kept."""
    try:
        text = decode_utf8(raw)
    except InvalidEncoding as exc:
        name = MEMORY_FILES[key]
        keep_aside(u, key, raw)
        u.warnings.append(
            f"{name} was not imported: it is not valid UTF-8 (first bad byte at offset "
            f"{exc.offset}). The file is kept, byte for byte, as "
            f"orbital/{u.conflicts[-1]}, and {name} was written anew from the store; save your "
            "entries as UTF-8 into it (or `orbital write`) and delete the copy."
        )
        return
    text, removed = without_nul(text, MEMORY_FILES[key])
    u.warnings += removed
    try:
        decision = decide_memory_write(u, key, u.memory.files[key], text, Actor.SYSTEM)
        decide_trust_of_write(u, decision.events, Actor.SYSTEM)
    except TooMuchAtOnce as exc:
        _keep_aside(u, key, raw, _too_much(exc))
        return
    except SecretRefused as refused:
        _keep_secret_aside(u, MEMORY_FILES[key], text, refused, key=key)
        return
    u.warnings += decision.warnings
    u.rewrite.add(key)
    u.warnings.append(f"{MEMORY_FILES[key]}: imported the file on disk ({sha256(raw)[:12]}).")


def _pending(u: Unit, name: str, raw: bytes) -> PendingWrite | None:
    """The agent's write a failing hook recorded with these bytes, if one did."""
    return find_pending(state_dir(), Path(u.project.root), name, sha256(raw))


def _agents_write(u: Unit, key: str, raw: bytes, checkpoint: Checkpoint | None) -> bool:
    """Bytes a hook recorded as the agent's write when it could not reach the store, taken
    in as that agent's write in its session, against the version this checkout last wrote
    (what the agent changed). False when no hook recorded them, or they do not apply cleanly
    (then they are a hand edit)."""
    name = MEMORY_FILES[key]
    found = _pending(u, name, raw)
    if found is None:
        return False
    try:
        text = to_lf(decode_utf8(raw))
    except InvalidEncoding:
        return False
    current = u.memory.files[key]
    base = None if checkpoint is None else checkpoint.position
    proposal = decide_proposal(u, key, text, base=base, actor=Actor.AGENT)
    if proposal.clashes or looks_broken(current, raw, proposal.events) is not None:
        return False
    decide_trust_of_write(u, proposal.events, Actor.AGENT, found.session)
    u.warnings += proposal.warnings
    u.rewrite.add(key)
    u.warnings.append(_took_pending(name, found))
    return True


def _took_pending(name: str, found: PendingWrite) -> str:
    return (
        f"{name}: took in the agent's write of session {found.session} ({found.tool}) that "
        f"its hook could not bring to the store ({found.sha256[:12]})."
    )


def _merge(u: Unit, key: str, raw: bytes, ours: str) -> None:
    name = MEMORY_FILES[key]
    found = sha256(raw)
    detected = HandEditDetected(file=key, expected_sha256=sha256(ours.encode()), found_sha256=found)
    u.append([detected], actor=Actor.FILE)
    versions = u.w.written_versions(u.pid, name)
    if found in versions:
        u.rewrite.add(key)
        u.warnings.append(
            f"{name} on disk is the version Orbital wrote at position {versions[found]} "
            "(an older copy brought back, e.g. by git checkout); the store is newer, so "
            "the file was regenerated and nothing was reverted."
        )
        return
    current = u.memory.files[key]
    try:
        theirs = to_lf(decode_utf8(raw))
    except InvalidEncoding:
        _keep_aside(u, key, raw, f"looks broken: it {looks_broken(current, raw)}")
        return
    broken = looks_broken(current, raw)  # seen before anything is decided
    if broken is not None:
        _keep_aside(u, key, raw, f"looks broken: it {broken}; nothing was taken from it")
        return
    theirs, removed = without_nul(theirs, name)
    u.warnings += removed
    try:
        proposal = decide_proposal(u, key, theirs, actor=Actor.FILE)
        broken = looks_broken(current, raw, proposal.events)  # cut short inside an entry
        if broken is not None:
            _keep_aside(u, key, raw, f"looks broken: it {broken}; nothing was taken from it")
            return
        cut = looks_cut(current, proposal.events)
        if cut is not None:  # held for the person to confirm, against the version it started from
            keep_aside(u, key, raw, proposal.base)
            u.warnings.append(
                f"{name} was edited outside Orbital and the edit {cut}, as a file cut short does; "
                f"nothing was taken from it. The edited file is saved as orbital/{u.conflicts[-1]} "
                f"and {name} was regenerated from events: if you meant the removals, choose Keep "
                "mine for that copy in the Workbench (`orbital conflicts` lists it); if not, "
                "delete the copy."
            )
            return
        decide_trust_of_write(u, proposal.events, Actor.FILE)
    except TooMuchAtOnce as exc:
        _keep_aside(u, key, raw, _too_much(exc))
        return
    except SecretRefused as refused:
        _keep_secret_aside(u, name, theirs, refused, key=key)
        return
    u.warnings += proposal.warnings
    u.rewrite.add(key)
    if proposal.clashes:
        # What did not clash is taken in; the person's file is kept for what did.
        why = f"changes what the store changed too ({', '.join(proposal.clashes)})"
        _keep_aside(u, key, raw, why, proposal.base)
        return
    u.warnings.append(f"{name}: took in a hand edit ({found[:12]}).")


def _too_much(exc: TooMuchAtOnce) -> str:
    return (
        f"adds {exc.adds} at once, over the bound of {exc.bound} per write; nothing was "
        "taken from it"
    )


def _keep_aside(u: Unit, key: str, raw: bytes, why: str, base: int = 0) -> None:
    """Save the person's file beside the projection, record it, regenerate."""
    name = MEMORY_FILES[key]
    keep_aside(u, key, raw, base)
    u.warnings.append(
        f"{name} was edited outside Orbital and the edit {why}; the edited file is saved "
        f"as orbital/{u.conflicts[-1]} and {name} was regenerated from events. Merge your "
        "change into the new file (or write it again) and delete the copy."
    )


def _keep_secret_aside(
    u: Unit, name: str, text: str, refused: SecretRefused, key: str = ASKS_KEY
) -> None:
    """A hand edit refused for a line that looks like a secret: nothing is taken from it,
    the file is written again from events, and the person's file is kept beside with each
    such line left out (the secret is stored nowhere, not even in the conflict copy)."""
    found = secrets_in(text)
    line = next((f.line for f in found if f.kind == refused.kind), refused.line)
    raw = text.encode()  # the copy leaves the line out (:meth:`Unit.save_aside`)
    if key == ASKS_KEY:
        copy = _keep_asks_aside(u, raw)
    else:
        keep_aside(u, key, raw)
        copy = u.conflicts[-1]
    u.warnings.append(
        f"{name}: line {line} of the file on disk looks like a secret ({refused.kind}); "
        f"nothing was taken from it and {name} was written again from events. The file is "
        f"saved as orbital/{copy} with that line left out: keep the secret out of memory "
        "(or, if it is not one, end the line with `# pragma: allowlist secret`), write your "
        "change again and delete the copy."
    )


def keep_aside(u: Unit, key: str, raw: bytes, base: int = 0) -> None:
    """Save a memory file beside its projection as a conflict copy and record that, with the
    version it was based on when known (``base``, a position; 0: not known)."""
    u.append([u.save_aside(MEMORY_FILES[key], key, raw, base)], actor=Actor.FILE)
    u.rewrite.add(key)


# -- ASKS.md -------------------------------------------------------------------------------


def take_in_asks(u: Unit, proposal: bytes | None) -> Projection:
    """The projected ASKS.md, taking in whatever changed on disk since Orbital wrote it."""
    found = u.units.asks_file.look(u.w, u.project, proposal)
    if isinstance(found, Projection):
        if found.not_landed is not None:
            u.warnings.append(not_landed_warning(ASKS_FILE, found.not_landed))
        return found
    if found.expected is None:
        projection = _import_asks(u, found)
    else:
        projection = _hand_edit_asks(
            u, found.raw, found.expected, _pending(u, ASKS_FILE, found.raw)
        )
    projection.seen = sha256(found.raw)
    return projection


def _import_asks(u: Unit, found: Changed) -> Projection:
    """An ASKS.md that predates the store (upstream Orbital, another tool) becomes events,
    kept as written (its ``by:`` included): it is history, not a new claim."""
    text, replaced = decode_asks_bytes(found.raw)
    text, removed = without_nul(text, ASKS_FILE)
    u.warnings += removed
    parsed = read_file(text, u.today)
    summaries = u.record([*replaced, *parsed.events], actor=Actor.SYSTEM)
    if summaries:  # an ASKS.md of only its format contract (a clone's) brings nothing
        u.warnings.append(
            f"ASKS.md: imported {len(summaries)} line(s) written before Orbital's store."
        )
    u.warnings += parsed.warnings
    if replaced:
        lines = ", ".join(str(r.line) for r in replaced)
        u.warnings.append(
            f"ASKS.md: line(s) {lines} held bytes that are not UTF-8; they show as \ufffd "
            "and the original bytes are kept in history (ask.bytes_replaced)."
        )
    return Projection(rendered=u.units.asks.render(u.w, u.pid))


def _hand_edit_asks(
    u: Unit, raw: bytes, expected: str, agents: PendingWrite | None = None
) -> Projection:
    """A hand edit follows the append-only rules, attributed ``file`` (or the agent, in its
    session, when a failing hook recorded these bytes as its write: ``agents``); if anything
    the person typed would not survive, their file is saved beside it first."""
    found = sha256(raw)
    detected = HandEditDetected(
        file=ASKS_KEY, expected_sha256=sha256(expected.encode()), found_sha256=found
    )
    broken = looks_broken(expected, raw)
    if broken is not None:
        _note(u, detected)
        copy = _keep_asks_aside(u, raw)
        u.warnings.append(
            f"ASKS.md was edited outside Orbital and the edit looks broken: it {broken}; "
            f"nothing was taken from it, the edited file is saved as orbital/{copy} and "
            "ASKS.md was regenerated from events."
        )
        return Projection(rendered=expected)
    text, removed = without_nul(decode_asks_bytes(raw)[0], ASKS_FILE)
    u.warnings += removed
    known = u.units.asks.now(u.w, u.pid)
    actor = Actor.FILE if agents is None else Actor.AGENT
    result = decide_agent_write(
        known.asks,
        expected,
        text,
        u.today,
        u.mint,
        known.dropped,
        known.opened,
        actor=actor,
    )
    if agents is None:
        _note(u, detected)
    session = None if agents is None else agents.session
    try:
        u.record([*result.events, *result.audit], actor=actor, session=session)
    except SecretRefused as refused:
        _keep_secret_aside(u, ASKS_FILE, text, refused)
        return Projection(rendered=expected)
    new_text = u.units.asks.render(u.w, u.pid)
    u.warnings.append(
        f"ASKS.md was edited outside Orbital; took it in as a hand edit ({found[:12]})."
        if agents is None
        else _took_pending(ASKS_FILE, agents)
    )
    u.warnings += result.warnings
    kept = set(new_text.split("\n"))
    lost = [
        line
        for line in text.split("\n")
        if line.strip() and line not in kept and not _represented(line, result.events)
    ]
    if lost:
        copy = _keep_asks_aside(u, raw)
        u.warnings.append(
            f"ASKS.md: {len(lost)} line(s) of the hand edit are not ask events or were "
            f"refused; the edited file is saved as orbital/{copy} so nothing is lost."
        )
    return Projection(rendered=new_text)


def _keep_asks_aside(u: Unit, raw: bytes) -> str:
    """Keep an edited ASKS.md beside it as a conflict copy, recorded; returns its name."""
    conflict = u.save_aside(ASKS_FILE, ASKS_KEY, raw)
    _note(u, conflict)
    return conflict.conflict_copy


def _note(u: Unit, event: Event) -> None:
    """Record a hand-edit event of ASKS.md (stream ``file:asks``); like before the unit of
    work, it is not among the events reported to the writer."""
    u.w.append(u.pid, ASKS_FILE_STREAM, [event], expected_version=None, actor=Actor.FILE)


def _represented(line: str, events: Sequence[Event]) -> bool:
    """Whether a line the person wrote was taken in as one of ``events`` (re-stamped)."""
    parsed = parse_line(line)
    if parsed is None:
        return False
    if parsed.kind == "open":
        return any(isinstance(e, AskOpened) and norm(e.text) == norm(parsed.text) for e in events)
    kind = "reopen" if parsed.kind == "reopen" else parsed.kind
    return any(
        (
            (isinstance(e, AskReopened | AskReopenProposed) and kind == "reopen")
            or (isinstance(e, AskClosed) and e.kind == kind)
        )
        and e.ask_id == parsed.ask_id
        for e in events
    )


#: The intake every unit runs before it decides (:class:`Intake`).
HAND_EDITS = Intake(memory=take_in_memory, asks=take_in_asks)
