"""The ``orbital`` command line. It parses arguments, calls the service, prints results;
rules live below it. Orbital's typed errors become one ``error:`` line and the exit status of
their family (``_app.py``). Each command's module is imported when that command runs, and a
Claude Code hook started as installed (``orbital hook claude-code <event>``, a new process per
event) skips click altogether (``_hook.py``).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orbital.cli._app import cli

__all__ = ["cli", "main"]


def main() -> None:
    args = sys.argv[1:]
    if len(args) == 3 and args[:2] == ["hook", "claude-code"]:
        from orbital.agents.claude_code import HOOK_SLUGS

        if args[2] in HOOK_SLUGS:
            from orbital.cli._hook import run_hook

            run_hook(args[2], os.environ.get("ORBITAL_DB") or None)
            return
    from orbital.cli._app import main as run_cli

    run_cli()


def __getattr__(name: str) -> Any:
    if name == "cli":
        from orbital.cli._app import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
