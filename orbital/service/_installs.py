"""Installing Orbital into a coding agent's files, and taking it out again byte for byte.

One mechanism for every agent: an installer names its :class:`Target` files, each with the
pure function that adds Orbital's part (:mod:`orbital.agents`) and the one that removes it.
What each install changed (:class:`~orbital.agents.changes.Change`: the bytes before and the
bytes written) is recorded per agent and project in the state directory
(``installs/<agent>-<hash of the project folder>.json``), so that uninstall gives a file nobody
touched since its bytes back, and otherwise removes only Orbital's part. A file of the user's
own agent home (``~/.codex/config.toml``) is *shared* by every project installed for that
agent: uninstall leaves it while another project still has its install record.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from orbital.agents.changes import Change
from orbital.errors import Refused


@dataclass(frozen=True)
class Target:
    """One file an installer changes: ``name`` is what is printed (and the record's key)."""

    name: str
    path: Path
    install: Callable[[str | None], Change]
    uninstall: Callable[[str, Change | None], str | None]
    shared: bool = False


def read_text(path: Path) -> str | None:
    """The file's text, line endings as they are (so uninstall gives the same bytes back)."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def write_text(path: Path, text: str | None) -> None:
    """Write ``text`` atomically (None: remove the file)."""
    if text is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_bytes(text.encode("utf-8"))
    os.replace(temp, path)


class Installs:
    """The install records under ``directory`` and the install / uninstall of targets."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def record_path(self, agent: str, root: Path) -> Path:
        digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
        return self.directory / f"{agent}-{digest}.json"

    def load(self, agent: str, root: Path) -> dict[str, object]:
        text = read_text(self.record_path(agent, root))
        record = json.loads(text) if text else {}
        return record if isinstance(record, dict) else {}

    def save(self, agent: str, root: Path, record: dict[str, object]) -> None:
        write_text(self.record_path(agent, root), json.dumps(record, indent=2))

    def forget(self, agent: str, root: Path) -> None:
        self.record_path(agent, root).unlink(missing_ok=True)

    def others(self, agent: str, root: Path) -> int:
        """How many other projects have an install record for ``agent``."""
        mine = self.record_path(agent, root)
        return sum(1 for p in self.directory.glob(f"{agent}-*.json") if p != mine)

    @staticmethod
    def change(record: dict[str, object], name: str) -> Change | None:
        found = record.get(name)
        if not isinstance(found, dict):
            return None
        before = found.get("before")
        written = str(found.get("written", ""))
        return Change(before if isinstance(before, str) else None, written)

    def install(self, record: dict[str, object], targets: Sequence[Target]) -> list[str]:
        """Each target's file with Orbital's part, its change kept in ``record``; every
        change is decided before any file is written, so a refusal writes nothing."""
        planned: list[tuple[Target, Change, str | None]] = []
        for target in targets:
            current = read_text(target.path)
            try:
                made = target.install(current)
            except ValueError as exc:
                raise Refused(f"{target.name}: {exc}") from None
            planned.append((target, made, current))
        lines: list[str] = []
        for target, made, current in planned:
            earlier = self.change(record, target.name)
            if earlier is not None and current == earlier.written:
                before = earlier.before
            elif target.shared and current is not None:
                # Another project's install may be in it: what is left without Orbital's part.
                before = target.uninstall(current, None)
            else:
                before = current
            record[target.name] = {"before": before, "written": made.written}
            if made.written != current:
                write_text(target.path, made.written)
                lines.append(f"wrote {target.name}")
            else:
                lines.append(f"unchanged {target.name}")
        return lines

    def uninstall(
        self, record: dict[str, object], targets: Sequence[Target], others: int
    ) -> list[str]:
        """Each target's file without Orbital's part (its bytes back when untouched since);
        shared files stay while ``others`` projects still use them."""
        lines: list[str] = []
        for target in targets:
            if target.shared and others:
                lines.append(f"kept {target.name} (still used by {others} other project(s))")
                continue
            current = read_text(target.path)
            if current is None:
                continue
            try:
                after = target.uninstall(current, self.change(record, target.name))
            except ValueError as exc:
                raise Refused(f"{target.name}: {exc}") from None
            if after == current:
                lines.append(f"unchanged {target.name}")
                continue
            write_text(target.path, after)
            lines.append(f"{'removed' if after is None else 'restored'} {target.name}")
        return lines


def remove_created_dirs(root: Path, folders: Sequence[str], record: dict[str, object]) -> list[str]:
    """Folders install created (listed in ``record["created_dirs"]``) removed when empty,
    deepest first."""
    created = record.get("created_dirs")
    made = set(created) if isinstance(created, list) else set()
    lines: list[str] = []
    for name in sorted(folders, key=lambda n: -n.count("/")):
        folder = root / name
        if name in made and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            lines.append(f"removed {name}/ (install created it)")
    return lines


def note_created_dirs(root: Path, folders: Sequence[str], record: dict[str, object]) -> None:
    """Remember which of ``folders`` do not exist yet (install is about to create them)."""
    created = record.get("created_dirs")
    made = set(created) if isinstance(created, list) else set()
    made |= {name for name in folders if not (root / name).exists()}
    record["created_dirs"] = sorted(made)
