"""``orbital install|uninstall codex|cursor`` as use cases: which files, through the record
mechanism Claude Code's installer uses too (:mod:`._installs`).

What goes into each file is decided in :mod:`orbital.agents` (pure); the record of what was
changed and its undoing is :mod:`._installs`. Each use case returns the lines to print.
"""

from __future__ import annotations

import os
from pathlib import Path

from orbital.agents import codex, cursor
from orbital.project import Project
from orbital.service._installs import Installs, Target, note_created_dirs, remove_created_dirs


def codex_home() -> Path:
    """Codex's home: ``CODEX_HOME``, default ``~/.codex``."""
    named = os.environ.get("CODEX_HOME", "").strip()
    return Path(named) if named else Path.home() / ".codex"


def cursor_home() -> Path:
    """Cursor's per-user folder, ``~/.cursor``."""
    return Path.home() / ".cursor"


def _home_name(path: Path) -> str:
    """``path`` as printed: under the home folder as ``~/…``."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def installs() -> Installs:
    """The install records in the state directory."""
    from orbital.service._sessions import state_dir

    return Installs(state_dir() / "installs")


class AgentSetup:
    """The Codex and Cursor installers over the install records (``records``: default the
    state directory's)."""

    def __init__(self, records: Installs | None = None) -> None:
        self._installs = records

    @property
    def installs(self) -> Installs:
        if self._installs is None:
            self._installs = installs()
        return self._installs

    # -- Codex ------------------------------------------------------------------------------

    def _codex_targets(self, root: Path, executable: str, home: Path) -> list[Target]:
        config, hooks = home / codex.CONFIG_FILE, home / codex.HOOKS_FILE
        return [
            Target(
                _home_name(config),
                config,
                lambda before: codex.install_config(before, executable),
                codex.uninstall_config,
                shared=True,
            ),
            Target(
                _home_name(hooks),
                hooks,
                lambda before: codex.install_hooks(before, executable),
                codex.uninstall_hooks,
                shared=True,
            ),
            Target(
                codex.AGENTS_FILE,
                root / codex.AGENTS_FILE,
                codex.install_agents_md,
                codex.uninstall_agents_md,
            ),
        ]

    def targets(self, agent: str, root: Path, executable: str) -> list[Target]:
        """The files an install of Codex or Cursor changes for ``root`` (``orbital doctor``
        checks them)."""
        if agent == codex.AGENT:
            return self._codex_targets(root, executable, codex_home())
        return self._cursor_targets(root, executable, cursor_home())

    def _install(
        self, agent: str, root: Path, targets: list[Target], dirs: tuple[str, ...] = ()
    ) -> list[str]:
        """Apply ``targets`` for ``agent`` in ``root``, recording what each file was (and
        which of ``dirs`` it created) so uninstall gives it back."""
        record = self.installs.load(agent, root)
        if dirs:
            note_created_dirs(root, list(dirs), record)
        lines = self.installs.install(record, targets)
        self.installs.save(agent, root, record)
        return lines

    def _uninstall(
        self, agent: str, root: Path, targets: list[Target], dirs: tuple[str, ...] = ()
    ) -> list[str]:
        """Give back what :meth:`_install` changed; files shared with other installed projects
        are kept until the last one goes."""
        record = self.installs.load(agent, root)
        others = self.installs.others(agent, root)
        lines = self.installs.uninstall(record, targets, others)
        lines += remove_created_dirs(root, list(dirs), record)
        self.installs.forget(agent, root)
        return lines

    def install_codex(self, project: Project, executable: str, home: Path) -> list[str]:
        """The MCP server and hooks in Codex's home, the instructions in ``AGENTS.md``."""
        root = Path(project.root)
        lines = self._install(codex.AGENT, root, self._codex_targets(root, executable, home))
        lines.append(
            f"Codex will now use Orbital's memory in {root}; it runs the hooks once you trust "
            "them (`/hooks` in codex)"
        )
        return lines

    def uninstall_codex(self, root: Path, executable: str, home: Path) -> list[str]:
        return self._uninstall(codex.AGENT, root, self._codex_targets(root, executable, home))

    # -- Cursor -----------------------------------------------------------------------------

    _CURSOR_DIRS = (".cursor", ".cursor/rules")

    def _cursor_targets(self, root: Path, executable: str, home: Path) -> list[Target]:
        hooks = home / cursor.HOOKS_FILE
        return [
            Target(
                cursor.MCP_FILE, root / cursor.MCP_FILE, cursor.install_mcp, cursor.uninstall_mcp
            ),
            Target(
                cursor.RULE_FILE,
                root / cursor.RULE_FILE,
                cursor.install_rule,
                cursor.uninstall_rule,
            ),
            Target(
                _home_name(hooks),
                hooks,
                lambda before: cursor.install_hooks(before, executable),
                cursor.uninstall_hooks,
                shared=True,
            ),
        ]

    def install_cursor(self, project: Project, executable: str, home: Path) -> list[str]:
        """The MCP server in ``.cursor/mcp.json``, the rule file, the hooks in ``~/.cursor``."""
        root = Path(project.root)
        targets = self._cursor_targets(root, executable, home)
        lines = self._install(cursor.AGENT, root, targets, self._CURSOR_DIRS)
        lines.append(
            f"Cursor will now use Orbital's memory in {root} (its MCP server runs `orbital` "
            "from the PATH)"
        )
        return lines

    def uninstall_cursor(self, root: Path, executable: str, home: Path) -> list[str]:
        targets = self._cursor_targets(root, executable, home)
        return self._uninstall(cursor.AGENT, root, targets, self._CURSOR_DIRS)
