"""A held write whose tool never ran: recognised, and the file written again from the store.

An agent's own file tool writes the bytes of a write Orbital already recorded (the write is
*held*, its checkpoint's mtime :data:`~orbital.files.HELD_MTIME_NS`). Claude Code can still
refuse that tool after the PreToolUse hook answered (another hook denies it, the rewritten
input no longer matches the file), and no hook says so. The file then still holds the bytes
from before the write: a version Orbital wrote itself (a memory file), or a prefix of the
projection (ASKS.md, which only grows). That is no hand edit and must never be taken in as
one (nor as the agent's write, which would undo its own recorded write): the next unit writes
the file again from the store, and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from orbital.catalogue import ASKS_KEY, MEMORY_FILES
from orbital.files import HELD_MTIME_NS, FileGateway, sha256
from orbital.grammar.text import same_text
from orbital.project import Project
from orbital.store import Checkpoint, Reader


def pending(checkpoint: Checkpoint | None) -> bool:
    """Whether the last write of a file was held and nothing has been seen of it since."""
    return checkpoint is not None and checkpoint.mtime_ns == HELD_MTIME_NS


def memory_not_landed(
    r: Reader, pid: str, name: str, checkpoint: Checkpoint | None, raw: bytes, ours: str
) -> bool:
    """A memory file whose held write never reached it: the disk holds a version Orbital
    wrote before, not the projection."""
    return (
        pending(checkpoint)
        and not same_text(raw, ours)
        and sha256(raw) in r.written_versions(pid, name)
    )


def asks_not_landed(checkpoint: Checkpoint | None, raw: bytes, expected: str) -> bool:
    """ASKS.md whose held write never reached it: the disk holds the projection's first
    lines (what it was before the held lines were added)."""
    data = expected.encode()
    return pending(checkpoint) and len(raw) < len(data) and data.startswith(raw)


def not_landed_warning(name: str, position: int) -> str:
    return (
        f"orbital/{name} did not get the write Orbital recorded at @{position} (the agent's "
        "file tool was refused or failed after Orbital recorded it); the file was written "
        "again from the store, nothing lost."
    )


def unlanded(
    r: Reader,
    project: Project,
    files: FileGateway,
    names: Sequence[str],
    render: Callable[[str], str],
) -> list[str]:
    """The files of ``names`` whose held write never reached them (``render`` gives a
    file's projection; called only for a file whose write is pending)."""
    found = []
    for name in names:
        checkpoint = r.checkpoint(project, name)
        raw = files.read_bytes(name) if pending(checkpoint) else None
        if raw is None:
            continue
        text = render(name)
        if name == MEMORY_FILES[ASKS_KEY]:
            landed = not asks_not_landed(checkpoint, raw, text)
        else:
            landed = not memory_not_landed(r, project.project_id, name, checkpoint, raw, text)
        if not landed:
            found.append(name)
    return found


def not_applied(name: str) -> str:
    """The agent's note on a held write of ``name`` its tool never applied."""
    return (
        f"Orbital recorded your earlier write of orbital/{name}, but Claude Code did not "
        f"apply it (the tool was refused); Orbital has now written orbital/{name} with it. "
        "Read the file again before you change it."
    )
