"""The memory editor's shell: the model client, session transcripts on disk, the read-only
tools, the bounded tool loop, one pass, and the single-flight scheduler. The rules it applies
live in :mod:`orbital.domain.editor`."""

from orbital.editor.loop import LoopResult, Toolbox, run_tool_loop
from orbital.editor.provider import (
    ChatMessage,
    ChatProvider,
    OpenAIChatClient,
    ProviderConfig,
    config_from_env,
)
from orbital.editor.run import EditorRun, RunRecord, finish_run, run_editor
from orbital.editor.scheduler import Claim, EditorScheduler
from orbital.editor.sessions import SessionDir, SessionInfo
from orbital.editor.tools import ReadOnlyTools

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
    "run_editor",
    "run_tool_loop",
]
