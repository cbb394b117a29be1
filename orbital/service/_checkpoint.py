"""Starting an agent's requested editor pass (a checkpoint) in a process of its own.

A pass takes minutes of model calls; the agent asking for it is answered at once and goes on.
The pass runs as ``orbital editor run --checkpoint REASON`` detached from the asker (its own
session, stdio closed, a lower priority), as a hook starts the automatic pass, so it outlives
an MCP server or CLI call that asked for it; it claims the project itself (single flight by
``orbital/.editor.lock``) and its run record carries the reason to the agent's next reminder.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

from orbital.project import Project

#: The niceness of the pass: it yields the CPU to what someone waits for.
NICENESS = 10


def start_requested_pass(store_url: str, project: Project, reason: str) -> None:
    """``python -m orbital editor run --checkpoint REASON`` for ``project``, detached; the
    store is passed as ``ORBITAL_DB`` (never on the command line, where a password shows)."""
    command = [sys.executable, "-m", "orbital", "editor", "run"]
    command += ["--project", project.root, "--checkpoint", reason]
    child = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "ORBITAL_DB": store_url},
    )
    with contextlib.suppress(OSError):  # it may have exited already
        os.setpriority(os.PRIO_PROCESS, child.pid, NICENESS)
    # Reaped when it ends, so a long-lived asker (an MCP server) keeps no zombie.
    threading.Thread(target=child.wait, name="orbital-checkpoint", daemon=True).start()
