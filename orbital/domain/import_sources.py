"""What `orbital import-from` takes from the memory of the tools people come from — pure.

A source is one markdown file of another tool: Claude Code's CLAUDE.md, CLAUDE.local.md and
``.claude/rules/``, its auto memory (``MEMORY.md`` and topic files), Codex's AGENTS.md, Cursor's
rules (``.cursor/rules/*.mdc``, ``.cursorrules``) or a Cline memory bank. Each of its facts (a
top-level list item with what is nested under it, or a paragraph) becomes one entry, in the
file its kind of knowledge belongs in:

* **LESSONS** — an instruction: a fact that tells the agent what to do or not to do (it opens
  with an imperative or a modal such as *always*, *never*, *don't*, *prefer*, *must*), and
  everything in a topic file Claude Code typed ``feedback`` or ``user``;
* **PROJECT_STATE** — what is true now: Cline's ``activeContext.md`` and ``progress.md``, and
  Claude Code's topic files typed ``project``;
* **DECISIONS** — the rest: how the project is built and why.

Never a fact: headings (they name the section, kept as the fact's context), fenced code,
HTML comments, front matter, tables, ``@path`` imports, lines that are only links (an index of
other files, imported themselves), and what Orbital itself wrote (its AGENTS.md section, its
Cursor rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

#: The kinds of source, by what they hold.
RULES, AUTO_MEMORY, CLINE = "rules", "auto-memory", "cline"
#: Cline memory bank files that say what is true now (the rest are the project's what and why).
_CLINE_NOW = frozenset({"activecontext.md", "progress.md"})
#: Claude Code's auto-memory topic types and the file each goes to.
_TOPIC_TYPES = {"feedback": "lessons", "user": "lessons", "project": "state"}
#: What Orbital writes into another tool's files: never imported back.
_OWN_SECTION = re.compile(r"<!-- orbital: begin.*?<!-- orbital: end -->", re.DOTALL | re.IGNORECASE)
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_TYPE = re.compile(r"^type:\s*['\"]?(\w+)", re.MULTILINE | re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_NESTED = re.compile(r"^\s+\S")
_LINK_ONLY = re.compile(r"^(?:[-*+]\s+)?(?:\[[^\]]*\]\([^)]*\)[\s,;:\u2013\u2014-]*)+$")
#: A line that opens with a link to another markdown file: an index's pointer to a file the
#: import reads itself (Claude Code's MEMORY.md), not a fact.
_POINTER = re.compile(r"^(?:[-*+]\s+)?\[[^\]]*\]\((?![a-z]+:)[^)]*\.mdc?\)")
_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
_IMPORT_LINE = re.compile(r"^@\S+$")
_EMPHASIS = re.compile(r"[*_`]+")
#: How an instruction opens: a modal or an imperative a rule file's lines start with (the
#: general words of English instructions, not words of any example).
_OPENERS = frozenset(
    [
        "always",
        "never",
        "don't",
        "dont",
        "do",
        "avoid",
        "prefer",
        "use",
        "run",
        "make",
        "ensure",
        "keep",
        "write",
        "add",
        "check",
        "follow",
        "remember",
        "must",
        "should",
        "only",
        "put",
        "call",
        "test",
        "name",
        "place",
        "stop",
        "start",
        "read",
        "update",
        "create",
    ]
)
_MODALS = re.compile(r"\b(?:always|never|must|should|do not|don't|avoid)\b", re.IGNORECASE)
#: A fact of fewer words than this (links aside) is a label or a pointer, not knowledge.
_MIN_WORDS = 3


class Source(NamedTuple):
    """One file of another tool: where it is shown from (relative to the project, or ``~``),
    its kind, and its text."""

    path: str
    kind: str
    text: str


class Fact(NamedTuple):
    """One fact of a source: the memory file it goes to (``decisions``, ``lessons``,
    ``state``), its words, where it was found, and the heading it stood under."""

    file: str
    text: str
    path: str
    line: int
    section: str

    @property
    def origin(self) -> str:
        """``path:line``: what the entry's ``from`` names."""
        return f"{self.path}:{self.line}"


def facts_of(source: Source) -> list[Fact]:
    """The facts of ``source``, in file order."""
    text = source.text.replace("\r\n", "\n")
    topic = ""
    front = _FRONT_MATTER.match(text)
    if front is not None:
        kind = _TYPE.search(front.group(1))
        topic = kind.group(1).lower() if kind else ""
        text = "\n" * front.group(0).count("\n") + text[front.end() :]
    text = _blank(_OWN_SECTION, text)
    text = _blank(_COMMENT, text)
    default = _default_file(source, topic)
    facts = []
    for line, section, words in _blocks(text.split("\n")):
        if len(_LINK.sub("", words).split()) < _MIN_WORDS:
            continue  # a label, or a link with a word or two around it
        facts.append(Fact(default or _by_words(words), words, source.path, line, section))
    return facts


