"""The injection view's projectors: the agent's view, the sub-agent's, and the two small
outputs a process needs to find a kept view before reading any state — the zone its day is
reckoned in and the files it mentions.

The view is a function of the memory files, the asks and the project's texts (its description
and workspace; a workspace's change appends a notice to each member project's stream), of
three facts — today in the view's zone, that zone's name as shown, which mentioned files
exist inside the project — and of its window. :class:`ViewProjector.render` builds it from
those alone. It keeps a few of its own intermediate results (a file's rendered text per the
event that last changed it, a file's view per text and budget, the memory block per what it
depends on): each is a pure function of the key it is kept under, so a render that finds one
gives the text a render from scratch would.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from orbital.catalogue import HANDOFF_STREAM, LAYER1_KEYS, MEMORY_PREFIXES, PROJECT_STREAM
from projections._contract import Heads, Key, Projector

if TYPE_CHECKING:
    from orbital.domain.asks import Ask
    from orbital.domain.budgets import TokenCounter
    from orbital.domain.handoff import Handoffs
    from orbital.domain.workspaces import WorkspaceState
    from orbital.grammar.mentions import Mention
    from orbital.grammar.model import FileState
    from projections.view_order import ViewParts

#: Everything the view reads: the memory files, the asks, the project's texts, the hand-offs.
VIEW_READS = (*MEMORY_PREFIXES, "ask:", f"{PROJECT_STREAM}:", f"{HANDOFF_STREAM}:")
#: Bounds of the render's own kept results (per server: a few per project).
_KEEP = 64


class ViewState(NamedTuple):
    """What a view is rendered from (a project's state at some position)."""

    project: str
    #: The newest memory event (entry or file) folded into ``files``.
    memory_position: int
    files: Mapping[str, FileState]
    #: Per memory file: the position of the last event that changed it.
    changed_at: Mapping[str, int]
    asks: Mapping[str, Ask]
    description: str = ""
    workspace: WorkspaceState | None = None
    #: The project's hand-off stream folded (None: not read, as for a view as of a past time).
    handoffs: Handoffs | None = None


class ViewFacts(NamedTuple):
    """The view's facts from outside the store."""

    #: Today in the view's zone.
    today: dt.date
    #: The zone's name as the view shows it.
    zone: str
    #: Each path a ``@file.<path>`` mention names -> it is a file inside the project.
    files: tuple[tuple[str, bool], ...] = ()


class ViewMemo:
    """A render's intermediate results, kept by what each depends on within one store (its
    project and positions): one per service, never shared between stores."""

    def __init__(self) -> None:
        #: Per (project, memory file): the position that last changed it, its rendered text
        #: and the mentions in it.
        self.files: dict[tuple[str, str], tuple[int, str, list[Mention]]] = {}
        #: Per (file key, hard budget, rendered text): the file's view.
        self.views: dict[tuple[str, float, str], str] = {}
        #: Per what the memory block depends on: the block.
        self.blocks: dict[Key, list[str]] = {}


class ZoneProjector(Projector):
    """The IANA name of the zone the view's days are in ("" for the machine's own): the
    workspace's, else the project's setting. A process reads it first, to know which day's
    view to look for."""

    name = "view-zone"
    reads = (f"{PROJECT_STREAM}:",)
    facts = ("project_zone",)  # the project's own setting, from its registration

    @staticmethod
    def render(workspace: WorkspaceState | None, project_zone: str) -> str:
        return (workspace.timezone if workspace else "") or project_zone


class MentionsProjector(Projector):
    """The paths the agent's view of a day mentions (``@file.<path>``), one a line: the shell
    checks each on disk and the result is a fact of both audiences' views (a sub-agent's view
    mentions a part of them)."""

    name = "view-mentions"
    reads = VIEW_READS
    facts = ("today",)

    def __init__(self, view: ViewProjector) -> None:
        self.view = view

    def render(self, state: ViewState, today: dt.date, memo: ViewMemo) -> str:
        from projections.mentions import mentioned_paths

        texts = self.view.mentioned(state, today, memo)
        return "\n".join(dict.fromkeys(mentioned_paths(texts)))


class ViewProjector(Projector):
    """The per-turn injection view (reference §4) of one audience."""

    reads = VIEW_READS
    facts = ("today", "zone", "files")

    def __init__(self, audience: str) -> None:
        self.audience = audience
        self.name = f"view-{audience}"

    def key_of(
        self, project: str, heads: Heads, facts: ViewFacts, window: int | None, session: str = ""
    ) -> Key:
        """:meth:`Projector.key` with the facts of a :class:`ViewFacts`; ``session``: the
        session whose start the view is for (it shows the hand-off that session took)."""
        given: dict[str, Hashable] = {
            "today": facts.today.isoformat(),
            "zone": facts.zone,
            "files": facts.files,
        }
        return self.key(project, heads, given, (window, session) if session else (window,))

    def rendered(self, state: ViewState, memo: ViewMemo) -> dict[str, str]:
        """The memory files as the view shows them (each rendered once per the event that
        last changed it: a write renders only its file)."""
        from orbital.grammar.mentions import find_mentions
        from orbital.grammar.render import render_file
        from projections.beliefs import view_state

        found: dict[str, str] = {}
        for k in LAYER1_KEYS:
            at = state.changed_at.get(k, 0)
            kept = memo.files.get((state.project, k))
            if kept is None or kept[0] != at:
                text = render_file(view_state(state.files[k]))
                kept = (at, text, find_mentions(text))
                if len(memo.files) >= _KEEP:
                    del memo.files[next(iter(memo.files))]
                memo.files[state.project, k] = kept
            found[k] = kept[1]
        return found

    def _parts(self, state: ViewState, today: dt.date, zone: str, memo: ViewMemo) -> ViewParts:
        from projections.asks_view import runtime_block, subagent_dropped_line
        from projections.view_order import ViewParts

        workspace = state.workspace
        subagent = self.audience == "subagent"
        return ViewParts(
            today=today,
            timezone=zone,
            workspace=workspace.name if workspace else "",
            workspace_context=workspace.context if workspace else "",
            description=state.description,
            asks_block=runtime_block(state.asks, today, empty_cue=True),
            dropped_line=subagent_dropped_line(state.asks, today) if subagent else "",
            files={} if subagent else self.rendered(state, memo),
            workspace_lessons=workspace.lessons if workspace and not subagent else "",
        )

    def mentioned(self, state: ViewState, today: dt.date, memo: ViewMemo) -> list[str]:
        """The view's texts that may mention something, in the order pointers are listed."""
        return self._mentioned_in(self._parts(state, today, "", memo), state, memo)

    def _mentioned_in(self, parts: ViewParts, state: ViewState, memo: ViewMemo) -> list[str]:
        texts = [parts.workspace_context, parts.description]
        if self.audience != "subagent":
            mentions: dict[Mention, None] = {}
            for k in parts.files:
                for mention in memo.files[state.project, k][2]:
                    mentions.setdefault(mention, None)
            memory_mentions = " ".join(m.text for m in mentions)
            texts += [parts.asks_block, memory_mentions, parts.workspace_lessons]
        return texts

    def render(
        self,
        state: ViewState,
        facts: ViewFacts,
        count: TokenCounter,
        window: int | None,
        memo: ViewMemo,
        session: str = "",
    ) -> str:
        """The view of ``state`` on ``facts.today``, fitted to ``window`` tokens; at the
        start of ``session``, with the hand-off it took."""
        from dataclasses import replace

        from orbital.domain.handoff import taken
        from projections.handoff import handoff_block
        from projections.mentions import pointers, pointers_block
        from projections.view_order import assemble, head, head_cost
        from projections.views import memory_block

        parts = self._parts(state, facts.today, facts.zone, memo)
        texts = self._mentioned_in(parts, state, memo)
        found = pointers(texts, state.files, state.asks, dict(facts.files))
        handoff = ""
        if state.handoffs is not None and self.audience != "subagent":
            handoff = handoff_block(taken(state.handoffs, session), state.handoffs.kept_at, count)
        parts = replace(parts, pointers_block=pointers_block(found), handoff=handoff)
        if self.audience == "subagent":
            return assemble(parts, count, audience=self.audience)
        # Without a window the budgets are the floors: what the parts before cost changes none.
        reserved = head_cost(head(parts), count) if window is not None else 0.0
        workspace = state.workspace
        key: Key = (
            state.project,
            state.memory_position,
            window,
            facts.today.isoformat(),
            reserved,
            workspace.lessons_at if workspace else 0,
        )
        block = memo.blocks.get(key)
        if block is None:
            block = memory_block(
                parts.files,
                count,
                window=window,
                reserved=reserved,
                workspace_lessons=parts.workspace_lessons,
                view=lambda k, text, hard: _file_view(memo, k, text, hard, count),
            )
            if len(memo.blocks) >= _KEEP:
                memo.blocks.clear()
            memo.blocks[key] = block
        return assemble(parts, count, window=window, memory=block)


def _file_view(memo: ViewMemo, key: str, text: str, hard: float, count: TokenCounter) -> str:
    """:func:`projections.views.file_view`, kept while the file's text and budget stay."""
    found = memo.views.get((key, hard, text))
    if found is None:
        from projections.views import file_view

        found = file_view(key, text, hard, count)
        if len(memo.views) >= _KEEP:
            del memo.views[next(iter(memo.views))]
        memo.views[key, hard, text] = found
    return found
