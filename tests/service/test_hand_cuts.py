"""Issue 33 finding 6: removals by hand that look like a cut (several entries, or the head or
tail of a file, gone in one save) are held for the person: a conflict copy to confirm in the
Workbench (Keep mine) or list with ``orbital conflicts``, never taken as intent. One entry
removed, or two apart inside the file, is meant and taken in."""

from __future__ import annotations

import pytest

from orbital.events import Actor
from tests.service.conftest import Env

TEN = "".join(f"## Decision {n}\nChose: option {n}.\n\n" for n in range(10))
IDS = [f"decision-{n}" for n in range(10)]


def _seed(env: Env) -> str:
    env.orbital.write_file(env.project, "DECISIONS.md", TEN.encode(), actor=Actor.AGENT)
    return (env.memory / "DECISIONS.md").read_text()


def _without(text: str, numbers: range | tuple[int, ...]) -> str:
    """``text`` with the blocks of the entries ``numbers`` cut out at their boundaries."""
    for n in numbers:
        start = text.index(f"## Decision {n} ")
        end = text.find("## Decision", start + 1)
        text = text[:start] + (text[end:] if end != -1 else "")
    return text


def _statuses(env: Env) -> dict[str, str]:
    return {r.id: r.status for r in env.orbital.memory_entries(env.project)}


def _file_events(env: Env) -> list[str]:
    return [e.type for e in env.orbital.history(env.project) if e.actor == Actor.FILE]


def _held(how: str, copy: str) -> str:
    return (
        f"DECISIONS.md was edited outside Orbital and the edit {how}, as a file cut short "
        f"does; nothing was taken from it. The edited file is saved as orbital/{copy} and "
        "DECISIONS.md was regenerated from events: if you meant the removals, choose Keep mine "
        "for that copy in the Workbench (`orbital conflicts` lists it); if not, delete the copy."
    )


@pytest.mark.parametrize(
    ("gone", "how"),
    [
        (range(5, 10), "removes 5 of its 10 entries in one save"),  # cut to its first 5
        (range(5), "removes 5 of its 10 entries in one save"),  # its first 5 removed
        ((3, 5, 7), "removes 3 of its 10 entries in one save"),
        ((8, 9), "removes the last 2 of its 10 entries"),
        ((0, 1), "removes the first 2 of its 10 entries"),
    ],
)
def test_a_save_that_looks_cut_is_held_for_the_person(
    env: Env, gone: tuple[int, ...], how: str
) -> None:
    written = _seed(env)
    cut = _without(written, gone)
    (env.memory / "DECISIONS.md").write_text(cut)
    report = env.orbital.sync(env.project)
    (copy,) = report.conflicts
    assert report.warnings == [_held(how, copy)]
    assert (env.memory / copy).read_text() == cut
    assert (env.memory / "DECISIONS.md").read_text() == written  # regenerated
    assert _statuses(env) == dict.fromkeys(IDS, "live")
    assert _file_events(env) == ["file.hand_edit_detected", "file.hand_edit_conflict"]
    assert [c.copy for c in env.orbital.conflicts(env.project)] == [copy]


def test_keep_mine_confirms_the_cut(env: Env) -> None:
    written = _seed(env)
    (env.memory / "DECISIONS.md").write_text(_without(written, range(5, 10)))
    (copy,) = env.orbital.sync(env.project).conflicts
    env.orbital.write_file(  # the store moves on meanwhile
        env.project,
        "DECISIONS.md",
        (written + "## Ship on Fridays\nChose: yes.\n").encode(),
        actor=Actor.AGENT,
    )
    env.orbital.resolve_conflict(env.project, copy, "mine", actor=Actor.USER)
    statuses = _statuses(env)
    assert [i for i in IDS if statuses[i] == "retired"] == IDS[5:]
    assert [i for i, s in statuses.items() if s == "live"] == [*IDS[:5], "ship-on-fridays"]
    assert env.orbital.conflicts(env.project) == []


@pytest.mark.parametrize("gone", [(9,), (0,), (4,), (3, 6)])
def test_one_entry_or_two_apart_removed_by_hand_are_meant(env: Env, gone: tuple[int, ...]) -> None:
    written = _seed(env)
    (env.memory / "DECISIONS.md").write_text(_without(written, gone))
    report = env.orbital.sync(env.project)
    assert report.conflicts == []
    retired = [i for i, s in _statuses(env).items() if s == "retired"]
    assert retired == [f"decision-{n}" for n in gone]