def _blank(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with each match replaced by as many newlines: line numbers stay true."""
    return pattern.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _default_file(source: Source, topic: str) -> str:
    """The file every fact of ``source`` goes to, or "" when each fact's words decide."""
    if source.kind == CLINE:
        return "state" if source.path.rsplit("/", 1)[-1].lower() in _CLINE_NOW else "decisions"
    if source.kind == AUTO_MEMORY:
        return _TOPIC_TYPES.get(topic, "")
    return ""


def _by_words(text: str) -> str:
    """LESSONS for an instruction, DECISIONS for the rest."""
    first = _EMPHASIS.sub("", text).split(maxsplit=1)[0].lower().strip(":,.") if text else ""
    head = text.split(".", 1)[0]
    return "lessons" if first in _OPENERS or _MODALS.search(head) else "decisions"


def _blocks(lines: Sequence[str]) -> Iterator[tuple[int, str, str]]:
    """(first line number, heading above, words) of each list item (nested lines folded
    in) and each paragraph."""
    section, start, fenced = "", 0, False
    parts: list[str] = []

    def flush() -> Iterator[tuple[int, str, str]]:
        if parts:
            yield start, section, "\n".join(parts).strip()

    for number, raw in enumerate(lines, 1):
        if _FENCE.match(raw):
            fenced = not fenced
            continue
        stripped = raw.strip()
        heading = _HEADING.match(raw)
        if fenced or not stripped or heading or _skipped(stripped):
            yield from flush()
            parts = []
            if heading:
                section = heading.group(1).strip()
            continue
        item = _ITEM.match(raw)
        if item is not None or not parts:
            yield from flush()
            start, parts = number, [raw[item.end() :].strip() if item else stripped]
        elif _NESTED.match(raw) and (nested := _ITEM.match(stripped)) is not None:
            parts.append("- " + stripped[nested.end() :])
        else:  # a wrapped line: one line of text with the one before it
            parts[-1] += " " + stripped
    yield from flush()


def _skipped(line: str) -> bool:
    """A line that is never part of a fact: a table row, an import, links alone, a pointer."""
    return line.startswith("|") or any(
        pattern.match(line) for pattern in (_IMPORT_LINE, _LINK_ONLY, _POINTER)
    )


class Planned(NamedTuple):
    """A fact and what the import does with it: ``block`` is the text it adds to its file;
    ``skip`` says why it adds nothing (the memory holds it already, or the import repeats it)."""

    fact: Fact
    block: str
    skip: str = ""


def plan_import(facts: Sequence[Fact], known: Mapping[str, str]) -> list[Planned]:
    """What importing ``facts`` adds, given ``known``: each normalised text the memory
    holds -> where (an entry id). A fact the memory holds, or one this import already takes
    (the same words in two sources), adds nothing: importing again adds nothing. A fact that
    looks like it holds a secret is left out (the write would refuse it, and with it the
    whole batch), and the plan says so."""
    from orbital.domain.secrets import secrets_in

    taken: dict[str, str] = {}
    planned = []
    for fact in facts:
        words = normalised(fact.text)
        found = secrets_in(fact.text)
        if found:
            planned.append(Planned(fact, "", f"looks like a secret ({found[0].kind}): left out"))
        elif words in known:
            planned.append(Planned(fact, "", f"already in memory ({known[words]})"))
        elif words in taken:
            planned.append(Planned(fact, "", f"repeats {taken[words]}"))
        else:
            taken[words] = fact.origin
            planned.append(Planned(fact, render_fact(fact)))
    return planned


def known_texts(entries: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Normalised text -> entry id, for (entry id, text) pairs: each entry's whole text and,
    for a titled entry, its body alone (the import gives a long fact a title of its own)."""
    known: dict[str, str] = {}
    for entry_id, text in entries:
        known.setdefault(normalised(text), entry_id)
        _, newline, body = text.strip().partition("\n")
        if newline and body.strip():
            known.setdefault(normalised(body), entry_id)
    return known


def normalised(text: str) -> str:
    """Words alone: no list marker, heading mark, emphasis, case or spacing."""
    lines = [_MARKER.sub("", line.strip()) for line in text.strip().split("\n")]
    return " ".join(_EMPHASIS.sub("", " ".join(lines)).casefold().split()).rstrip(".;:")


#: A line's markdown prefix: heading marks, a list marker, a task box.
_MARKER = re.compile(r"^(?:#{1,6}\s+|(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)")
#: A DECISIONS title longer than this is clipped and the fact becomes its body.
_TITLE_CHARS = 80


def render_fact(fact: Fact) -> str:
    """The block ``fact`` adds to its file, in that file's grammar."""
    first, _, rest = fact.text.partition("\n")
    more = [line for line in rest.split("\n") if line.strip()]
    if fact.file == "decisions":
        if not more and len(first) <= _TITLE_CHARS:
            return f"## {first}\n"
        title = _title(first)
        return f"## {title}\n" + "\n".join([first, *more]) + "\n"
    marker, indent = ("1. ", "   ") if fact.file == "lessons" else ("- ", "  ")
    return marker + first + "".join(f"\n{indent}{line}" for line in more) + "\n"


def _title(sentence: str) -> str:
    """The first sentence, clipped at a word to fit a title."""
    head = re.split(r"(?<=[.!?])\s", sentence, maxsplit=1)[0].rstrip(".")
    if len(head) <= _TITLE_CHARS:
        return head
    return head[: _TITLE_CHARS - 1].rsplit(" ", 1)[0] + "…"
