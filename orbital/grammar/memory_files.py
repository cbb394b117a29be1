"""The memory files' line-1 format contracts (their names and keys: ``orbital.catalogue``).

The contract is code-owned: every write replaces whatever line-1 contract the writer sent by the
current one, and budgets never count it (§2.6 of the reference).
"""

from __future__ import annotations

_STATE_CONTRACT = (
    "<!--format PROJECT_STATE is what is true NOW: current focus, work in progress, blockers "
    "and next steps. Overwrite a line the moment it goes stale; never append dated history or "
    "a changelog (finished work belongs in DECISIONS.md or LESSONS.md, or nowhere). Every line "
    "must stand on its own: concrete names of files, services and people, no shorthand, no "
    "'see above', no references to list numbers. One fact = one entry; split a line that "
    "carries two. A fact tied to a calendar day starts with [due:YYYY-MM-DD] right after the "
    "list marker; otherwise word lines so they stay true without a date. Things waiting on the "
    "user do NOT go here: they are asks in orbital/ASKS.md, and a [user] line written here is "
    "moved there automatically. Never decide on the user's behalf anything about money, "
    "messages sent as the user, or irreversible actions: ask instead. Machine attributes (id, "
    "created, touched) live in a comment Orbital manages on the line under each bullet: never "
    "write, copy or edit those comments; Orbital keeps them attached to unchanged lines.-->"
)

FORMAT_HEADERS: dict[str, str] = {
    "index": (
        "<!--format INDEX is a navigation map ONLY: '- path — one sentence' bullets under "
        "'## <area>' headings. No dates, status, decisions, or lessons here — those live in "
        "PROJECT_STATE.md / DECISIONS.md / LESSONS.md.-->"
    ),
    "decisions": (
        "<!--format DECISIONS entries: '## <slug>' then Chose / Reason / Rejected. When a "
        "decision changes, add the new entry with a line 'Supersedes: <id>[, <id>…] "
        "[since YYYY-MM-DD]' naming the old entries' ids (from their id comments; since: when "
        "the change took effect) and Orbital moves them to the archive; never leave "
        "contradictions.-->"
    ),
    "lessons": (
        "<!--format LESSONS entries: numbered durable heuristics and playbooks. Add on error "
        "recovery or non-obvious workaround; keep real playbooks intact.-->"
    ),
    "state": _STATE_CONTRACT,
}

_OPEN = "<!--format"
_CLOSE = "-->"


def ensure_format_header(text: str, key: str) -> str:
    """``text`` with the current contract on line 1 (an old or edited contract is replaced).

    Content after the old contract is kept byte for byte, minus the one newline ending it; a
    leading prefix before it is kept; an unterminated contract gets the template prepended.
    """
    template = FORMAT_HEADERS[key]
    if text.lstrip().startswith(_OPEN):
        start = text.index(_OPEN)
        end = text.find(_CLOSE, start)
        if end != -1:
            rest = text[end + len(_CLOSE) :]
            if rest.startswith("\n"):
                rest = rest[1:]
            return text[:start] + template + "\n" + rest
    return template + "\n" + text


def strip_format_header(text: str) -> str:
    """``text`` without its line-1 contract (and the newline after it), for budget measures."""
    stripped = text.lstrip()
    if not stripped.startswith(_OPEN):
        return text
    end = stripped.find(_CLOSE)
    if end == -1:
        return text
    rest = stripped[end + len(_CLOSE) :]
    return rest[1:] if rest.startswith("\n") else rest
