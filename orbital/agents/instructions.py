"""What an agent is told about Orbital (pure): each text written once, rendered into every
place an agent takes guidance from.

* :data:`MEMORY` — how to read and write the memory and the asks;
* :data:`LEARNING_CAPTURE` — when to keep a lesson and how to word it, and where the person's
  "remember / always / never" goes (the original's learning-capture skill);
* :data:`INSTRUCTIONS` — both, as Codex's ``AGENTS.md`` section and Cursor's rule hold them.
  Claude Code takes them as two skills (:mod:`orbital.agents.plugin` for the plugin,
  :mod:`orbital.agents.claude_code` for ``orbital install claude-code``).

These files are committed by a team, so they hold nothing machine-specific and nothing that
changes with the memory (the memory itself comes through the MCP tools and the session-start
hook). When to open an ask is ASKS.md's own sentence (:data:`OPEN_AN_ASK_WHEN`).
"""

from __future__ import annotations

from orbital.grammar.asks_md import OPEN_AN_ASK_WHEN

MEMORY = f"""\
## Project memory (Orbital)

`orbital/` holds this project's memory, kept by Orbital: DECISIONS.md, LESSONS.md,
PROJECT_STATE.md, INDEX.md and ASKS.md (things waiting on the user). It is yours to read
and to write, and it outlives this session, so keep it current as you work.

- Read it through the `orbital` MCP tools: `memory_context` (the whole current view; call it
  at the start of a task when the session-start context says it was cut),
  `memory_read`, `memory_get` (an entry or ask by id or `@decision.<id>` mention),
  `memory_history`, `asks_list`.
- Write it with `memory_write` (the whole new content of one file), or by editing the files
  directly: every write goes through Orbital's write path, which stamps ids and applies the
  rules below. Keep each file's first-line format comment. The `*_ARCHIVE.md` files are not
  yours to write.
- Asks are things the user has to do or decide.
  {OPEN_AN_ASK_WHEN}
  Open one with `ask_open` (or add `- open <text>` to ASKS.md); say `due:YYYY-MM-DD` when
  there is a date.
- Close an ask (`ask_close` with `done` or `dropped`) only on the user's own words, quoted in
  `quote`; never because you think it is finished. Reopen (`ask_reopen`) likewise.
- Never propose again an ask the user dropped, even reworded: Orbital refuses it and the
  refusal tells you so. If the user asks for it again, reopen it with their words.
- A refused write changes nothing: read the refusal, do not retry the same thing.
- Keep PROJECT_STATE.md's work-in-progress lines current while you work: when this session
  stops, Orbital hands them (with the user's last requests, the files you changed and the
  asks you opened) to the next session, whichever agent runs it.
"""

LEARNING_CAPTURE = """\
## Learning capture

Keep a lesson in LESSONS.md, in the same turn, before you reply, when one of these happens:

1. **The user corrects you** ("no, not that way", "that's wrong, use …").
2. **A tool or command fails and you find another way** that works.
3. **You discover something non-obvious** about this project that the next session would
   otherwise have to find out again.

Each lesson says what happened, what to do next time, and keywords to find it by:

    N. **<short title>** — What happened: <…>. Next time: <…>. Keywords: <word>, <word>.

Keep one lesson per thing learned; say it again better instead of adding a near copy.

When the user says "remember …", "always …" or "never …", write it down at once, in their
words, in the file it belongs to: how to work → LESSONS.md; a choice about the project →
DECISIONS.md; what is true now → PROJECT_STATE.md; something they will do or decide later →
an ask. A promise in chat to remember is not remembering: only the files outlive the session.
"""

INSTRUCTIONS = f"{MEMORY}\n{LEARNING_CAPTURE}"
