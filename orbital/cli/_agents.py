"""``orbital install|uninstall <agent>`` and ``orbital hook <agent> <event>``.

The installers read and write the agents' files; what goes in them is decided in
:mod:`orbital.agents` (pure); Codex's and Cursor's are use cases (``orbital/service/_setup.py``).
What each changed is kept in Orbital's state directory (one mechanism for all:
``orbital/service/_installs.py``) so that uninstall gives each file its bytes back. The
hooks themselves run in :mod:`._hook` (without click when started as installed).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from orbital.agents import claude_code as cc
from orbital.agents import codex, cursor, skills
from orbital.agents import git_exclude as ge
from orbital.cli._app import cli, project_option, reports_errors, service_of
from orbital.cli._hook import executable, run_agent_hook, run_hook
from orbital.errors import UnknownProject
from orbital.project import Project
from orbital.service._installs import (
    Installs,
    Target,
    note_created_dirs,
    read_text,
    remove_created_dirs,
    write_text,
)

if TYPE_CHECKING:
    from orbital.service import AgentSetup

#: The files install may change, with how each is changed and undone.
_VIEW = cc.VIEW_FILE
#: The install record's key for the repository's ``info/exclude``.
_EXCLUDE = "git info/exclude"


def _records() -> Installs:
    from orbital.service._setup import installs

    return installs()


def _project(ctx: click.Context, project_path: Path) -> Project:
    """The registered project at ``project_path``, registering it when it is not yet."""
    service = service_of(ctx)
    root = project_path.expanduser().resolve()
    try:
        return service.project(root)
    except UnknownProject:
        project = service.init_project(root)
        pid = project.project_id
        click.echo(f"registered {root} as project {service.names.of(pid)} (id {pid})")
        return project


def claude_targets(root: Path) -> list[Target]:
    return [
        Target(
            cc.SETTINGS_FILE,
            root / cc.SETTINGS_FILE,
            lambda before: cc.install_settings(before, executable()),
            cc.uninstall_settings,
        ),
        Target(cc.MEMORY_FILE, root / cc.MEMORY_FILE, cc.install_import, cc.uninstall_import),
        Target(
            skills.LEARNING_SKILL_FILE,
            root / skills.LEARNING_SKILL_FILE,
            skills.install_learning_skill,
            skills.uninstall_learning_skill,
        ),
    ]


@cli.group(invoke_without_command=True)
@project_option
@click.pass_context
def install(ctx: click.Context, project_path: Path) -> None:
    """Set a project up for a coding agent; with none named, for each agent found here (its
    command on PATH or its folder in your home: ~/.claude, $CODEX_HOME or ~/.codex,
    ~/.cursor)."""
    if ctx.invoked_subcommand is not None:
        return
    agents = _found_agents()
    if not agents:
        raise click.UsageError(
            "no coding agent found (no claude, codex or cursor on PATH, no ~/.claude, "
            "~/.codex or ~/.cursor): name one, e.g. `orbital install claude-code`"
        )
    click.echo(f"found {', '.join(agents)}")
    service_of(ctx)  # one service for all, closed with this command (not with the first)
    for agent in agents:
        command = install.get_command(ctx, agent)
        assert command is not None
        click.echo(f"-- {agent}")
        ctx.invoke(command, project_path=project_path)


def _found_agents() -> list[str]:
    import shutil

    from orbital.agents.detect import found
    from orbital.service import codex_home, cursor_home

    folders = {
        "claude-code": Path.home() / ".claude",
        "codex": codex_home(),
        "cursor": cursor_home(),
    }
    return found(
        lambda name: shutil.which(name) is not None,
        {agent: folder.is_dir() for agent, folder in folders.items()},
    )


@cli.group()
def uninstall() -> None:
    """Undo ``orbital install``: the files as they were before."""


@install.command("claude-code")
@project_option
@click.pass_context
@reports_errors
def install_claude_code(ctx: click.Context, project_path: Path) -> None:
    """Hooks in .claude/settings.local.json, the memory view imported from CLAUDE.local.md,
    the learning-capture skill in .claude/skills/."""
    service = service_of(ctx)
    project = _project(ctx, project_path)
    root = Path(project.root)
    records = _records()
    record = records.load(cc.AGENT, root)
    created_dir = not (root / ".claude").exists() or bool(record.get("created_dir"))
    note_created_dirs(root, skills.LEARNING_SKILL_DIRS, record)
    for line in records.install(record, claude_targets(root)):
        click.echo(line)
    view_path = root / _VIEW
    if records.change(record, _VIEW) is None:
        record[_VIEW] = {"before": read_text(view_path), "written": ""}
    head, view, day, zone = service.agents.current_view(project)
    service.agents.write_view(project, view_path, head, view, day, zone)
    click.echo(f"wrote {_VIEW} (the memory view at @{head}, imported by {cc.MEMORY_FILE})")
    record["created_dir"] = created_dir
    _exclude_from_git(root, record)
    records.save(cc.AGENT, root, record)
    click.echo(f"Claude Code will now load Orbital's memory in {root}")


@uninstall.command("claude-code")
@project_option
@click.pass_context
@reports_errors
def uninstall_claude_code(ctx: click.Context, project_path: Path) -> None:
    """Remove Orbital's hooks, import line and view file; files come back as they were."""
    root = project_path.expanduser().resolve()
    records = _records()
    record = records.load(cc.AGENT, root)
    for line in records.uninstall(record, claude_targets(root), 0):
        click.echo(line)
    view = records.change(record, _VIEW)
    view_path = root / _VIEW
    if view_path.exists() or (view and view.before is not None):
        write_text(view_path, view.before if view else None)
        click.echo(f"{'restored' if view and view.before is not None else 'removed'} {_VIEW}")
    _include_in_git_again(record)
    for line in remove_created_dirs(root, skills.LEARNING_SKILL_DIRS, record):
        click.echo(line)
    folder = root / ".claude"
    if record.get("created_dir") and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        click.echo("removed .claude/ (install created it)")
    records.forget(cc.AGENT, root)


