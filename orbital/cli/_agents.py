"""``orbital install|uninstall claude-code`` and ``orbital hook claude-code <event>``.

The installer reads and writes Claude Code's files; what goes in them is decided in
:mod:`orbital.agents.claude_code` (pure). What it changed is kept in Orbital's state directory
so that uninstall gives each file its bytes back. The hook itself runs in :mod:`._hook`
(without click when started as installed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from orbital.agents import claude_code as cc
from orbital.agents import git_exclude as ge
from orbital.cli._app import cli, project_option, reports_errors, service_of
from orbital.cli._hook import executable, run_hook

#: The files install may change, with how each is changed and undone.
_VIEW = cc.VIEW_FILE
#: The install record's key for the repository's ``info/exclude``.
_EXCLUDE = "git info/exclude"


def _state_dir() -> Path:
    from orbital.service._sessions import state_dir

    return state_dir()


def _record_path(root: Path) -> Path:
    import hashlib

    digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    return _state_dir() / "installs" / f"claude-code-{digest}.json"


def _read(path: Path) -> str | None:
    """The file's text, line endings as they are (so uninstall gives the same bytes back)."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None


def _write(path: Path, text: str | None) -> None:
    if text is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_bytes(text.encode("utf-8"))
    os.replace(temp, path)


def _load_record(root: Path) -> dict[str, object]:
    text = _read(_record_path(root))
    record = json.loads(text) if text else {}
    return record if isinstance(record, dict) else {}


def _change(record: dict[str, object], name: str) -> cc.Change | None:
    found = record.get(name)
    if not isinstance(found, dict):
        return None
    before = found.get("before")
    return cc.Change(before if isinstance(before, str) else None, str(found.get("written", "")))


@cli.group()
def install() -> None:
    """Set a project up for a coding agent."""


@cli.group()
def uninstall() -> None:
    """Undo ``orbital install``: the files as they were before."""


@install.command("claude-code")
@project_option
@click.pass_context
@reports_errors
def install_claude_code(ctx: click.Context, project_path: Path) -> None:
    """Hooks in .claude/settings.local.json, the memory view imported from CLAUDE.local.md."""
    service = service_of(ctx)
    root = project_path.expanduser().resolve()
    try:
        project = service.project(root)
    except Exception:
        project = service.init_project(root)
        click.echo(f"registered {root} as project {project.project_id}")
    root = Path(project.root)
    record = _load_record(root)
    created_dir = not (root / ".claude").exists() or bool(record.get("created_dir"))
    installs = (
        (cc.SETTINGS_FILE, lambda before: cc.install_settings(before, executable())),
        (cc.MEMORY_FILE, cc.install_import),
    )
    for name, make in installs:
        path = root / name
        current = _read(path)
        change = make(current)
        earlier = _change(record, name)
        before = earlier.before if earlier and current == earlier.written else current
        record[name] = {"before": before, "written": change.written}
        if change.changed:
            _write(path, change.written)
            click.echo(f"wrote {name}")
        else:
            click.echo(f"unchanged {name}")
    view_path = root / _VIEW
    if _change(record, _VIEW) is None:
        record[_VIEW] = {"before": _read(view_path), "written": ""}
    head, view, day = service.agents.current_view(project)
    service.agents.write_view(project, view_path, head, view, day)
    click.echo(f"wrote {_VIEW} (the memory view at @{head}, imported by {cc.MEMORY_FILE})")
    record["created_dir"] = created_dir
    _exclude_from_git(root, record)
    _write(_record_path(root), json.dumps(record, indent=2))
    click.echo(f"Claude Code will now load Orbital's memory in {root}")


@uninstall.command("claude-code")
@project_option
@click.pass_context
@reports_errors
def uninstall_claude_code(ctx: click.Context, project_path: Path) -> None:
    """Remove Orbital's hooks, import line and view file; files come back as they were."""
    root = project_path.expanduser().resolve()
    record = _load_record(root)
    undos = (
        (cc.SETTINGS_FILE, cc.uninstall_settings),
        (cc.MEMORY_FILE, cc.uninstall_import),
    )
    for name, undo in undos:
        path = root / name
        current = _read(path)
        if current is None:
            continue
        after = undo(current, _change(record, name))
        if after == current:
            click.echo(f"unchanged {name}")
            continue
        _write(path, after)
        click.echo(f"{'removed' if after is None else 'restored'} {name}")
    view = _change(record, _VIEW)
    view_path = root / _VIEW
    if view_path.exists() or (view and view.before is not None):
        _write(view_path, view.before if view else None)
        click.echo(f"{'restored' if view and view.before is not None else 'removed'} {_VIEW}")
    _include_in_git_again(record)
    folder = root / ".claude"
    if record.get("created_dir") and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        click.echo("removed .claude/ (install created it)")
    _record_path(root).unlink(missing_ok=True)


def _exclude_from_git(root: Path, record: dict[str, object]) -> None:
    """The per-person files install made, listed in the repository's ``info/exclude``
    unless git ignores them already (see :mod:`orbital.agents.git_exclude`)."""
    from orbital.cli._git_exclude import repository, to_exclude

    repo = repository(root)
    if repo is None:
        return
    names = [cc.SETTINGS_FILE, _VIEW]
    memory = record.get(cc.MEMORY_FILE)
    if isinstance(memory, dict) and memory.get("before") is None:
        names.append(cc.MEMORY_FILE)  # created by install, so it is Orbital's to exclude
    patterns = to_exclude(repo, root, names)
    earlier = _change(record, _EXCLUDE)
    if not patterns:
        click.echo(f"unchanged {repo.exclude} (git ignores Orbital's files already)")
        return
    current = _read(repo.exclude)
    change = ge.add_excludes(current, patterns)
    before = earlier.before if earlier and current == earlier.written else current
    record[_EXCLUDE] = {"before": before, "written": change.written, "path": str(repo.exclude)}
    _write(repo.exclude, change.written)
    click.echo(f"wrote {repo.exclude} (git ignores {', '.join(patterns)})")


def _include_in_git_again(record: dict[str, object]) -> None:
    """Orbital's block taken out of ``info/exclude`` (the file's bytes back if untouched)."""
    found = record.get(_EXCLUDE)
    if not isinstance(found, dict) or not isinstance(found.get("path"), str):
        return
    path = Path(found["path"])
    current = _read(path)
    if current is None:
        return
    after = ge.remove_excludes(current, _change(record, _EXCLUDE))
    if after != current:
        _write(path, after)
        click.echo(f"{'removed' if after is None else 'restored'} {path}")


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
