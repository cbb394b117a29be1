"""Citations (issue 29): an entry's ``@file.`` mentions are recorded with the cited content's
hash; a session start (or the agent's next write) that finds a cited file changed or gone
records it, and the entry shows *needs check* in the view, ``beliefs``, history and as-of
reads until the agent or the person confirms it or the entry is rewritten."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from orbital.errors import Refused
from orbital.events import Actor
from orbital.service import Orbital, Project
from tests.seeded import seeded_project


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def now(self) -> dt.datetime:
        return self.at


def day(d: int) -> dt.datetime:
    return dt.datetime(2026, 9, d, 12, 0, tzinfo=dt.UTC)


ID = "parsing-lives-in-one-module"
DECISION = b"## Parsing lives in one module\nChose: @file.src/parse.py does all parsing.\n"


def mark(*moved: str) -> str:
    return (
        f"[needs check: {'; '.join(moved)} — if it still holds, confirm it "
        f"(`orbital entry confirm {ID}`), else rewrite it]"
    )


def states(service: Orbital, pid: str, **kw: object) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(b.id, b.state, b.moved) for b in service.trust.beliefs(pid, **kw)]  # type: ignore[arg-type]


def start(service: Orbital, project: Project) -> str:
    """A session start without a view file: the whole view, after the citations' check."""
    return service.agents.start(project, "s1", None).context


def test_an_edited_cited_file_needs_a_check_until_it_is_confirmed(
    store_url: str, tmp_path: Path
) -> None:
    clock, root = Clock(day(1)), tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, pid):
        project = service.store.project(pid)
        (root / "src").mkdir()
        parse = root / "src" / "parse.py"
        parse.write_text("def parse():\n    pass\n")
        service.write_file(pid, "DECISIONS.md", DECISION, actor=Actor.AGENT)
        assert "needs check" not in start(service, project)
        assert states(service, pid) == [(ID, "held", ())]

        clock.at = day(3)
        parse.write_text("def parse():\n    return 1\n")
        view = start(service, project)
        moved = "@file.src/parse.py changed since 2026-09-03"
        assert f"{mark(moved)}\nChose: @file.src/parse.py does all parsing." in view
        assert states(service, pid) == [(ID, "needs-check", (moved,))]
        assert states(service, pid, states=("needs-check",)) == [(ID, "needs-check", (moved,))]
        # before the edit was seen: held, as it was then
        assert states(service, pid, as_of=day(2)) == [(ID, "held", ())]
        assert "needs check" not in service.context_view(pid, as_of=day(2))
        checked = [e for e in service.history(pid) if e.type == "entry.citation_checked"]
        assert [(e.actor, e.stream) for e in checked] == [(Actor.SYSTEM, f"entry:{ID}")]
        # a second start finds nothing new
        head = service.head(pid)
        start(service, project)
        assert service.head(pid) == head

        clock.at = day(4)
        done = service.citations.confirm(pid, ID, actor=Actor.AGENT)
        assert [e.type for e in done.events] == ["entry.cited"]
        assert states(service, pid) == [(ID, "held", ())]
        assert "needs check" not in start(service, project)
        assert service.citations.confirm(pid, ID, actor=Actor.AGENT).events == []
        # as of the day it needed a check, it still shows so
        assert states(service, pid, as_of=day(3)) == [(ID, "needs-check", (moved,))]


def test_a_deleted_cited_file_needs_a_check(store_url: str, tmp_path: Path) -> None:
    clock, root = Clock(day(1)), tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, pid):
        project = service.store.project(pid)
        (root / "src").mkdir()
        (root / "src" / "parse.py").write_text("def parse(): ...\n")
        service.write_file(pid, "DECISIONS.md", DECISION, actor=Actor.AGENT)
        start(service, project)
        clock.at = day(5)
        (root / "src" / "parse.py").unlink()
        gone = "@file.src/parse.py is gone since 2026-09-05"
        assert mark(gone) in start(service, project)
        assert states(service, pid) == [(ID, "needs-check", (gone,))]
        # back as it was cited: held again, recorded as such
        (root / "src" / "parse.py").write_text("def parse(): ...\n")
        assert "needs check" not in start(service, project)
        assert states(service, pid) == [(ID, "held", ())]


def test_a_line_range_is_checked_alone_and_the_agents_write_checks_too(
    store_url: str, tmp_path: Path
) -> None:
    clock, root = Clock(day(1)), tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, pid):
        (root / "src").mkdir()
        parse = root / "src" / "parse.py"
        parse.write_text("def parse():\n    pass\n")
        text = b"## Parsing lives in one module\nThe entry point: @file.src/parse.py#L1.\n"
        service.write_file(pid, "DECISIONS.md", text, actor=Actor.AGENT)
        parse.write_text("def parse():\n    return 1\n")  # line 2: not cited
        lesson = b"## Run the tests first\nAlways.\n"
        service.write_file(pid, "LESSONS.md", lesson, actor=Actor.AGENT)
        assert states(service, pid)[0] == (ID, "held", ())
        clock.at = day(2)
        parse.write_text("def parse(text):\n    return 1\n")  # line 1: cited
        service.write_file(pid, "LESSONS.md", lesson + b"\nAnd lint.\n", actor=Actor.AGENT)
        moved = "@file.src/parse.py#L1 changed since 2026-09-02"
        assert states(service, pid)[0] == (ID, "needs-check", (moved,))
        assert mark(moved) in service.context_view(pid)
        shown = service.mentions.resolve(pid, "@file.src/parse.py#L1")
        assert getattr(shown, "content", None) == "def parse(text):\n"


def test_rewriting_the_entry_cites_anew_and_only_the_agent_or_person_confirm(
    store_url: str, tmp_path: Path
) -> None:
    clock, root = Clock(day(1)), tmp_path / "p"
    with seeded_project(store_url, root, clock) as (service, pid):
        project = service.store.project(pid)
        (root / "src").mkdir()
        (root / "src" / "parse.py").write_text("a\n")
        service.write_file(pid, "DECISIONS.md", DECISION, actor=Actor.AGENT)
        (root / "src" / "parse.py").write_text("b\n")
        start(service, project)
        assert states(service, pid)[0][1] == "needs-check"
        before, head = (root / "orbital" / "DECISIONS.md").read_bytes(), service.head(pid)
        with pytest.raises(Refused) as refused:
            service.citations.confirm(pid, ID, actor=Actor.EDITOR)
        assert str(refused.value) == (
            "only the agent or the person confirms an entry's citations, not editor"
        )
        assert (root / "orbital" / "DECISIONS.md").read_bytes() == before
        assert service.head(pid) == head
        rewritten = DECISION.replace(b"does all parsing", b"does all parsing, with a lexer")
        service.write_file(pid, "DECISIONS.md", rewritten, actor=Actor.AGENT)
        assert states(service, pid) == [(ID, "held", ())]
        # a person's dispute and reaffirm leave the citations' word standing
        (root / "src" / "parse.py").write_text("c\n")
        start(service, project)
        service.trust.act(pid, ID, "dispute", "unsure", actor=Actor.USER)
        assert states(service, pid)[0][1] == "disputed"
        service.trust.act(pid, ID, "reaffirm", "", actor=Actor.USER)
        assert states(service, pid)[0][1] == "needs-check"
        service.citations.confirm(pid, ID, actor=Actor.USER)
        assert states(service, pid)[0][1] == "held"
