"""``orbital hook claude-code <event>`` without click: what a hook process runs.

Claude Code starts a new process for every hook event, so what the process imports is most of
what a hook costs. The ``orbital`` entry point (:func:`orbital.cli.main`) sends the installed
command line (exactly ``hook claude-code <event>``) here before click is imported; the click
command of the same name calls :func:`run_hook` too, so both behave alike. The quick paths
(:mod:`orbital.service._first_look`) answer first; only when they cannot is the service
opened. What no one should wait for (the view file's render, which counts tokens; a memory
editor's pass) is left to a detached process (:func:`start_after`). Hooks are fail-open:
whatever goes wrong is logged (stderr and ``<state dir>/hooks.log``: one line per failure,
the log rotated past :data:`LOG_LIMIT` bytes) and the hook answers nothing, exit 0, so Orbital
down, slow or broken never holds the agent; only the write path's refusals reach it. A locked
store holds a hook at most :data:`HOOK_WAIT_MS` in all; a file tool's hook that fails records
the agent's write in the state folder (:mod:`orbital.service._pending`), so the take-in that
finds those bytes later names the agent and its session.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orbital.agents.claude_code_hooks import Payload
    from orbital.service._first_look import HookResult

#: How long a hook may wait for a locked store, in all, before it fails open.
HOOK_WAIT_MS = 1000
#: ``hooks.log`` is moved to ``hooks.log.1`` (replacing it) past this size.
LOG_LIMIT = 256 * 1024


def executable() -> str:
    """The absolute path of the ``orbital`` running now (what the hooks will call)."""
    return os.path.abspath(sys.argv[0])


def log(message: str) -> None:
    """One line on stderr and in ``hooks.log`` (rotated past :data:`LOG_LIMIT` bytes)."""
    import datetime as dt

    from orbital.service._sessions import state_dir

    message = " ".join(message.split())
    sys.stderr.write(f"orbital hook: {message}\n")
    try:
        path = state_dir() / "hooks.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size > LOG_LIMIT:
            os.replace(path, path.with_name("hooks.log.1"))
        with path.open("a", encoding="utf-8") as file:
            file.write(f"{dt.datetime.now(dt.UTC).isoformat()} {message}\n")
    except OSError:
        pass


#: The niceness of a detached process: it yields the CPU to the hooks and commands someone
#: waits for (on two cores, the view file's render slowed the exit of the hook that started it).
DETACHED_NICENESS = 10


def start_detached(db: str | None, args: list[str]) -> None:
    """``orbital ARGS`` in a session of its own, detached and at a lower priority: Claude Code
    never waits for it."""
    import subprocess

    env = dict(os.environ)
    if db:
        env["ORBITAL_DB"] = db
    child = subprocess.Popen(
        [executable(), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    with contextlib.suppress(OSError):  # its own priority, if it already exited
        os.setpriority(os.PRIO_PROCESS, child.pid, DETACHED_NICENESS)


def start_after(db: str | None, result: HookResult) -> None:
    """What a hook leaves to detached processes: the view file brought up to date (rendering
    the view counts tokens, and loading the tokenizer alone takes ≈ 0.2 s) and a
    memory-editor pass."""
    if result.project is None:
        return
    root = result.project.root
    if result.view_file:
        start_detached(db, ["editor", "view-file", "--project", root])
    if result.editor:
        command = ["editor", "run", "--project", root]
        if result.editor_sessions is not None:
            command += ["--sessions", str(result.editor_sessions)]
        if result.editor_session:
            command += ["--session", result.editor_session]
        start_detached(db, command)


#: The most of the agent's last message a Stop hook hands its detached process (the hand-off
#: keeps less: :data:`orbital.domain.handoff.PLAN_CHARS`).
SAID_LIMIT = 4000


def keep_handoff(agent: str, payload: Payload, db: str | None) -> None:
    """A turn ended (``Stop``): the hand-off is kept by a detached process (reading the
    transcript and checking its texts for secrets takes about a second, and the agent waits
    for its Stop hooks); the hook answers nothing, since context there makes the agent go
    on. Session end keeps it in the hook itself."""
    from orbital.project import store_for

    if not payload.cwd or not payload.session_id:
        return
    args = ["handoff", f"--project={payload.cwd}", f"--keep={payload.session_id}"]
    args += [f"--agent={agent}", f"--transcript={payload.transcript_path}"]
    args.append(f"--said={payload.last_assistant_message[:SAID_LIMIT]}")  # "=": may start "-"
    start_detached(store_for(payload.cwd, db), args)


def _left(deadline: float) -> int:
    """The milliseconds left before ``deadline`` (at least a few)."""
    return max(50, int((deadline - time.monotonic()) * 1000))


def run_hook(event: str, db: str | None) -> None:
    """Answer one Claude Code hook: its JSON payload on stdin, the answer on stdout."""
    from orbital.project import store_for

    deadline = time.monotonic() + HOOK_WAIT_MS / 1000
    payload: Payload | None = None
    cwd = "."
    try:
        from orbital.agents.claude_code_hooks import parse_payload
        from orbital.service._first_look import quick_answer

        payload = parse_payload(sys.stdin.buffer.read())
        if event == "stop":
            keep_handoff("claude-code", payload, db)
            return
        cwd = payload.cwd or "."
        db = store_for(cwd, db)
        result = quick_answer(event, payload, db, timeout_ms=_left(deadline))
        if result is None:
            from orbital.service import Orbital
            from orbital.service._sessions import state_dir

            with Orbital.open(db, create=False, busy_timeout_ms=_left(deadline)) as service:
                service.keep_caches(state_dir() / "cache")
                result = service.claude_code.handle(event, payload)
    except Exception as exc:
        _failed(event, exc, payload)
        if event == "session-start":
            _tell_agent(cwd, exc)
        return
    if result.problem:
        log(f"{event}: {result.problem}")
    if result.answer is not None:
        sys.stdout.write(json.dumps(result.answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    try:  # after the answer: a process that cannot be started loses nothing of it
        start_after(db, result)
    except Exception as exc:
        _failed(event, exc)


def _tell_agent(cwd: str, exc: Exception) -> None:
    """A session start in a project whose store cannot be used says so to the agent, in one
    line (a folder of no project stays silent)."""
    from orbital.agents.claude_code_hooks import context_answer, unreachable_notice
    from orbital.project import identity_above

    if identity_above(cwd) is None:
        return
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    answer = context_answer("SessionStart", unreachable_notice(reason))
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _failed(event: str, exc: Exception, payload: Payload | None = None, label: str = "") -> None:
    """Log the failure in one line; for a file tool's hook, record the agent's write."""
    log(f"{label or event}: {type(exc).__name__}: {exc}")
    if payload is None:
        return
    from orbital.service._pending import (
        TOOL_HOOKS,
        pending_writes,
        project_folder,
        record_pending,
    )
    from orbital.service._sessions import state_dir

    try:
        root = project_folder(payload.cwd) if event in TOOL_HOOKS else None
        if root is not None:
            p = payload
            writes = pending_writes(event, p.session_id, p.tool_name, p.tool_input, p.cwd, root)
            record_pending(state_dir(), root, writes)
    except Exception as failed:  # fail-open all the way: the agent goes on
        log(f"{event}: the agent's write was not recorded: {type(failed).__name__}: {failed}")


def run_agent_hook(agent: str, event: str, db: str | None) -> None:
    """Answer one Codex or Cursor hook (``orbital hook codex|cursor <event>``): their JSON
    payload on stdin, the answer on stdout; fail-open like :func:`run_hook`, and a Codex
    session start whose store cannot be used says so as Claude Code's does."""
    payload: Payload | None = None
    cwd = os.getcwd()
    try:
        from orbital.agents.claude_code_hooks import parse_payload
        from orbital.agents.cursor import parse_payload as parse_cursor
        from orbital.project import store_for
        from orbital.service import Orbital
        from orbital.service._sessions import state_dir

        raw = sys.stdin.buffer.read()
        payload = parse_payload(raw) if agent == "codex" else parse_cursor(raw)
        if event == "stop":
            keep_handoff(agent, payload, db)
            return
        cwd = payload.cwd or cwd
        store = store_for(cwd, db)
        with Orbital.open(store, create=False, busy_timeout_ms=HOOK_WAIT_MS) as service:
            service.keep_caches(state_dir() / "cache")
            answer: object
            if agent == "codex":
                from orbital.service._codex import CodexHooks

                answer = CodexHooks(service.agents).handle(event, payload)
            else:
                from orbital.service._cursor import CursorHooks

                answer = CursorHooks(service.agents).handle(event, payload)
    except Exception as exc:
        _failed(event, exc, payload, f"{agent} {event}")
        if agent == "codex" and event == "session-start":
            _tell_agent(cwd, exc)
        return
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
