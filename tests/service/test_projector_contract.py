"""The projector contract, for every projector in ``projections/``: the key changes with every
declared input and with nothing else; a render does no I/O; and over generated histories, an
output kept by one process and read back by its key in a new process equals that new process's
own fresh render (each backend)."""

from __future__ import annotations

import builtins
import datetime as dt
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from orbital.catalogue import ARCHIVE_FILES, LAYER1_KEYS, MEMORY_FILES
from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from orbital.service._workspaces import view_texts
from orbital.tokens import CachedCounter
from projections import (
    ARCHIVE_PROJECTORS,
    ASKS_FILE_PROJECTOR,
    MEMORY_FILE_PROJECTORS,
    PROJECTORS,
    VIEW_FILE_PROJECTOR,
    VIEW_MENTIONS,
    VIEW_ZONE,
    VIEWS,
    Heads,
    ViewFacts,
    ViewMemo,
    ViewState,
)

NOW = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
ROOT = Path(__file__).resolve().parents[2]
CATEGORIES = ("entry", "file", "ask", "project", "workspace-notes")
FACT_VALUES: dict[str, tuple[Hashable, Hashable]] = {
    "today": ("2026-09-19", "2026-09-20"),
    "zone": ("UTC", "Europe/Berlin"),
    "files": ((("src/a.py", False),), (("src/a.py", True),)),
    "project_zone": ("", "Asia/Tokyo"),
}

heads_of = st.fixed_dictionaries(
    {
        c: st.tuples(st.integers(1, 10_000), st.text("0123456789abcdef", min_size=4, max_size=8))
        for c in CATEGORIES
    }
)


@pytest.mark.parametrize("name", sorted(PROJECTORS))
@given(categories=heads_of, bump=st.integers(1, 50))
def test_the_key_changes_with_every_declared_input_and_nothing_else(
    name: str, categories: dict[str, tuple[int, str]], bump: int
) -> None:
    projector = PROJECTORS[name]
    facts = {f: FACT_VALUES[f][0] for f in projector.facts}
    key = projector.key("p1", Heads(categories), facts, ("w",))
    assert projector.key("p1", Heads(dict(categories)), dict(facts), ("w",)) == key
    newest = max(categories.values())
    for category in CATEGORIES:
        moved = {**categories, category: (newest[0] + bump, "moved")}
        read = any(
            category == p[:-1] if p.endswith(":") else category.startswith(p)
            for p in projector.reads
        )
        assert (projector.key("p1", Heads(moved), facts, ("w",)) != key) == read, category
    for fact in projector.facts:
        other = {**facts, fact: FACT_VALUES[fact][1]}
        assert projector.key("p1", Heads(categories), other, ("w",)) != key, fact
        with pytest.raises(KeyError, match=fact):
            projector.key("p1", Heads(categories), {k: v for k, v in facts.items() if k != fact})
    assert projector.key("p2", Heads(categories), facts, ("w",)) != key
    assert projector.key("p1", Heads(categories), facts, ("v",)) != key


def _say(message: str) -> Any:
    def refuse(*_args: object, **_kwargs: object) -> Any:
        raise AssertionError(f"a render did I/O: {message}")

    return refuse


@contextmanager
def no_io() -> Iterator[None]:
    """File-system calls raise while the block runs."""
    patched = {
        (builtins, "open"): _say("open"),
        (io, "open"): _say("io.open"),
        (os, "open"): _say("os.open"),
        (os, "stat"): _say("os.stat"),
        (os, "lstat"): _say("os.lstat"),
        (os, "listdir"): _say("os.listdir"),
        (os, "scandir"): _say("os.scandir"),
    }
    saved = {target: getattr(*target) for target in patched}
    try:
        for (module, name), value in patched.items():
            setattr(module, name, value)
        yield
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)


#: One step of a generated history: (kind, a number to pick with).
steps = st.lists(
    st.tuples(
        st.sampled_from(["open", "done", "drop", "decide", "mention", "describe", "lesson"]),
        st.integers(0, 5),
    ),
    min_size=1,
    max_size=8,
)


