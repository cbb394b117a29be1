"""Legacy sources of asks: ``[user]`` bullets in PROJECT_STATE, ``retractions.md``, and the
migration planner that turns both into ask events (reference §6.7, §10).

Pure: the caller reads the files and appends the planned events.
"""

from __future__ import annotations

import datetime as dt
import re

import msgspec

from orbital.catalogue import ask_stream
from orbital.domain.asks import Asks, Minter, is_hex_id, mint_id
from orbital.errors import InvalidInput
from orbital.events import Event
from orbital.events.asks import AskClosed, AskOpened, LegacyRecord
from orbital.grammar.asks_md import due_warning, valid_due
from orbital.grammar.text import norm, one_line

_FLAG = re.compile(r"(?P<marker>-|\d+[.)])(?P<gap>\s+)\[(?P<tag>[^\]]*)\](?P<text>.*)")
_TAG_DUE = re.compile(r"(?<!\S)due:(\S+)")
_MEM = re.compile(r"<!--\s*mem\s+(?P<body>.*?)-->", re.DOTALL)
_FIELD = re.compile(r'(?P<key>[A-Za-z_]+):(?P<val>"(?:[^"\\]|\\.)*"|\S+)')
_MARKER = re.compile(r"\s*(?:[-*+]|\d+\.)\s+")
_RETRACTION = re.compile(
    r'-\s+\[(?P<id>[^\]]+)\]\s+"(?P<title>(?:[^"\\]|\\.)*)"\s+—\s+retracted by user '
    r"(?P<date>\d{4}-\d{2}-\d{2}):\s?(?P<reason>.*)"
)
_ESCAPE = re.compile(r"\\(.)")


class LegacyFlag(msgspec.Struct, frozen=True):
    """A ``[user]`` bullet taken out of PROJECT_STATE, to become an open ask."""

    text: str
    due: str | None
    #: The bullet's old comment id when it is 6 lowercase hex, else ``None``.
    legacy_id: str | None
    created: dt.date | None
    line: int
    #: The tag's ``due:`` when it is not a date (dropped: the ask opens without a due).
    bad_due: str | None = None


def flag_line(line: str) -> tuple[str, str | None, str | None] | None:
    """``(text, due, bad_due)`` of a top-level ``- [user …] text`` / ``3. [user] text`` line,
    else ``None``.

    The tag must hold the token ``user``; a ``due:`` token in it is the due when it is a date,
    else ``bad_due`` (dropped, for the caller to warn). Mem comments are stripped from the text.
    """
    match = _FLAG.fullmatch(line)
    if match is None or "user" not in match["tag"].split():
        return None
    text = one_line(_MEM.sub(" ", match["text"]))
    due = _TAG_DUE.search(match["tag"])
    if due is None:
        return text, None, None
    return (text, due[1], None) if valid_due(due[1]) else (text, None, due[1])


