"""An agent's writes that a hook could not bring to the store (locked, deleted, corrupt).

A hook fails open: the agent's file tool runs and its bytes land on disk without Orbital. So
that the take-in that finds those bytes later names the agent and its session, not ``file``,
the failing hook records each write it knows of (the session, the tool call, the file and the
bytes' hash) in the state folder, in a file keyed by the project's folder. The unit of work
that takes a changed file in looks its bytes' hash up there (:func:`find_pending`). The file
keeps the newest :data:`KEEP` records. Light on imports: a failing hook writes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Records kept per project folder (the oldest go first).
KEEP = 200


@dataclass(frozen=True)
class PendingWrite:
    """One write an agent made while its hook could not reach the store."""

    session: str
    #: The tool call, as the hook saw it (e.g. ``PreToolUse Edit``).
    tool: str
    #: The memory file's name (e.g. ``DECISIONS.md``).
    name: str
    #: The hex SHA-256 of the bytes the tool left (or was to leave) in the file.
    sha256: str


def _path(folder: Path, root: Path) -> Path:
    key = hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:16]
    return folder / "pending" / f"{key}.jsonl"


def record_pending(folder: Path, root: Path, writes: Sequence[PendingWrite]) -> None:
    """Add ``writes`` for the project at ``root`` (its folder), keeping the newest
    :data:`KEEP`; the file is replaced whole (never a half line)."""
    if not writes:
        return
    path = _path(folder, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    with contextlib.suppress(FileNotFoundError):
        lines = path.read_text(encoding="utf-8").splitlines()
    lines += [json.dumps(w.__dict__, sort_keys=True) for w in writes]
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text("".join(line + "\n" for line in lines[-KEEP:]), encoding="utf-8")
    os.replace(temp, path)


def find_pending(folder: Path, root: Path, name: str, sha256: str) -> PendingWrite | None:
    """The newest pending write of ``name`` in the project at ``root`` that left the bytes
    whose hash is ``sha256``; None when there is none (or the record cannot be read)."""
    try:
        lines = _path(folder, root).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            data = json.loads(line)
            found = PendingWrite(data["session"], data["tool"], data["name"], data["sha256"])
        except (ValueError, KeyError, TypeError):
            continue
        if found.name == name and found.sha256 == sha256:
            return found
    return None


#: The hooks after which (or before which) an agent's file may change without Orbital.
TOOL_HOOKS = ("pre-tool", "post-tool", "after-edit")


def project_folder(cwd: str) -> Path | None:
    """The project folder a hook runs in, found on disk alone (the store cannot be asked):
    the nearest folder from ``cwd`` up holding ``orbital/project-id``."""
    here = Path(cwd or ".").expanduser().resolve()
    for folder in (here, *here.parents):
        if (folder / "orbital" / "project-id").is_file():
            return folder
    return None


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pending_writes(
    slug: str, session: str, tool: str, tool_input: Mapping[str, object], cwd: str, root: Path
) -> list[PendingWrite]:
    """What a failing ``slug`` hook knows the agent wrote (or is about to): before a file
    tool on a memory file, the bytes the tool will leave; after a tool, the bytes of every
    memory file as they are now."""
    from orbital.agents.claude_code_hooks import memory_target, proposed_content
    from orbital.catalogue import MEMORY_FILES

    names = frozenset(MEMORY_FILES.values())
    call = f"{slug} {tool}".strip()
    memory = root / "orbital"
    if slug == "pre-tool":
        path = tool_input.get("file_path")
        name = memory_target(str(root), cwd, path if isinstance(path, str) else "", names)
        if name is None:
            return []
        try:
            current = (memory / name).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            current = ""
        proposed = proposed_content(tool, tool_input, current)
        if proposed is None:
            return []
        return [PendingWrite(session, call, name, _hash(proposed.encode()))]
    found = []
    for name in sorted(names):
        with contextlib.suppress(OSError):
            found.append(PendingWrite(session, call, name, _hash((memory / name).read_bytes())))
    return found
