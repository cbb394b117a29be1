"""The ``orbital`` command line. It parses arguments, calls the service, prints results;
rules live below it. Orbital's typed errors become one ``error:`` line and the exit status of
their family (``_app.py``). Each command's module is imported when that command runs, and a
hook started as installed (``orbital hook claude-code|codex|cursor <event>``, a new process per
event) skips click altogether (``_hook.py``), and so do a plain ``context`` or ``show`` whose
answer an earlier process kept (``_quick.py``) and a plain ``ask open|done|drop|reopen`` or
``write FILE`` (``_quick_writes.py``).
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
    if len(args) == 3 and args[0] == "hook" and args[1] in ("codex", "cursor"):
        from orbital.agents import codex, cursor

        if args[2] in (codex.HOOK_SLUGS if args[1] == "codex" else cursor.HOOK_SLUGS):
            from orbital.cli._hook import run_agent_hook

            run_agent_hook(args[1], args[2], os.environ.get("ORBITAL_DB") or None)
            return
    if args and args[0] in ("context", "show"):
        from orbital.cli._quick import quick_read

        if quick_read(args):
            return
    if args and args[0] in ("ask", "write"):
        from orbital.cli._quick_writes import quick_write

        if quick_write(args):
            return
    from orbital.cli._app import main as run_cli

    run_cli()


def __getattr__(name: str) -> Any:
    if name == "cli":
        from orbital.cli._app import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
