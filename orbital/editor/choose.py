"""Which model the editor talks to: ``ORBITAL_EDITOR_PROVIDER`` (``openai``, the default;
``claude`` or ``codex``: the agent's own CLI), each configured from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping

from orbital.editor.agent_cli import AGENTS, AgentCliProvider, agent_config
from orbital.editor.provider import ChatProvider, OpenAIChatClient, config_from_env
from orbital.errors import EditorAgentMissing


def provider_from_env(environ: Mapping[str, str] | None = None) -> ChatProvider:
    """The provider ``ORBITAL_EDITOR_PROVIDER`` names, configured from the environment;
    :class:`~orbital.errors.EditorNotConfigured` (or its kind for an unusable provider)
    when it cannot be used."""
    env = os.environ if environ is None else environ
    kind = env.get("ORBITAL_EDITOR_PROVIDER", "").strip().lower() or "openai"
    if kind == "openai":
        return OpenAIChatClient(config_from_env(env))
    for agent in AGENTS:
        if kind == agent:
            return AgentCliProvider(agent_config(agent, env))
    raise EditorAgentMissing(
        f"ORBITAL_EDITOR_PROVIDER is {kind!r}, not one of openai, {', '.join(AGENTS)}"
    )
