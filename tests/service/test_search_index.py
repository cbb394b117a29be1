"""The search index as a projection (issue 29), on both backends: it catches up from the
position it projected when the log moved; an import rebuilds it from the log it brings; a
purge takes the purged text out of it as out of everything else."""

from __future__ import annotations

from pathlib import Path

from orbital.clock import FixedClock
from orbital.events import Actor
from orbital.service import Orbital
from projections.search import search_query
from tests.archived import LESSON_ID, archive_the_lesson
from tests.service.test_export_import import export, moved


def _ids(service: Orbital, project: str, words: str) -> list[str]:
    return [hit.id for hit in service.search(project, search_query(words, past=True))]


def test_the_index_catches_up_from_its_position(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(tmp_path, timezone="UTC").project_id
        service.write_file(pid, "DECISIONS.md", b"## Queue\nChose: RabbitMQ.\n", actor=Actor.AGENT)
        assert _ids(service, pid, "rabbitmq") == ["queue"]
        with service.store.reader() as r:
            indexed = r.search_position(pid)  # the entry's event (the file's layout is after)
            assert (indexed, r.search_behind(pid)) == (service.head(pid) - 1, None)
        service.ask_open(pid, "Choose the RabbitMQ host", actor=Actor.AGENT)
        with service.store.reader() as r:
            assert r.search_behind(pid) == service.head(pid)
            assert r.search_moved(pid, indexed) == [
                f"ask:{service.asks(pid)[0].id}"
            ]  # only what moved is projected again
        assert sorted(_ids(service, pid, "rabbitmq")) == sorted(["queue", service.asks(pid)[0].id])


def test_an_import_rebuilds_the_index_from_the_log(
    store_url: str,
    second_url: str,
    tmp_path: Path,
    clock: FixedClock,
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(root, timezone="UTC").project_id
        archive_the_lesson(service, pid)
        exported = export(service, pid)
    clone = tmp_path / "clone"
    moved(root, clone)
    with Orbital.open(second_url, clock=clock) as target:
        target.import_log(clone, [exported])
        with target.store.reader() as r:
            assert r.search_behind(pid) is None  # built by the import itself
        assert _ids(target, pid, "expiry") == [LESSON_ID]


def test_a_purged_text_leaves_the_index(store_url: str, tmp_path: Path, clock: FixedClock) -> None:
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(tmp_path, timezone="UTC").project_id
        text = b"## Vendor\nChose: the zanzibarco contract.\n"
        service.write_file(pid, "DECISIONS.md", text, actor=Actor.AGENT)
        assert _ids(service, pid, "zanzibarco") == ["vendor"]
        service.purges.purge(
            pid, reason="a client's name", actor=Actor.USER, text="zanzibarco", state=tmp_path
        )
        assert _ids(service, pid, "zanzibarco") == []
        assert _ids(service, pid, "contract") == ["vendor"]  # the rest is searched again
        with service.store.reader() as r:
            rows = r._conn.scalars("SELECT text FROM search_docs WHERE project_id = :p", {"p": pid})
        assert rows and not any("zanzibarco" in row for row in rows)


def _rows(service: Orbital, project: str) -> list[tuple[object, ...]]:
    with service.store.reader() as r:
        return [
            tuple(row)
            for row in r._conn.execute(
                "SELECT doc, kind, item, file, status, trust, actor, at, position, text"
                " FROM search_docs WHERE project_id = :p ORDER BY doc",
                {"p": project},
            )
        ]


def test_an_index_kept_by_catching_up_equals_one_built_at_once(
    store_url: str, tmp_path: Path, clock: FixedClock
) -> None:
    with Orbital.open(store_url, clock=clock) as service:
        pid = service.init_project(tmp_path, timezone="UTC").project_id
        steps = [
            b"## Queue\nChose: RabbitMQ.\n\n## Cron\nChose: cron.\n",
            b"## Queue\nChose: Redis streams.\n\n## Cron\nChose: cron.\n",
            b"## Queue\nChose: Redis streams.\n",
        ]
        for text in steps:
            service.write_file(pid, "DECISIONS.md", text, actor=Actor.AGENT, remove=("cron",))
            _ids(service, pid, "redis")  # the index catches up after each change
        service.ask_open(pid, "Pick the Redis host", actor=Actor.AGENT)
        service.trust.act(pid, "queue", "dispute", "too early", actor=Actor.USER)
        _ids(service, pid, "redis")
        kept = _rows(service, pid)
        with service.store.writing() as w:
            w.drop_search(pid)
        _ids(service, pid, "redis")  # built at once from the whole log
        assert _rows(service, pid) == kept
        assert {row[1] for row in kept} == {"entry", "version", "ask"}