def _apply(service: Orbital, pid: str, root: Path, history: list[tuple[str, int]]) -> None:
    for i, (kind, n) in enumerate(history):
        open_asks = [a.id for a in service.asks(pid, "open")]
        if kind == "open" or (kind in ("done", "drop") and not open_asks):
            service.ask_open(pid, f"Check item {i} of batch {n}", actor=Actor.USER)
        elif kind in ("done", "drop"):
            ask = open_asks[n % len(open_asks)]
            service.ask_close(pid, ask, "done" if kind == "done" else "dropped", actor=Actor.USER)
        elif kind == "describe":
            service.workspaces.describe(
                pid, f"A project of {n} parts (step {i}).", actor=Actor.USER
            )
        else:
            name = "LESSONS.md" if kind == "lesson" else "DECISIONS.md"
            body = f"@file.src/m{n}.py holds it" if kind == "mention" else f"option {n}"
            if kind == "mention" and n % 2:
                (root / "src").mkdir(exist_ok=True)
                (root / "src" / f"m{n}.py").write_text("x = 1\n")
            head = f"\n## Step {i} choice {n}\n"
            entry = (
                f"{head}Chose: {body}.\nReason: r{i}.\n"
                if name == "DECISIONS.md"
                else f"{head}Do {body} next time.\n"
            )
            text = service.read_file(pid, name) + entry
            service.write_file(pid, name, text.encode(), actor=Actor.AGENT)


def _state(service: Orbital, pid: str) -> tuple[ViewState, list[Any]]:
    units = service.units
    with service.store.reader() as r:
        memory = units.memory.load(r, pid)
        asks = dict(units.asks.every(r, pid))
        texts = view_texts(r, pid)
        events = [e.event for e in r.read_project(pid, stream_prefix="ask")]
    state = ViewState(
        pid,
        memory.position,
        memory.files,
        memory.changed_at,
        asks,
        texts.project.description,
        texts.workspace,
    )
    return state, events


#: What a new process prints: each output it finds kept, beside its own fresh render.
READ_BACK = """
import json, sys
from pathlib import Path
from orbital.clock import FixedClock
from orbital.service import Orbital
from orbital.service._outputs import Outputs, Seal
from orbital.service._view_outputs import find_view
from projections import PROJECTORS, Heads
import datetime as dt
url, pid, folder = sys.argv[1:4]
now = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
found = {}
with Orbital.open(url, clock=FixedClock(now)) as fresh:
    project = fresh.project_by_id(pid)
    with fresh.store.reader() as r:
        heads, key = Heads(r.category_heads(pid)), r.cache_key()
    outputs = Outputs(Path(folder) / "outputs", Seal(lambda: key))  # as keep_caches keeps them
    for audience in ("agent", "subagent"):
        for window in (None, 200000):
            kept = find_view(outputs, project, heads, now, window, audience)
            own = fresh.context_view(pid, window=window, audience=audience)
            found[f"{audience} {window}"] = [kept, own]
    for name in sys.argv[4:]:
        kept = outputs.get(PROJECTORS[name].key(pid, heads))
        found[name] = [kept, fresh.read_file(pid, name)]
print(json.dumps(found))
"""
FILES = [*(MEMORY_FILES[k] for k in LAYER1_KEYS), *ARCHIVE_FILES.values()]


@settings(
    max_examples=6,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each example is whole processes
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=steps)
def test_over_generated_histories_outputs_render_pure_and_read_back_alike(
    store_url: str, history: list[tuple[str, int]]
) -> None:
    root = Path(tempfile.mkdtemp(prefix="projector-"))
    folder = Path(tempfile.mkdtemp(prefix="outputs-"))
    with Orbital.open(store_url, clock=FixedClock(NOW)) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        _apply(service, pid, root, history)
        service.keep_caches(folder)
        for audience in ("agent", "subagent"):
            for window in (None, 200_000):
                service.context_view(pid, window=window, audience=audience)
        for name in FILES:
            service.read_file(pid, name)
        state, events = _state(service, pid)
        count = CachedCounter()
        facts = ViewFacts(NOW.date(), "UTC", (("src/m1.py", True), ("src/m2.py", False)))
        rendered = {a: VIEWS[a].render(state, facts, count, None, ViewMemo()) for a in VIEWS}
        with no_io():  # every render again, from nothing kept: no file is touched
            for audience, text in rendered.items():
                assert VIEWS[audience].render(state, facts, count, None, ViewMemo()) == text
            VIEW_MENTIONS.render(state, NOW.date(), ViewMemo())
            VIEW_ZONE.render(state.workspace, "UTC")
            view_file = VIEW_FILE_PROJECTOR.render(rendered["agent"], 9, NOW.date(), "UTC")
            for key in LAYER1_KEYS:
                MEMORY_FILE_PROJECTORS[key].render(state.files[key])
            for key in ARCHIVE_PROJECTORS:
                ARCHIVE_PROJECTORS[key].render(state.files[key])
            asks_md = ASKS_FILE_PROJECTOR.render(events)
        assert view_file.startswith("<!-- orbital view at position 9 on 2026-09-19 (UTC);")
        assert asks_md == service.read_file(pid, "ASKS.md")
    done = subprocess.run(
        [sys.executable, "-c", READ_BACK, store_url, pid, str(folder), *FILES],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=120,
        text=True,
    )
    for output, (kept, own) in json.loads(done.stdout).items():
        assert kept == own, output
