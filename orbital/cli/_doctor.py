"""``orbital doctor``: what keeps Orbital from serving this folder, one problem a line with the
command that fixes it (:mod:`orbital.service._doctor`); ``--json`` for scripts. The exit
status says how bad: 0 nothing found, 1 warnings, 2 an error."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from orbital.cli._app import cli, project_option
from orbital.project import store_for

if TYPE_CHECKING:
    from orbital.service._installs import Target


@cli.command()
@project_option
@click.option("--json", "as_json", is_flag=True, help="The findings as one JSON object.")
@click.pass_context
def doctor(ctx: click.Context, project_path: Path, as_json: bool) -> None:
    """Check the store, this folder's project and checkout, each agent's installation, the
    MCP configuration and the state folder; print each problem with the command that fixes
    it (exit 0: none, 1: warnings, 2: an error)."""
    from orbital.agents import claude_code as cc
    from orbital.cli._agents import claude_targets
    from orbital.cli._hook import executable
    from orbital.service import AgentSetup
    from orbital.service._doctor import diagnose
    from orbital.service._sessions import state_dir
    from orbital.service._setup import installs

    def agents(root: Path) -> Mapping[str, Sequence[Target]]:
        setup, me = AgentSetup(), executable()
        return {
            cc.AGENT: claude_targets(root),
            "codex": setup.targets("codex", root, me),
            "cursor": setup.targets("cursor", root, me),
        }

    db = store_for(project_path, ctx.obj["db"])
    found = diagnose(project_path, db, executable(), agents, installs(), state_dir())
    if as_json:
        click.echo(json.dumps(found.as_json(), indent=2))
    else:
        for problem in found.problems:
            click.echo(f"{problem.severity}: {problem.area}: {problem.problem}; fix: {problem.fix}")
        if not found.problems:
            click.echo(f"no problems found (store {found.store})")
    ctx.exit(found.status)
