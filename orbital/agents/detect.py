"""Which coding agents are on this machine, for ``orbital install`` with no agent named (pure):
an agent is found when one of its commands is on PATH or its per-user folder exists (a person
who ran it once has the folder, whatever PATH the installer runs with)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

#: Each agent Orbital installs for, in install order, with the commands that start it.
COMMANDS: Mapping[str, tuple[str, ...]] = {
    "claude-code": ("claude",),
    "codex": ("codex",),
    "cursor": ("cursor", "cursor-agent"),
}


def found(on_path: Callable[[str], bool], has_folder: Mapping[str, bool]) -> list[str]:
    """The agents found, in :data:`COMMANDS` order."""
    return [
        agent
        for agent, names in COMMANDS.items()
        if has_folder.get(agent, False) or any(on_path(name) for name in names)
    ]
