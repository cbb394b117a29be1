"""The fixed parts of the editor's conversation with the model: instructions, tools, limits.

Kept apart from the loop so the wording the tests pin (and the model depends on) has one home.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orbital.domain.asks import Ask
from orbital.grammar.text import one_line

MAX_CALLS = 12
TOOL_RESULT_MAX = 12_000
OPEN_ASKS_LISTED = 30
ASK_TEXT_MAX = 200

BUDGET_USED_UP = "Tool budget used up. Reply now with ONLY the JSON choices."
NOT_JSON = "That was not a JSON object. Reply with ONLY the JSON choices."
READ_ONLY_TOOLS = ("read", "grep", "list_sessions", "read_session")

SYSTEM_PROMPT = (
    "You are the memory editor of a software project. Its memory files are over their size "
    "budget: choose entries to archive or merge, BY ID, so they get back under it. You never "
    "add facts and never rewrite what an entry says; nothing is deleted — archived text moves "
    "to an archive file and leaves a one-line pointer. Session transcripts are evidence of "
    "what is done or replaced, never a source of new facts. Your tools are read-only. When "
    "you are done, reply with ONLY the JSON object of your choices (use {} for no change)."
)

CHOICES_SCHEMA = (
    '{"archive": [{"file": "PROJECT_STATE.md", "id": "…", "pointer": "…"}],\n'
    ' "merge": [{"file": "DECISIONS.md", "ids": ["…", "…"], "text": "…", "pointer": "…"}],\n'
    ' "close_asks": [{"id": "…", "session": "…", "quote": "…"}],\n'
    ' "index": "<complete INDEX.md, only if it needs rewriting>"}'
)


def _function(name: str, description: str, properties: Mapping[str, object]) -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": dict(properties),
                "required": list(properties),
            },
        },
    }


_STRING = {"type": "string"}
#: The tools offered to the model, in the OpenAI chat-completions ``tools`` shape.
TOOL_SPECS: tuple[dict[str, object], ...] = (
    _function(
        "read",
        "Read a memory file or archive (e.g. DECISIONS.md, LESSONS_ARCHIVE.md).",
        {"path": _STRING},
    ),
    _function(
        "grep",
        "Search the memory files and archives for a regular expression; returns file:line: text.",
        {"pattern": _STRING},
    ),
    _function("list_sessions", "List recent session transcripts, newest first.", {}),
    _function(
        "read_session",
        "Read one session transcript; each turn is marked [user], [assistant], [tool] or "
        "[injected]. Only [user] turns are the user's words.",
        {"session": _STRING},
    ),
)


def not_available(tool: str) -> str:
    """The tool result for a tool the editor does not have (a write, a shell…)."""
    return f"Error: the tool {tool!r} is not available to the memory editor (read-only tools: " + (
        ", ".join(READ_ONLY_TOOLS) + ")."
    )


def cut_tool_result(text: str) -> str:
    """A tool result bounded to :data:`TOOL_RESULT_MAX` characters, saying it was cut."""
    if len(text) <= TOOL_RESULT_MAX:
        return text
    return text[:TOOL_RESULT_MAX] + f"\n[… cut: {len(text) - TOOL_RESULT_MAX} more characters]"


def open_asks_block(asks: Sequence[Ask]) -> str:
    """The OPEN ASKS part of the prompt; empty when no ask is open.

    Closing an ask needs the user's exact words from a named session, so the block says how.
    """
    listed = [a for a in asks if a.state == "open"][:OPEN_ASKS_LISTED]
    if not listed:
        return ""
    lines = [f"[{a.id}] {one_line(a.text)[:ASK_TEXT_MAX]}" for a in listed]
    return (
        "OPEN ASKS (things the user still has to decide or do):\n"
        + "\n".join(lines)
        + '\n\nIf a session shows the user settled one of them, add it to "close_asks" with '
        "the session name and the user's EXACT words as the quote (copied from a [user] turn, "
        'not from the assistant). A short quote such as "yes" only counts when the same user '
        "message names the ask's topic. You can mark an ask done, never drop it."
    )


def lessons_block(session: str, transcript: str) -> str:
    """The part of a session-end prompt that asks for lessons from the person's corrections
    in ``session`` (its ``transcript`` rendered as ``read_session`` shows it, cut)."""
    return (
        f"SESSION THAT JUST ENDED: {session}\n"
        "The one thing you may add: a lesson from a correction the person made in this "
        "session (they told the agent it was wrong, or how to do something instead). Add it "
        'to "lessons" as {"title": "<one line: the rule>", "text": "<what happened and what '
        'to do next time>", "session": "' + session + '", "quote": "<the person\'s EXACT '
        'words of the correction, copied from a [user] turn>"}. At most 3; none when the '
        "person corrected nothing, or when LESSONS.md already says it. The person sees each "
        "as yours and can dispute or retract it.\n\n"
        f"=== SESSION {session} ===\n{cut_tool_result(transcript) or '(empty)'}"
    )


RULES = (
    "Rules:\n"
    "- Archive what is no longer live (done, replaced, superseded), by id.\n"
    "- Merge only true duplicates or supersessions; the merged text must be shorter than the "
    "originals together and keep the file's entry shape.\n"
    "- Never archive or merge an entry tagged pinned.\n"
    "- A pointer is a one-line summary (pointer text only; no file names).\n"
    "- Rewrite INDEX only if it needs it, keeping every line that names an *_ARCHIVE.md file.\n"
    "- The files are shown in full below: do not read them again with the tools.\n"
    "- Reply {} if nothing needs to change."
)


def render_prompt(
    today: str, memory_section: str, asks: Sequence[Ask], corrections: str = ""
) -> str:
    """The user prompt: today, the memory report (sizes, budgets, files), rules, open asks,
    the session that just ended (``corrections``: :func:`lessons_block`, at session end),
    tools and schema. ``memory_section`` is rendered by the caller from the entries state."""
    parts = [f"Today is {today}.", memory_section.strip(), RULES]
    block = open_asks_block(asks)
    if block:
        parts.append(block)
    if corrections:
        parts.append(corrections)
    parts.append("Read-only tools: " + ", ".join(READ_ONLY_TOOLS) + ".")
    parts.append(
        "Reply with ONLY a JSON object of this shape (omit empty keys):\n" + CHOICES_SCHEMA
    )
    return "\n\n".join(p for p in parts if p)
