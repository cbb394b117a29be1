"""The editor end to end on real files through the service: choices applied as events with
actor ``editor``, optimistic concurrency, backup first, the backstop after every pass."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orbital.domain.budgets import est_tokens
from orbital.domain.editor.choices import Applied
from orbital.editor.provider import ChatMessage
from orbital.errors import ProviderError, StoreLocked
from orbital.events import Actor
from orbital.events.editor import EditorRunRecorded, EditorRunStarted
from orbital.service import EditorReport, Orbital
from orbital.store import AppendResult, Writer
from tests.seeded import seeded_project, write_in_parts

NOW = dt.datetime(2026, 9, 19, 9, 0, tzinfo=dt.UTC)
DECISIONS = (
    "# Decisions\n\n"
    "## Use Postgres\nChose: PostgreSQL for storage.\n\n"
    "## Postgres for storage too\nChose: PostgreSQL for everything.\n\n"
    "## Adopt Vite over Webpack\nChose: Vite.\nReason: speed.\n"
)
MERGED = "## Use PostgreSQL everywhere\nChose: PostgreSQL for storage and everything.\n"


@dataclass
class MovableClock:
    at: dt.datetime

    def now(self) -> dt.datetime:
        return self.at


@dataclass
class Env:
    orbital: Orbital
    project: str
    root: Path

    def file(self, name: str) -> str:
        return (self.root / "orbital" / name).read_text(encoding="utf-8")

    def write(self, name: str, text: str) -> None:
        self.orbital.write_file(self.project, name, text.encode(), actor=Actor.AGENT)

    def apply(self, choices: Mapping[str, object]) -> EditorReport:
        return self.orbital.editor_apply(self.project, json.dumps(choices))

    def editor_events(self) -> list[object]:
        return [e.event for e in self.orbital.history(self.project) if e.stream == "editor"]


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[Env]:
    root = tmp_path / "project"
    clock = MovableClock(NOW)
    with seeded_project(store_url, root, clock, counter=est_tokens) as (service, project):
        service.editor.mint_suffix = lambda: "beef"
        yield Env(service, project, root)


def state_ids(env: Env) -> list[str]:
    return re.findall(r"id:([0-9a-f]{6}) created", env.file("PROJECT_STATE.md"))


# -- apply: archive, merge, refusals, INDEX ----------------------------------------------------


def test_archive_by_id_leaves_an_id_pointer_and_the_body_in_the_archive(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    report = env.apply(
        {"archive": [{"file": "DECISIONS.md", "id": "adopt-vite-over-webpack", "pointer": ""}]}
    )
    assert report.outcome == "edited"
    assert report.applied == [
        Applied(kind="archive", file="DECISIONS.md", id="adopt-vite-over-webpack")
    ]
    assert report.rejected == []
    live = env.file("DECISIONS.md")
    assert (
        "[archived 2026-09-19 id:adopt-vite-over-webpack] Adopt Vite over Webpack "
        "→ DECISIONS_ARCHIVE.md"
    ) in live
    assert "Chose: Vite." not in live
    archive = env.file("DECISIONS_ARCHIVE.md")
    assert "## Adopt Vite over Webpack <!--mem id:adopt-vite-over-webpack" in archive
    assert "Chose: Vite.\nReason: speed.\n" in archive
    assert "DECISIONS_ARCHIVE.md" in env.file("INDEX.md")
    editor_streams = {e.stream for e in env.orbital.history(env.project) if e.actor is Actor.EDITOR}
    assert "entry:adopt-vite-over-webpack" in editor_streams
    # undoable: the person restores it into its old slot
    env.orbital.entry_action(env.project, "adopt-vite-over-webpack", "restore", actor=Actor.USER)
    assert "Chose: Vite." in env.file("DECISIONS.md")


def test_merge_gets_a_new_id_and_the_merged_archive_text(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    report = env.apply(
        {
            "merge": [
                {
                    "file": "decisions",
                    "ids": ["use-postgres", "postgres-for-storage-too"],
                    "text": MERGED,
                    "pointer": "Postgres merged -> DECISIONS_ARCHIVE.md",
                }
            ]
        }
    )
    new_id = "use-postgresql-everywhere-mbeef"
    assert report.applied == [
        Applied(
            kind="merge",
            file="DECISIONS.md",
            id=new_id,
            ids=("use-postgres", "postgres-for-storage-too"),
        )
    ]
    live = env.file("DECISIONS.md")
    assert (
        f"## Use PostgreSQL everywhere <!--mem id:{new_id} created:2026-09-19 "
        "touched:2026-09-19-->\nChose: PostgreSQL for storage and everything.\n\n"
        "[archived 2026-09-19 id:use-postgres id:postgres-for-storage-too] Postgres merged "
        "→ DECISIONS_ARCHIVE.md\n"
    ) in live
    assert "Chose: PostgreSQL for storage.\n" not in live
    assert "## Adopt Vite over Webpack" in live
    archive = env.file("DECISIONS_ARCHIVE.md")
    assert (
        f"[merged 2026-09-19 into id:{new_id}]\n\n## Use Postgres <!--mem id:use-postgres"
    ) in archive
    assert "## Postgres for storage too <!--mem id:postgres-for-storage-too" in archive
    # the merge superseded what it merged (issue 16)
    trusted = {b.id: (b.state, b.by) for b in env.orbital.trust.beliefs(env.project)}
    assert trusted["use-postgres"] == ("superseded", (new_id,))
    assert trusted["postgres-for-storage-too"] == ("superseded", (new_id,))
    # a comment-stripped rewrite by the agent keeps everything where it is
    before = env.file("DECISIONS.md")
    env.write("DECISIONS.md", re.sub(r" <!--mem [^>]*-->", "", before))
    assert env.file("DECISIONS.md") == before


def test_a_state_merge_and_archive_keep_every_line_in_the_archive(env: Env) -> None:
    env.write(
        "PROJECT_STATE.md",
        "## Now\n- Shipping the installer.\n- Beta on Friday.\n- Beta is on Friday.\n",
    )
    installer, beta1, beta2 = state_ids(env)
    report = env.apply(
        {
            "archive": [{"file": "PROJECT_STATE.md", "id": installer}],
            "merge": [{"file": "state", "ids": [beta2, beta1], "text": "Beta ships on Friday."}],
        }
    )
    assert [a.kind for a in report.applied] == ["merge", "archive"]
    live = env.file("PROJECT_STATE.md")
    assert (
        f"[archived 2026-09-19 id:{installer}] Shipping the installer. → PROJECT_STATE_ARCHIVE.md"
    ) in live
    assert "- Beta ships on Friday.\n  <!--mem id:" in live
    assert f"[archived 2026-09-19 id:{beta2} id:{beta1}] Beta ships on Friday." in live
    archive = env.file("PROJECT_STATE_ARCHIVE.md")
    assert "[merged 2026-09-19 into: Beta ships on Friday.]\n- Beta on Friday.\n" in archive
    for line in ("- Shipping the installer.", "- Beta is on Friday.", f"id:{installer}"):
        assert line in archive


def test_pinned_unknown_and_used_ids_are_refused(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    env.orbital.entry_action(env.project, "adopt-vite-over-webpack", "pin", actor=Actor.USER)
    before = env.file("DECISIONS.md")
    report = env.apply(
        {
            "archive": [
                {"file": "DECISIONS.md", "id": "adopt-vite-over-webpack"},
                {"file": "DECISIONS.md", "id": "nope"},
                {"file": "DECISIONS.md", "id": "use-postgres"},
                {"file": "INDEX.md", "id": "x"},
            ],
            "merge": [
                {"file": "DECISIONS.md", "ids": ["use-postgres", "ghost"], "text": MERGED},
            ],
        }
    )
    assert report.outcome == "edited"
    assert report.applied == [Applied(kind="archive", file="DECISIONS.md", id="use-postgres")]
    assert report.rejected == [
        "archive x: INDEX.md cannot be edited by id",
        "merge use-postgres,ghost: unknown id ghost in DECISIONS.md",
        "archive adopt-vite-over-webpack: adopt-vite-over-webpack is pinned",
        "archive nope: unknown id nope in DECISIONS.md",
    ]
    assert "Chose: Vite." in env.file("DECISIONS.md") != before
    again = env.apply(
        {
            "merge": [
                {
                    "file": "DECISIONS.md",
                    "ids": ["postgres-for-storage-too", "adopt-vite-over-webpack"],
                    "text": MERGED,
                }
            ],
            "archive": [{"file": "DECISIONS.md", "id": "use-postgres"}],
        }
    )
    assert again.outcome == "no_change"
    assert again.rejected == [
        "merge postgres-for-storage-too,adopt-vite-over-webpack: adopt-vite-over-webpack is pinned",
        "archive use-postgres: unknown id use-postgres in DECISIONS.md",  # archived already
    ]


def test_an_id_is_used_once_merges_first(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    report = env.apply(
        {
            "archive": [{"file": "DECISIONS.md", "id": "use-postgres"}],
            "merge": [
                {
                    "file": "DECISIONS.md",
                    "ids": ["use-postgres", "postgres-for-storage-too"],
                    "text": MERGED,
                }
            ],
        }
    )
    assert [a.kind for a in report.applied] == ["merge"]
    assert report.rejected == [
        "archive use-postgres: id use-postgres already used in this document"
    ]


def test_a_padded_merge_is_refused_and_the_file_is_unchanged(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    before = env.file("DECISIONS.md")
    head = env.orbital.head()
    padded = MERGED + "Reason: " + "very " * 40 + "important.\n"
    not_one = MERGED + "\n## Second entry\nChose: more.\n"
    report = env.apply(
        {
            "merge": [
                {
                    "file": "DECISIONS.md",
                    "ids": ["use-postgres", "postgres-for-storage-too"],
                    "text": t,
                }
                for t in (padded, not_one)
            ]
        }
    )
    assert report.outcome == "no_change"
    assert report.applied == []
    assert len(report.rejected) == 2
    assert report.rejected[0].startswith(
        "merge use-postgres,postgres-for-storage-too: the merged text is longer than the originals"
    )
    assert report.rejected[1].endswith("the text must be exactly one DECISIONS entry")
    assert env.file("DECISIONS.md") == before
    # only the run's own record was appended: started + recorded
    assert env.orbital.head() == head + 2


def test_an_index_rewrite_keeps_archive_lines_and_unchanged_is_refused(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    env.write("INDEX.md", "# INDEX\n- orbital/ — memory.\n- old/ — to drop.\n")
    env.apply({"archive": [{"file": "DECISIONS.md", "id": "use-postgres"}]})
    assert "- DECISIONS_ARCHIVE.md — older entries" in env.file("INDEX.md")
    report = env.apply({"index": "# INDEX\n## Code\n- src/ — the application.\n"})
    assert report.applied == [Applied(kind="index", file="INDEX.md")]
    index = env.file("INDEX.md")
    assert "- src/ — the application." in index
    assert "old/" not in index
    assert "- DECISIONS_ARCHIVE.md — older entries demoted from the live file" in index
    unchanged = env.apply({"index": env.file("INDEX.md")})
    assert unchanged.rejected == ["index: empty or unchanged"]
    assert unchanged.outcome == "no_change"


def test_each_apply_is_recorded_with_its_backup_position(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    head = env.orbital.head()
    report = env.apply({"archive": [{"file": "DECISIONS.md", "id": "nope"}], "other": 1})
    started, recorded = env.editor_events()
    assert isinstance(started, EditorRunStarted) and isinstance(recorded, EditorRunRecorded)
    assert started.trigger == "apply"
    assert started.memory_position == report.backup_position == head
    assert recorded.run_id == started.run_id == report.run_id
    assert recorded.outcome == "no_change"
    assert recorded.rejected == ("archive nope: unknown id nope in DECISIONS.md",)
    assert recorded.choices == {"archive": [{"file": "DECISIONS.md", "id": "nope"}], "other": 1}
    # the backup is the position: the file as it stood renders from it
    env.apply({"archive": [{"file": "DECISIONS.md", "id": "use-postgres"}]})
    memory = env.orbital._memory
    project = env.orbital.store.project(env.project)
    assert "Chose: PostgreSQL for storage." in memory.read(project, "decisions", at=head)
    assert "Chose: PostgreSQL for storage." not in env.file("DECISIONS.md")


# -- a pass: OCC, failures, backstop, watermark ------------------------------------------------


@dataclass
class ScriptedModel:
    """A provider that answers from a script and may do something while "thinking"."""

    replies: list[str]
    during: object = None
    calls: list[Sequence[ChatMessage]] = field(default_factory=list)

    def complete(
        self, messages: Sequence[ChatMessage], tools: Sequence[Mapping[str, object]] | None
    ) -> ChatMessage:
        self.calls.append(list(messages))
        if callable(self.during):
            self.during()
        if not self.replies:
            raise ProviderError("HTTP 401: unauthorised", status=401)
        return ChatMessage(role="assistant", content=self.replies.pop(0))


def use_model(env: Env, model: ScriptedModel) -> None:
    env.orbital.editor.provider = lambda: model


def test_occ_a_file_the_agent_writes_during_the_run_is_skipped_the_other_applied(
    env: Env,
) -> None:
    env.write("DECISIONS.md", DECISIONS)
    env.write(
        "LESSONS.md", "1. Test first.\nAlways.\n2. Curl beats the browser for GitHub.\nIt does.\n"
    )
    path = env.root / "orbital" / "DECISIONS.md"

    def agent_writes() -> None:  # the agent's own tool edits the file mid-run
        path.write_text(path.read_text() + "\n## Fresh decision\nChose: now.\n")

    choices = {
        "archive": [
            {"file": "DECISIONS.md", "id": "adopt-vite-over-webpack"},
            {"file": "LESSONS.md", "id": "curl-beats-the-browser-for-githu"},
        ]
    }
    use_model(env, ScriptedModel([json.dumps(choices)], during=agent_writes))
    report = env.orbital.editor_run(env.project, force=True)
    assert report.outcome == "edited"
    assert report.skipped_files == ["DECISIONS.md"]
    assert report.applied == [
        Applied(kind="archive", file="LESSONS.md", id="curl-beats-the-browser-for-githu")
    ]
    decisions = env.file("DECISIONS.md")
    assert "## Fresh decision" in decisions and "Chose: Vite." in decisions
    assert "[archived 2026-09-19 id:curl-beats-the-browser-for-githu]" in env.file("LESSONS.md")
    assert report.watermark is False  # a skipped file leaves the pass due again


def test_a_failed_model_call_edits_nothing_and_the_backstop_still_runs(env: Env) -> None:
    big = "".join(f"## Decision {i}\nChose: {'alpha ' * 700}\n\n" for i in range(10))
    write_in_parts(env.orbital, env.project, "DECISIONS.md", big.encode(), 2, actor=Actor.AGENT)
    head = env.orbital.head()
    use_model(env, ScriptedModel([]))  # the first call fails (401, not retried)
    report = env.orbital.editor_run(env.project)  # over budget and never ran: due
    assert report.outcome == "failed"
    assert "401" in report.error
    assert report.applied == [] and report.events == []
    assert report.backstop, "the backstop ran after the failed pass"
    assert all(e.type == "entry.archived" or e.stream.startswith("file:") for e in report.backstop)
    actors = {e.actor for e in env.orbital.history(env.project) if e.position > head}
    assert actors == {Actor.EDITOR, Actor.SYSTEM}
    assert not any(
        e.actor is Actor.EDITOR and e.stream != "editor" for e in env.orbital.history(env.project)
    )
    assert report.watermark is False
    recorded = [e for e in env.editor_events() if isinstance(e, EditorRunRecorded)]
    assert [(r.outcome, r.calls) for r in recorded] == [("failed", 1)]


def test_if_the_backup_cannot_be_made_nothing_is_edited(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    env.write("DECISIONS.md", DECISIONS)
    before = env.file("DECISIONS.md")
    original = Writer.append

    def locked(self: Writer, project: str, stream: str, *args: Any, **kwargs: Any) -> AppendResult:
        if stream == "editor":
            raise StoreLocked("sqlite:///store.db", 5000)
        return original(self, project, stream, *args, **kwargs)

    monkeypatch.setattr(Writer, "append", locked)
    model = ScriptedModel(
        [json.dumps({"archive": [{"file": "DECISIONS.md", "id": "use-postgres"}]})]
    )
    use_model(env, model)
    report = env.orbital.editor_run(env.project, force=True)
    assert report.outcome == "failed"
    assert report.error.startswith("backup failed, nothing edited:")
    assert model.calls == []  # the model was never asked
    assert env.file("DECISIONS.md") == before
    with pytest.raises(StoreLocked):
        env.apply({"archive": [{"file": "DECISIONS.md", "id": "use-postgres"}]})
    assert env.file("DECISIONS.md") == before


def test_success_advances_the_watermark_then_nothing_is_due(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    model = ScriptedModel(["{}", "{}"])
    use_model(env, model)
    assert env.orbital.editor_run(env.project).outcome == "not_needed"  # under budget
    first = env.orbital.editor_run(env.project, force=True)
    assert (first.outcome, first.watermark) == ("no_change", True)
    prompt = model.calls[0][1].content or ""
    assert "DECISIONS.md: " in prompt and "soft budget 7000" in prompt
    assert "<!--mem id:use-postgres" in prompt and "<!--format" not in prompt
    clock = env.orbital.clock
    assert isinstance(clock, MovableClock)
    assert env.orbital.editor_run(env.project).outcome == "debounced"  # within 5 minutes
    clock.at = NOW + dt.timedelta(hours=1)
    assert env.orbital.editor_run(env.project).outcome == "no_delta"  # nothing changed since
    env.write("DECISIONS.md", DECISIONS + "\n## Another\nChose: more.\n")
    assert env.orbital.editor_run(env.project).outcome == "not_needed"  # changed, under budget


def test_session_end_runs_the_editor_when_a_model_is_configured(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ORBITAL_EDITOR_URL", "ORBITAL_EDITOR_MODEL", "ORBITAL_EDITOR_KEY"):
        monkeypatch.delenv(name, raising=False)
    env.write("DECISIONS.md", DECISIONS)
    without = env.orbital.session_end(env.project)
    assert without.editor == ""  # no model configured: the backstop alone
    use_model(env, ScriptedModel(["{}"]))
    report = env.orbital.session_end(env.project)
    assert report.editor == "not_needed"  # nothing over its soft budget: no pass


def test_the_editor_never_merges_a_retracted_entry_back(env: Env) -> None:
    env.write("DECISIONS.md", DECISIONS)
    env.orbital.trust.act(env.project, "use-postgres", "retract", "wrong", actor=Actor.USER)
    # Written by hand: an agent's entry saying the retracted one again is not added.
    decisions = env.root / "orbital" / "DECISIONS.md"
    added = "\n## Postgres is our store\nChose: PostgreSQL for storage.\n"
    decisions.write_text(env.file("DECISIONS.md") + added, encoding="utf-8")
    env.orbital.sync(env.project)
    before = env.file("DECISIONS.md")
    report = env.apply(
        {
            "merge": [
                {
                    "file": "decisions",
                    "ids": ["postgres-for-storage-too", "postgres-is-our-store"],
                    "text": "## Postgres storage\nChose: PostgreSQL for storage.\n",
                }
            ]
        }
    )
    assert report.applied == []
    assert report.rejected == [
        "merge postgres-for-storage-too,postgres-is-our-store: the merged text says again "
        "what use-postgres said, which is retracted: it is not merged back"
    ]
    assert env.file("DECISIONS.md") == before
