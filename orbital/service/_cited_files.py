"""One checkout's cited files as last hashed (issue 29): what lets a citation check stat each
cited file and hash only one whose size or mtime changed (:mod:`._citations`).

Kept signed in the state folder like every kept file (:class:`~._outputs.Seal`): a record the
store's key does not confirm is dropped, and then every cited file is hashed again. It also
keeps the entry head at which a check last found every citation as the store has it, so a
session start at that head whose cited files all keep their stats needs nothing more
(:func:`quiet`: the hooks' first look, before the service is opened; this module imports no
rule).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from orbital.project import Project
from orbital.service._outputs import Seal
from orbital.service._sessions import state_dir

if TYPE_CHECKING:
    from orbital.domain.citations import Span

#: The size and mtime kept for a cited file that is gone.
GONE = -1
#: The record's format (another is read as no record).
_VERSION = 1


#: A cited file as last hashed: ``[size, mtime_ns, {lines: SHA-256}]`` (``lines`` ``""``: all
#: of it), kept as the record's JSON has it (a check reads a thousand of them).
_Stat = list[Any]


def _decoded(raw: bytes | None) -> tuple[str, dict[str, _Stat]]:
    """The record's entry head (``""``: none) and files (none, when unreadable)."""
    if raw is None:
        return "", {}
    try:
        found = json.loads(raw)
        version, head, files = found["v"], str(found["head"]), found["files"]
    except (ValueError, KeyError, TypeError):
        return "", {}
    return (head, files) if version == _VERSION and isinstance(files, dict) else ("", {})


def head_mark(position: int, event_id: str) -> str:
    """An entry head as the record names it: its position and its event's id (a position
    freed by a rolled-back write is never taken for the event that later gets it)."""
    return f"{position}:{event_id}"


class CitedFiles:
    """One checkout's cited files as last hashed (its record in the state folder)."""

    def __init__(self, project: Project, key: Callable[[], bytes | None]) -> None:
        self.root = project.root
        self.path = state_dir() / "cache" / "citations" / f"{project.checkout}.json"
        self.seal = Seal(key)
        #: The entry head of the last check that found nothing moved; the files' stats.
        self.head, self.files = _decoded(self.seal.read(self.path))
        self.changed = False

    def observe(self, spans: Iterable[Span]) -> dict[Span, str | None]:
        """Each span -> the SHA-256 of its content now (None: no file inside the project);
        a file is read only when its stat is not the one it was hashed at (the loop is the
        cost of a check: one ``stat`` per cited file, nothing else)."""
        wanted: dict[str, set[str]] = {}
        for path, lines in spans:
            wanted.setdefault(path, set()).add(lines)
        found: dict[Span, str | None] = {}
        prefix = os.path.join(self.root, "")
        for path, ranges in wanted.items():
            kept = self.files.get(path)
            try:
                info = os.stat(prefix + path, follow_symlinks=False)
            except (OSError, ValueError):
                stat = None
            else:
                stat = info.st_size, info.st_mtime_ns
                if kept is not None and info.st_size == kept[0] and info.st_mtime_ns == kept[1]:
                    hashes: dict[str, str] = kept[2]
                    if ranges <= hashes.keys():
                        for lines in ranges:
                            found[path, lines] = hashes[lines]
                        continue
            fresh = self._hashed(path, stat, ranges)
            for lines in ranges:
                found[path, lines] = None if fresh is None else fresh[lines]
        return found

    def _hashed(
        self, path: str, stat: tuple[int, int] | None, ranges: set[str]
    ) -> dict[str, str] | None:
        """``path``'s cited ranges hashed, its record updated (None: no file there)."""
        kept = self.files.get(path)
        if stat is None:  # kept as gone, so a first look sees it come back
            if kept is None or kept[0] != GONE:
                self.files[path] = [GONE, GONE, {}]
                self.changed = True
            return None
        import hashlib  # here: a first look that finds nothing moved never hashes

        from orbital.files import max_file_bytes
        from orbital.grammar.mentions import cited_bytes
        from orbital.project import read_inside

        raw = read_inside(self.root, path, max_file_bytes())
        if raw is None:
            return None
        known = kept[2] if kept is not None and (kept[0], kept[1]) == stat else {}
        fresh = {lines: hashlib.sha256(cited_bytes(raw, lines)).hexdigest() for lines in ranges}
        hashes = {**known, **fresh}
        self.files[path] = [stat[0], stat[1], hashes]
        self.changed = True
        return hashes

    def quiet(self, head: str) -> bool:
        """Whether a check at entry head ``head`` would find nothing: the last check found
        every citation as the store has it at this head, and no cited file's stat moved (no
        entry at all: nothing is cited)."""
        if head == head_mark(0, ""):
            return True
        if self.head != head:
            return False
        prefix = os.path.join(self.root, "")
        for path, (size, mtime_ns, _) in self.files.items():
            try:
                info = os.stat(prefix + path, follow_symlinks=False)
            except (OSError, ValueError):
                if size != GONE:
                    return False
                continue
            if info.st_size != size or info.st_mtime_ns != mtime_ns:
                return False
        return True

    def save(self, head: str = "", spans: Iterable[Span] | None = None) -> None:
        """Keep the record; ``head``: the entry head (:func:`head_mark`) at which every
        citation (of ``spans``, then the only files kept) was found as the store has it
        (``""``: not known)."""
        if spans is not None:
            paths = {path for path, _ in spans}
            files = {p: s for p, s in self.files.items() if p in paths}
            self.changed = self.changed or files.keys() != self.files.keys()
            self.files = files
        if head != self.head:
            self.head, self.changed = head, True
        if self.changed:
            try:
                record = {"v": _VERSION, "head": self.head, "files": self.files}
                data = json.dumps(record, separators=(",", ":"))
                self.seal.write(self.path, data.encode())
            except OSError:  # a cache: the next check hashes again
                pass
            self.changed = False


def quiet(project: Project, head: str, key: Callable[[], bytes | None]) -> bool:
    """A session start's first look: nothing cited moved since the last check at ``head``."""
    return CitedFiles(project, key).quiet(head)
