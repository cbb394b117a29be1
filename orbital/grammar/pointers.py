"""Archive pointer lines (reference §7.5): what a demoted entry leaves in the live file.

``[archived <day> id:<a> id:<b>] <summary> → <ARCHIVE_FILE>``; a legacy id-less
``[archived <day>] …`` stub is a pointer too. A *group* line (several short entries moved at
once) keeps its visible text short and carries the ids in a trailing ``<!--ids a b …-->``
comment, which budgets leave out (``without_id_comments``) as they leave out PROJECT_STATE's
mem comments: slug ids are long, and named visibly they would cost more than the entries saved.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from orbital.clock import day_or_none

POINTER_RE = re.compile(r"^\[archived (\d{4}-\d{2}-\d{2})\b[^\]]*\]")
_POINTER_ID_RE = re.compile(r"\bid:(\S+?)(?=[\s\]])")
_ID_COMMENT_RE = re.compile(r"[ \t]*<!--ids ([^<>\n]*?)[ \t]*-->[ \t]*$")
_ID_COMMENT_ON_POINTER = re.compile(r"^(\[archived [^\n]*?)[ \t]*<!--ids [^<>\n]*?-->[ \t]*$", re.M)
_WS = re.compile(r"\s+")


def pointer_summary(text: str, limit: int = 60) -> str:
    """One-line summary of an entry for its pointer: no ``**``, single spaces, ``limit`` max."""
    flat = _WS.sub(" ", text.replace("**", "")).strip()
    if len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat


def _flat(summary: str) -> str:
    return _WS.sub(" ", summary).strip().replace("→", "->") or "older entry"


def pointer_line(day: dt.date, ids: Iterable[str], summary: str, archive_file: str) -> str:
    """The pointer line left in place of archived entries ``ids``."""
    tags = "".join(f" id:{entry_id}" for entry_id in ids)
    return f"[archived {day.isoformat()}{tags}] {_flat(summary)} → {archive_file}"


def group_pointer_line(day: dt.date, ids: Iterable[str], summary: str, archive_file: str) -> str:
    """The line of a group of archived entries: ids in the trailing comment, not the bracket."""
    comment = " ".join(ids)
    return f"[archived {day.isoformat()}] {_flat(summary)} → {archive_file} <!--ids {comment}-->"


def without_id_comments(text: str) -> str:
    """``text`` without the id comments of its group pointer lines (what budgets measure)."""
    return _ID_COMMENT_ON_POINTER.sub(r"\1", text)


def is_pointer_line(line: str) -> bool:
    return POINTER_RE.match(line) is not None


def pointer_date(line: str) -> dt.date | None:
    """The day a pointer line was left, or None when ``line`` is not a pointer line."""
    match = POINTER_RE.match(line)
    return None if match is None else day_or_none(match.group(1))


def pointer_ids(line: str) -> list[str]:
    """Entry ids a pointer line names: in its bracket, then in its id comment (empty for a
    legacy stub)."""
    match = POINTER_RE.match(line)
    if match is None:
        return []
    comment = _ID_COMMENT_RE.search(line.rstrip("\n"))
    return _POINTER_ID_RE.findall(line[: match.end()]) + (
        comment.group(1).split() if comment else []
    )


def index_archive_line(archive_file: str) -> str:
    """The INDEX bullet that makes an archive file discoverable."""
    return f"- {archive_file} — older entries demoted from the live file (read on demand)."


def ensure_index_mentions(index_body: str, archive_file: str) -> str:
    """INDEX body that names ``archive_file`` (appended after a blank line when missing)."""
    if archive_file in index_body:
        return index_body
    line = index_archive_line(archive_file)
    if not index_body.strip():
        return f"# INDEX\n{line}\n"
    return index_body.rstrip("\n") + "\n\n" + line + "\n"
