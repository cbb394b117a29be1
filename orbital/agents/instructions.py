"""What an agent is told about Orbital in its instruction file (pure).

The same words go into Codex's ``AGENTS.md`` section and Cursor's rule file: those files are
committed by a team, so they hold nothing machine-specific and nothing that changes with the
memory (the memory itself comes through the MCP tools and the session-start hook).
"""

from __future__ import annotations

INSTRUCTIONS = """\
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
- Asks are things the user has to do or decide. Open one with `ask_open` (or add
  `- open <text>` to ASKS.md) when you are waiting on the user; say `due:YYYY-MM-DD` when there
  is a date.
- Close an ask (`ask_close` with `done` or `dropped`) only on the user's own words, quoted in
  `quote`; never because you think it is finished. Reopen (`ask_reopen`) likewise.
- Never propose again an ask the user dropped, even reworded: Orbital refuses it and the
  refusal tells you so. If the user asks for it again, reopen it with their words.
- A refused write changes nothing: read the refusal, do not retry the same thing.
"""