def _fields(comment: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for found in _FIELD.finditer(comment):
        value = found["val"]
        if value.startswith('"'):
            value = _ESCAPE.sub(r"\1", value[1:-1])
        fields.setdefault(found["key"], value)
    return fields


def _date(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if value else None
    except ValueError:
        return None


def extract_legacy_flags(state: str) -> tuple[str, list[LegacyFlag]]:
    """Take the open ``[user]`` bullets out of a PROJECT_STATE text.

    Only top-level flagged bullets count. A flagged bullet whose comment says ``resolved:``
    loses its tag and stays (a settled fact). Any other flagged bullet is removed with its
    comment and indented continuation lines, which join its text as ``"; "``-separated parts.
    Returns the new state (the input object itself when nothing changed) and the flags.
    """
    if "[" not in state:
        return state, []
    lines = state.split("\n")
    kept: list[str] = []
    flags: list[LegacyFlag] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        flag = flag_line(line)
        if flag is None:
            kept.append(line)
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() and lines[end][0] in " \t":
            end += 1
        block = lines[index:end]
        comment = _MEM.search("\n".join(block))
        fields = _fields(comment["body"]) if comment else {}
        if "resolved" in fields:
            match = _FLAG.fullmatch(line)
            assert match is not None
            kept.append(f"{match['marker']}{match['gap']}{match['text'].lstrip()}")
            kept.extend(block[1:])
        else:
            parts = [
                one_line(_MARKER.sub("", _MEM.sub(" ", cont), count=1))
                for cont in block[1:]
                if _MEM.sub("", cont).strip()
            ]
            text, due, bad_due = flag
            if parts:
                text = one_line(f"{text} {'; '.join(p for p in parts if p)}")
            legacy_id = fields.get("id")
            flags.append(
                LegacyFlag(
                    text=text,
                    due=due,
                    legacy_id=legacy_id if legacy_id and is_hex_id(legacy_id) else None,
                    created=_date(fields.get("created")),
                    line=index + 1,
                    bad_due=bad_due,
                )
            )
        index = end
    if not flags and kept == lines:
        return state, []
    return "\n".join(kept), flags


class Retraction(msgspec.Struct, frozen=True):
    """One line of the legacy ``retractions.md``."""

    id: str
    title: str
    date: str
    reason: str
    line: int = 0


class UnparsedLine(msgspec.Struct, frozen=True):
    """A non-blank line of ``retractions.md`` that does not follow the grammar."""

    line: int
    text: str


def parse_retractions(text: str) -> tuple[list[Retraction], list[UnparsedLine]]:
    """Parse ``retractions.md``: the retractions, and every line that could not be parsed."""
    found: list[Retraction] = []
    bad: list[UnparsedLine] = []
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if not line.strip():
            continue
        match = _RETRACTION.fullmatch(line)
        if match is None:
            bad.append(UnparsedLine(number, line))
            continue
        title = _ESCAPE.sub(r"\1", match["title"])
        found.append(Retraction(match["id"], title, match["date"], match["reason"], number))
    return found, bad


def _check_dates(retractions: list[Retraction]) -> None:
    """A retraction's date is when the person dropped the ask: one that is no calendar day
    (``2026-02-30``) refuses the whole migration, line by line, rather than being guessed
    (today's date would be a date the person never gave)."""
    wrong = [r for r in retractions if _date(r.date) is None]
    if wrong:
        lines = "; ".join(
            f'retraction on line {r.line} ([{r.id}] "{r.title}"): {r.date} is not a date'
            for r in wrong
        )
        raise InvalidInput(f"{lines}; nothing was migrated: correct the date and run again")


def plan_migration(
    asks: Asks,
    retractions: list[Retraction],
    flags: list[LegacyFlag],
    today: dt.date,
    mint: Minter,
) -> list[tuple[str, list[Event]]]:
    """The ask events that bring legacy flags and retractions into the log, per stream.

    Flags become opens (legacy id if free, legacy created date); each retraction becomes an
    open and a ``dropped by:user`` with the same date, carrying the legacy record. Anything
    whose normalised text is already an ask (any state), or planned earlier, is skipped, so
    planning against a state that already holds the migrated asks plans nothing.
    """
    _check_dates(retractions)
    known_texts = {norm(a.text) for a in asks.values()}
    taken: set[str] = set(asks)
    plan: list[tuple[str, list[Event]]] = []

    def claim(text: str, legacy_id: str | None) -> str | None:
        key = norm(text)
        if not key or key in known_texts:
            return None
        known_texts.add(key)
        ask_id = legacy_id if legacy_id and legacy_id not in taken else None
        ask_id = ask_id or mint_id(mint, taken)
        taken.add(ask_id)
        return ask_id

    for flag in flags:
        ask_id = claim(flag.text, flag.legacy_id)
        if ask_id is None:
            continue
        record = LegacyRecord(
            legacy_id=flag.legacy_id or "",
            date=flag.created.isoformat() if flag.created else "",
            title=flag.text,
            line=flag.line,
        )
        opened = AskOpened(
            ask_id=ask_id,
            text=one_line(flag.text),
            date=flag.created or today,
            due=flag.due,
            provenance="PROJECT_STATE.md [user] bullet",
            legacy=record,
        )
        plan.append((ask_stream(ask_id), [opened]))
    for retraction in retractions:
        legacy_id = retraction.id.lower()
        ask_id = claim(retraction.title, legacy_id if is_hex_id(legacy_id) else None)
        if ask_id is None:
            continue
        record = LegacyRecord(
            legacy_id=retraction.id,
            date=retraction.date,
            title=retraction.title,
            reason=retraction.reason,
            line=retraction.line,
        )
        date = dt.date.fromisoformat(retraction.date)
        events: list[Event] = [
            AskOpened(
                ask_id=ask_id,
                text=one_line(retraction.title),
                date=date,
                provenance="retractions.md",
                legacy=record,
            ),
            AskClosed(
                ask_id=ask_id,
                kind="dropped",
                date=date,
                by="user",
                note=one_line(retraction.reason),
                legacy=record,
            ),
        ]
        plan.append((ask_stream(ask_id), events))
    return plan


class MovedFlags(msgspec.Struct, frozen=True):
    """What ``[user]`` bullets decide: the asks they open, and the warnings for the writer."""

    events: list[Event]
    warnings: list[str]


def decide_legacy_flags(
    flags: list[LegacyFlag], asks: Asks, today: dt.date, mint: Minter
) -> MovedFlags:
    """``[user]`` bullets written into PROJECT_STATE (:func:`extract_legacy_flags`) become
    asks (reference §6.7); a bullet already an ask is only removed. Never refuses the write."""
    by_text = {norm(a.text): a for a in asks.values()}
    warnings = [
        due_warning(flag.bad_due, flag.text, "PROJECT_STATE.md")
        for flag in flags
        if flag.bad_due is not None
    ]
    fresh: list[LegacyFlag] = []
    for flag in flags:
        known = by_text.get(norm(flag.text))
        if known is None:
            fresh.append(flag)
            continue
        warnings.append(
            f'Removed [user] line "{flag.text[:60]}" from PROJECT_STATE — it is already '
            f"ask [{known.id}] ({known.state}) in orbital/ASKS.md."
        )
    events = [event for _, batch in plan_migration(asks, [], fresh, today, mint) for event in batch]
    if events:
        listed = "; ".join(
            f"[{e.ask_id}] {e.text[:60]}" for e in events if isinstance(e, AskOpened)
        )
        warnings.append(
            f"Moved {len(events)} [user] line(s) out of PROJECT_STATE into orbital/ASKS.md as "
            f"open asks: {listed}. Things waiting on the user live in ASKS.md now (see its "
            "header)."
        )
    return MovedFlags(events, warnings)
