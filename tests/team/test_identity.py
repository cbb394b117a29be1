"""A project's identity travels with its repository (issue 18): ``orbital init`` writes the
committed ``orbital/project-id``; a folder holding it joins that project as a checkout of its
own; a renamed folder keeps its checkout; unrelated folders never share a project."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from orbital.clock import FixedClock
from orbital.errors import Refused
from orbital.events import Actor
from orbital.service import Orbital


@pytest.fixture
def service(store_url: str, clock: FixedClock) -> Iterator[Orbital]:
    with Orbital.open(store_url, clock=clock) as opened:
        yield opened


def id_file(folder: Path) -> Path:
    return folder / "orbital" / "project-id"


def clone(source: Path, folder: Path) -> Path:
    (folder / "orbital").mkdir(parents=True)
    shutil.copy(id_file(source), id_file(folder))
    return folder


def test_init_writes_a_random_id_and_unrelated_folders_get_their_own(
    service: Orbital, tmp_path: Path
) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two" / "one").mkdir(parents=True)  # the same folder name elsewhere
    first = service.init(tmp_path / "one").project
    second = service.init(tmp_path / "two" / "one").project
    ids = [id_file(tmp_path / "one").read_text(), id_file(tmp_path / "two/one").read_text()]
    assert all(re.fullmatch(r"[0-9a-f]{32}\n", text) for text in ids)
    assert ids[0] != ids[1]
    assert [first.project_id, second.project_id] == [text.strip() for text in ids]
    assert service.init(tmp_path / "one").project == first  # idempotent, id file unchanged
    assert id_file(tmp_path / "one").read_text() == ids[0]


def test_a_clone_joins_the_project_as_a_checkout_with_its_files_written(
    service: Orbital, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    a = service.init(tmp_path / "a").project
    pid = a.project_id
    service.ask_open(pid, "review the shared store", actor=Actor.AGENT)
    b = service.init(clone(tmp_path / "a", tmp_path / "b")).project
    assert (b.project_id, b.checkout, b.root) == (pid, f"{pid}.2", str(tmp_path / "b"))
    assert [p.checkout for p in service.local.all()] == [pid, f"{pid}.2"]
    assert [p.project_id for p in service.projects()] == [pid]
    for name in ("ASKS.md", "DECISIONS.md", "PROJECT_STATE.md"):
        ours = (tmp_path / "b" / "orbital" / name).read_bytes()
        assert ours == (tmp_path / "a" / "orbital" / name).read_bytes()
    assert service.project(tmp_path / "b" / "orbital") == b  # a folder inside: that checkout
    assert service.project(pid) == b  # by id: the checkout this process last worked in


def test_a_renamed_folder_keeps_its_checkout_and_its_checkpoints(
    service: Orbital, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    a = service.init(tmp_path / "a").project
    pid = a.project_id
    (tmp_path / "a").rename(tmp_path / "renamed")
    moved = service.project(tmp_path / "renamed")
    assert (moved.project_id, moved.checkout, moved.root) == (pid, pid, str(tmp_path / "renamed"))
    assert service.sync(a.project_id).warnings == []  # its files are what was written
    assert len(service.local.all()) == 1
    assert [e.position for e in service.history(pid)] == [1]  # nothing taken in again


def test_a_registered_folder_whose_id_file_names_another_project_is_refused(
    service: Orbital, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    service.init(tmp_path / "a")
    b = service.init(tmp_path / "b").project.project_id
    shutil.copy(id_file(tmp_path / "a"), id_file(tmp_path / "b"))
    with pytest.raises(Refused) as refused:
        service.init(tmp_path / "b")
    assert str(refused.value) == (
        f"{tmp_path / 'b'} is registered as project {b}, but its orbital/project-id names "
        f"another project ({id_file(tmp_path / 'a').read_text().strip()}): restore the file, "
        "or move the folder and run `orbital init` there"
    )


def test_a_project_from_before_identities_follows_its_machine_to_a_new_host_name(
    service: Orbital, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORBITAL_MACHINE", "old-name")
    (tmp_path / "a").mkdir()
    pid = service.init(tmp_path / "a").project.project_id
    id_file(tmp_path / "a").unlink()
    with service.store.writing() as w:  # as migration 0006 leaves a project: no identity
        w._set_identity(pid, None)  # type: ignore[arg-type]
    monkeypatch.setenv("ORBITAL_MACHINE", "new-name")
    found = service.project(tmp_path / "a")
    assert (found.project_id, found.checkout) == (pid, pid)
    assert [c.checkout for c in service.local.all()] == [pid]
    assert re.fullmatch(r"[0-9a-f]{32}\n", id_file(tmp_path / "a").read_text())


def test_unrelated_projects_at_the_same_path_on_two_machines_are_two_projects(
    service: Orbital, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Containers of one team often use one path (``/app``) for different repositories."""
    folder = tmp_path / "app"
    folder.mkdir()
    monkeypatch.setenv("ORBITAL_MACHINE", "alice-box")
    alice = service.init(folder).project
    id_file(folder).unlink()  # bob's repository at the same path is another one
    monkeypatch.setenv("ORBITAL_MACHINE", "bob-box")
    bob = service.init(folder).project
    assert bob.project_id == id_file(folder).read_text().strip() != alice.project_id
    assert service.names.all() == {alice.project_id: "app", bob.project_id: "app"}
    assert [c.checkout for c in service.local.all()] == [bob.project_id]