def _exclude_from_git(root: Path, record: dict[str, object]) -> None:
    """The per-person files install made, listed in the repository's ``info/exclude``
    unless git ignores them already (see :mod:`orbital.agents.git_exclude`)."""
    from orbital.cli._git_exclude import repository, to_exclude

    repo = repository(root)
    if repo is None:
        return
    names = [cc.SETTINGS_FILE, _VIEW, skills.LEARNING_SKILL_FILE]
    memory = record.get(cc.MEMORY_FILE)
    if isinstance(memory, dict) and memory.get("before") is None:
        names.append(cc.MEMORY_FILE)  # created by install, so it is Orbital's to exclude
    patterns = to_exclude(repo, root, names)
    earlier = Installs.change(record, _EXCLUDE)
    if not patterns:
        click.echo(f"unchanged {repo.exclude} (git ignores Orbital's files already)")
        return
    current = read_text(repo.exclude)
    change = ge.add_excludes(current, patterns)
    before = earlier.before if earlier and current == earlier.written else current
    record[_EXCLUDE] = {"before": before, "written": change.written, "path": str(repo.exclude)}
    write_text(repo.exclude, change.written)
    click.echo(f"wrote {repo.exclude} (git ignores {', '.join(patterns)})")


def _include_in_git_again(record: dict[str, object]) -> None:
    """Orbital's block taken out of ``info/exclude`` (the file's bytes back if untouched)."""
    found = record.get(_EXCLUDE)
    if not isinstance(found, dict) or not isinstance(found.get("path"), str):
        return
    path = Path(found["path"])
    current = read_text(path)
    if current is None:
        return
    after = ge.remove_excludes(current, Installs.change(record, _EXCLUDE))
    if after != current:
        write_text(path, after)
        click.echo(f"{'removed' if after is None else 'restored'} {path}")


def _setup() -> AgentSetup:
    from orbital.service import AgentSetup

    return AgentSetup(_records())


@install.command("codex")
@project_option
@click.pass_context
@reports_errors
def install_codex(ctx: click.Context, project_path: Path) -> None:
    """The MCP server and hooks in $CODEX_HOME (~/.codex), instructions in AGENTS.md."""
    from orbital.service import codex_home

    project = _project(ctx, project_path)
    for line in _setup().install_codex(project, executable(), codex_home()):
        click.echo(line)


@uninstall.command("codex")
@project_option
@reports_errors
def uninstall_codex(project_path: Path) -> None:
    """Remove what ``orbital install codex`` added; files come back as they were."""
    from orbital.service import codex_home

    root = project_path.expanduser().resolve()
    for line in _setup().uninstall_codex(root, executable(), codex_home()):
        click.echo(line)


@install.command("cursor")
@project_option
@click.pass_context
@reports_errors
def install_cursor(ctx: click.Context, project_path: Path) -> None:
    """The MCP server in .cursor/mcp.json, a rule file, the hooks in ~/.cursor/hooks.json."""
    from orbital.service import cursor_home

    project = _project(ctx, project_path)
    for line in _setup().install_cursor(project, executable(), cursor_home()):
        click.echo(line)


@uninstall.command("cursor")
@project_option
@reports_errors
def uninstall_cursor(project_path: Path) -> None:
    """Remove what ``orbital install cursor`` added; files come back as they were."""
    from orbital.service import cursor_home

    root = project_path.expanduser().resolve()
    for line in _setup().uninstall_cursor(root, executable(), cursor_home()):
        click.echo(line)


# -- hooks ----------------------------------------------------------------------------------


@cli.group()
def hook() -> None:
    """Entry points an agent runs (installed by ``orbital install``), not for you."""


@hook.command("claude-code")
@click.argument("event", type=click.Choice(sorted(cc.HOOK_SLUGS)))
@click.pass_context
def hook_claude_code(ctx: click.Context, event: str) -> None:
    """Answer one Claude Code hook: its JSON payload on stdin, the answer on stdout."""
    run_hook(event, ctx.obj["db"])


@hook.command("codex")
@click.argument("event", type=click.Choice(sorted(codex.HOOK_SLUGS)))
@click.pass_context
def hook_codex(ctx: click.Context, event: str) -> None:
    """Answer one Codex hook: its JSON payload on stdin, the answer on stdout."""
    run_agent_hook("codex", event, ctx.obj["db"])


@hook.command("cursor")
@click.argument("event", type=click.Choice(sorted(cursor.HOOK_SLUGS)))
@click.pass_context
def hook_cursor(ctx: click.Context, event: str) -> None:
    """Answer one Cursor hook: its JSON payload on stdin, the answer on stdout."""
    run_agent_hook("cursor", event, ctx.obj["db"])
