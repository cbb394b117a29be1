"""A cache is never the authority (issue 33, finding 4): anything running as the user can write
the state folder's ``cache/``, so every file there is signed with the store's own key and one
the key does not confirm is dropped. Each tampered cache here changes no decision and no view:
a forged kept-asks file, an emptied meaning index, forged token counts, a line added to a kept
text. Each cache is forged the way its reader decodes it, with and without a made-up
signature in front."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest
from click.testing import CliRunner, Result

from orbital.cli import cli
from orbital.events import Actor
from orbital.service import Orbital

DECISIONS = "## Keep reads warm\nChose: kept texts.\nReason: every command is a new process.\n"
T = TypeVar("T")
FORGED = "## Forged\nChose: whatever the cache says.\n"


class Env:
    def __init__(self, db: str, root: Path, cache: Path) -> None:
        self.db, self.root, self.cache = db, root, cache

    def cli(self, *args: str) -> Result:
        return CliRunner().invoke(cli, [*args, "--project", str(self.root)])

    def service(self) -> Orbital:
        return Orbital.open(self.db)

    def pid(self) -> str:
        with self.service() as service:
            return service.project(self.root).project_id

    def head(self) -> int:
        with self.service() as service:
            return service.head(self.pid())


@pytest.fixture
def env(orbital_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    monkeypatch.setenv("ORBITAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ORBITAL_NOW", "2026-09-19T09:30:00+00:00")
    root = tmp_path / "project"
    root.mkdir()
    assert CliRunner().invoke(cli, ["init", "--project", str(root)]).exit_code == 0
    return Env(orbital_db, root, tmp_path / "state" / "cache")


def forgeries(payload: bytes) -> Iterator[bytes]:
    """The payload as an unsigned file, and behind a signature made up without the key."""
    yield payload
    yield bytes(32) + payload


def decoded(raw: bytes, kind: type[T]) -> T:
    """A kept file's payload, signed (the signature's 32 bytes in front) or not."""
    for data in (raw[32:], raw):
        try:
            return msgspec.msgpack.decode(data, type=kind)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    raise AssertionError("not a kept file")


def test_no_ask_nor_meaning_index_is_kept_outside_the_store(env: Env) -> None:
    """What a short-lived process decides an ask on is read from the store's keys: nothing
    of the asks lies in the state folder for anyone to forge."""
    pid = env.pid()
    with env.service() as service:
        service.ask_open(pid, "Send the deck", actor=Actor.USER)
        (dropped,) = service.asks(pid)
        service.ask_close(pid, dropped.id, "dropped", actor=Actor.USER)
    refused = env.cli("ask", "open", "Send the decks")
    assert f"dropped this as [{dropped.id}]" in refused.output, refused.output
    done = env.cli("ask", "done", "ffffff", "--quote", "paid")
    assert done.exit_code != 0 and "ffffff" in done.output, done.output
    assert env.cli("asks", "--json").output == "[]\n"
    assert not (env.cache / "asks").exists() and not (env.cache / "meanings").exists()


def test_forged_token_counts_change_no_view(env: Env) -> None:
    pid = env.pid()
    with env.service() as service:
        for n in range(12):
            service.ask_open(pid, f"Decide question number {n} of the launch", actor=Actor.USER)
        service.write_file(pid, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
    assert env.cli("context").exit_code == 0  # counts kept for the next process
    path = env.cache / "tokens.msgpack"
    known = decoded(path.read_bytes(), dict[bytes, int])
    assert known
    forged = msgspec.msgpack.encode(dict.fromkeys(known, 10**6))
    with env.service() as service:  # a new head: the next view is rendered, and counted
        service.ask_open(pid, "Decide the launch date", actor=Actor.USER)
        truth = service.context_view(pid)
    for raw in forgeries(forged):
        path.write_bytes(raw)
        for name in (env.cache / "outputs").iterdir():
            name.unlink()
        shown = env.cli("context")
        assert shown.output == truth + "\n"


def _process(*args: str) -> str:
    """``orbital ARGS`` in a new process (the quick lane answers a plain ``show``)."""
    done = subprocess.run(
        [sys.executable, "-c", "from orbital.cli import main; main()", *args],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return done.stdout.decode()


def test_a_line_added_to_a_kept_text_is_not_shown_nor_stored(env: Env) -> None:
    pid = env.pid()
    with env.service() as service:
        service.write_file(pid, "DECISIONS.md", DECISIONS.encode(), actor=Actor.AGENT)
        truth = service.read_file(pid, "DECISIONS.md")
    assert env.cli("show", "DECISIONS.md").output == truth  # kept for the next process
    outputs = [
        p for p in (env.cache / "outputs").iterdir() if b"Chose: kept texts." in p.read_bytes()
    ]
    assert outputs
    before = {p: p.read_bytes() for p in outputs}
    forges: list[Callable[[bytes], bytes]] = [
        lambda raw: raw + FORGED.encode(),
        lambda raw: raw.replace(b"## Keep", FORGED.encode() + b"## Keep"),
    ]
    for forge in forges:
        for path, raw in before.items():
            path.write_bytes(forge(raw))
        shown = env.cli("show", "DECISIONS.md").output
        assert shown == truth
        for path, raw in before.items():
            path.write_bytes(forge(raw))
        assert _process("show", "DECISIONS.md", "--project", str(env.root)) == truth
        for path, raw in before.items():
            path.write_bytes(forge(raw))
        written = CliRunner().invoke(
            cli, ["write", "DECISIONS.md", "--project", str(env.root)], input=shown
        )
        assert written.exit_code == 0, written.output
        with env.service() as service:
            assert "Forged" not in service.read_file(pid, "DECISIONS.md")
