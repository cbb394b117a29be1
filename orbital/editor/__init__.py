"""The memory editor's shell: the model client (an OpenAI-compatible server, or the agent's own
CLI: :mod:`orbital.editor.choose`), session transcripts on disk, the read-only
tools, the bounded tool loop, one pass, and the single-flight scheduler. The rules it applies
live in :mod:`orbital.domain.editor`. The names load on first use (PEP 562): the scheduler
alone does not bring the model client's HTTP stack."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orbital.lazy import lazy_names

if TYPE_CHECKING:
    from orbital.editor.loop import LoopResult, Toolbox, run_tool_loop
    from orbital.editor.provider import (
        ChatMessage,
        ChatProvider,
        OpenAIChatClient,
        ProviderConfig,
        config_from_env,
    )
    from orbital.editor.run import EditorRun, RunRecord, finish_run
    from orbital.editor.scheduler import Claim, EditorScheduler
    from orbital.editor.sessions import SessionDir, SessionInfo
    from orbital.editor.tools import ReadOnlyTools

_WHERE = {
    "ChatMessage": "orbital.editor.provider",
    "ChatProvider": "orbital.editor.provider",
    "Claim": "orbital.editor.scheduler",
    "EditorRun": "orbital.editor.run",
    "EditorScheduler": "orbital.editor.scheduler",
    "LoopResult": "orbital.editor.loop",
    "OpenAIChatClient": "orbital.editor.provider",
    "ProviderConfig": "orbital.editor.provider",
    "ReadOnlyTools": "orbital.editor.tools",
    "RunRecord": "orbital.editor.run",
    "SessionDir": "orbital.editor.sessions",
    "SessionInfo": "orbital.editor.sessions",
    "Toolbox": "orbital.editor.loop",
    "config_from_env": "orbital.editor.provider",
    "finish_run": "orbital.editor.run",
    "run_tool_loop": "orbital.editor.loop",
}

__all__ = [
    "ChatMessage",
    "ChatProvider",
    "Claim",
    "EditorRun",
    "EditorScheduler",
    "LoopResult",
    "OpenAIChatClient",
    "ProviderConfig",
    "ReadOnlyTools",
    "RunRecord",
    "SessionDir",
    "SessionInfo",
    "Toolbox",
    "config_from_env",
    "finish_run",
    "run_tool_loop",
]


__getattr__ = lazy_names(__name__, _WHERE)
