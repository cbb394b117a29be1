"""Issue 12 item 2: a person's save that lands while Orbital rewrites the same file is never
lost. With the watcher on, one thread saves DECISIONS.md by hand again and again (each save
adds an entry; half by rename as many editors do, half in place) while Orbital rewrites the
file (pin and unpin of an entry). Every hand-added entry ends up live or in a conflict copy."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from orbital.domain.entry_actions import EntryAction
from orbital.events import Actor
from orbital.service import Orbital
from orbital.watcher import Watcher

SAVES = 60
SEED = "## Keep the seed entry\nChose: yes.\nReason: it is pinned and unpinned.\n"


#: The person's editor, in its own process: each save adds an entry, by rename or in place.
SAVER = """
import os, random, sys, time
from pathlib import Path

path, saves, rng = Path(sys.argv[1]), int(sys.argv[2]), random.Random(3)
for n in range(saves):
    text = path.read_text().rstrip() + f"\\n\\n## Hand {n}\\nChose: saved by hand {n}.\\n"
    if n % 2 == 0:
        temp = path.with_name(f".{path.name}.swp")
        temp.write_text(text)
        os.replace(temp, path)
    else:
        with path.open("w") as handle:
            handle.write(text)
    time.sleep(rng.uniform(0.005, 0.03))
"""


def test_every_hand_save_survives_while_orbital_rewrites_the_file(
    store_url: str, tmp_path: Path, figures: list[str]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    service = Orbital.open(store_url)
    project = service.init_project(root, timezone="UTC").project_id
    service.write_file(project, "DECISIONS.md", SEED.encode(), actor=Actor.AGENT)
    entry = "keep-the-seed-entry"
    memory = root / "orbital"
    watcher = Watcher(service, lambda _message: None, settle=0.05, debounce_ms=20)
    watcher.start()
    saver = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(memory / "DECISIONS.md"), str(SAVES)]
    )
    rewrites = 0
    try:
        while saver.poll() is None:
            action: EntryAction = "pin" if rewrites % 2 == 0 else "unpin"
            service.entry_action(project, entry, action, actor=Actor.USER)
            rewrites += 1
        assert saver.wait() == 0
        time.sleep(1.0)  # the watcher takes the last saves in
    finally:
        watcher.stop()
    service.sync(project)
    live = (memory / "DECISIONS.md").read_text()
    copies = [p.read_text() for p in memory.glob("DECISIONS.md.conflict-*")]
    lost = [
        n
        for n in range(SAVES)
        if f"## Hand {n}" not in live and not any(f"## Hand {n}" in c for c in copies)
    ]
    in_copies = sum(f"## Hand {n}" not in live for n in range(SAVES)) - len(lost)
    figures.append(
        f"hand saves under rewrites ({service.store.backend}): {SAVES} saves, {rewrites} "
        f"rewrites by Orbital, {SAVES - in_copies - len(lost)} live, {in_copies} in conflict "
        f"copies, lost {len(lost)}"
    )
    service.close()
    assert lost == []
