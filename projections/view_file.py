"""The Claude Code view file (``.claude/orbital-view.md``): the agent's view headed by the
project's position and the day it was rendered for, which Claude Code imports at startup
(its format: :func:`orbital.agents.claude_code_hooks.view_file`)."""

from __future__ import annotations

import datetime as dt

from projections._contract import Projector


class ViewFileProjector(Projector):
    """The view file: the agent's view (so its facts) at the project's head, whatever moved
    (its header names the head)."""

    name = "claude-code-view-file"
    #: Every category: the header carries the project's last position.
    reads = ("",)
    facts = ("today", "zone", "files")

    @staticmethod
    def render(view: str, position: int, today: dt.date, zone_setting: str) -> str:
        from orbital.agents.claude_code_hooks import view_file

        return view_file(view, position, today.isoformat(), zone_setting)


VIEW_FILE_PROJECTOR = ViewFileProjector()
