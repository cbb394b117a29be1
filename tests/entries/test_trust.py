"""Trust state per entry (issue 16): the fold and the deciders for every transition, the
``Supersedes:`` grammar, the view and the files for each state, restatements."""

from __future__ import annotations

import datetime as dt

import pytest

from orbital.domain.trust import (
    TRUST_ACTIONS,
    TrustAction,
    decide_restatements,
    decide_supersessions,
    decide_trust_action,
)
from orbital.domain.trust_fold import fold_trust
from orbital.errors import InvalidInput, Refused, UnknownEntry
from orbital.events import Actor, decode_event, encode_event
from orbital.events.entries import EntryArchived, EntryPinned, EntryRestored
from orbital.events.trust import (
    EntryDisputed,
    EntryReaffirmed,
    EntryRestates,
    EntryRetracted,
    EntrySuperseded,
)
from orbital.grammar.model import FileState, Trust
from orbital.grammar.render import render_archive, render_body
from orbital.grammar.supersedes import SupersedesLine, supersedes_lines
from projections.beliefs import beliefs, view_state
from tests.entries.entry_helpers import TODAY, Memory

D1, D2, D3 = dt.date(2026, 9, 1), dt.date(2026, 9, 10), dt.date(2026, 9, 15)
DECISIONS = (
    "# DECISIONS\n\n## Use SQLite for the store\nChose: SQLite. Reason: embedded, one file.\n\n"
    "## Deploy on Fridays\nChose: yes. Reason: weekly cadence.\n"
)
POSTGRES = (
    "\n## Use PostgreSQL for the store\nChose: PostgreSQL. Reason: several writers.\n"
    "Supersedes: use-sqlite-for-the-store since 2026-09-01\n"
)


def decisions() -> Memory:
    memory = Memory("decisions")
    memory.write(DECISIONS)
    return memory


def files(memory: Memory) -> dict[str, FileState]:
    return {"decisions": memory.state}


def write_with_trust(memory: Memory, text: str) -> tuple[list[str], list[object]]:
    """A writer's write, then its supersessions and restatements, as the service does."""
    before = files(memory)
    decision = memory.write(text)
    superseded = decide_supersessions(before, decision.events, TODAY)
    restated = decide_restatements(before, decision.events, TODAY)
    memory.apply([*superseded.events, *restated.events])
    return [*superseded.warnings, *restated.warnings], [*superseded.events, *restated.events]


# -- the fold ---------------------------------------------------------------------------------


def test_fold_every_transition() -> None:
    held = Trust()
    disputed = fold_trust(held, EntryDisputed(entry_id="a", reason="doubt", date=D1))
    assert disputed == Trust(state="disputed", reason="doubt", on=D1)
    reaffirmed = fold_trust(disputed, EntryReaffirmed(entry_id="a", reason="checked", date=D2))
    assert reaffirmed == Trust(reason="checked", on=D2)
    retracted = fold_trust(held, EntryRetracted(entry_id="a", reason="wrong", date=D1))
    assert retracted == Trust(state="retracted", reason="wrong", on=D1)
    assert fold_trust(retracted, EntryReaffirmed(entry_id="a", date=D2)) == Trust(on=D2)
    superseded = fold_trust(disputed, EntrySuperseded(entry_id="a", by=("b",), date=D3, since=D2))
    assert superseded == Trust(state="superseded", by=("b",), since=D2, on=D3)
    # superseded again: by both, in force until the earlier of the two dates
    twice = fold_trust(superseded, EntrySuperseded(entry_id="a", by=("c",), date=D3, since=D1))
    assert twice == Trust(state="superseded", by=("b", "c"), since=D1, on=D3)
    again = fold_trust(twice, EntrySuperseded(entry_id="a", by=("b",), date=D3))
    assert again.by == ("b", "c") and again.since == D1
    # a retraction stands over a later supersession, which is still linked
    both = fold_trust(retracted, EntrySuperseded(entry_id="a", by=("b",), date=D2))
    assert both == Trust(state="retracted", reason="wrong", by=("b",), since=D2, on=D1)
    linked = fold_trust(held, EntryRestates(entry_id="n", restates="a", date=D1))
    assert linked == Trust(restates="a")
    assert fold_trust(linked, EntryReaffirmed(entry_id="n", date=D2)).restates == "a"


def test_trust_events_round_trip_and_old_entries_decode_held() -> None:
    for event in (
        EntryDisputed(entry_id="a", reason="r", date=D1),
        EntryRetracted(entry_id="a", date=D1),
        EntryReaffirmed(entry_id="a", date=D1),
        EntrySuperseded(entry_id="a", by=("b", "c"), date=D1, since=D2),
        EntryRestates(entry_id="n", restates="a", date=D1),
    ):
        assert decode_event(encode_event(event)) == event
    stored = b'{"type":"entry.created","file":"decisions","entry_id":"x","text":"## X\\n",'
    stored += b'"created":"2026-09-01","touched":"2026-09-01"}'
    memory = Memory("decisions")
    memory.apply([decode_event(stored)])
    assert memory.state.entries["x"].trust == Trust()


# -- the person's deciders --------------------------------------------------------------------


@pytest.mark.parametrize("actor", [Actor.AGENT, Actor.EDITOR, Actor.SYSTEM, Actor.FILE])
@pytest.mark.parametrize("action", TRUST_ACTIONS)
def test_only_the_person_disputes_retracts_or_reaffirms(actor: Actor, action: TrustAction) -> None:
    memory = decisions()
    with pytest.raises(Refused) as refused:
        decide_trust_action(
            files(memory),
            "deploy-on-fridays",
            action,
            "why",
            actor,
            TODAY,
        )
    assert str(refused.value) == (
        f"only the person can {action} an entry ({actor} asked to {action} "
        "'deploy-on-fridays'): an agent records what replaces it as a new entry with a line "
        "'Supersedes: deploy-on-fridays', and the person uses the Workbench or "
        f"`orbital entry {action} deploy-on-fridays --as-user`"
    )


def test_dispute_then_reaffirm() -> None:
    memory = decisions()
    with pytest.raises(InvalidInput, match="a dispute needs a reason"):
        decide_trust_action(files(memory), "deploy-on-fridays", "dispute", " ", Actor.USER, TODAY)
    with pytest.raises(UnknownEntry):
        decide_trust_action(files(memory), "nope", "dispute", "x", Actor.USER, TODAY)
    events = decide_trust_action(
        files(memory), "deploy-on-fridays", "dispute", "two  outages", Actor.USER, TODAY
    )
    assert events == [EntryDisputed(entry_id="deploy-on-fridays", reason="two outages", date=TODAY)]
    memory.apply(events)
    same = decide_trust_action(
        files(memory), "deploy-on-fridays", "dispute", "two outages", Actor.USER, TODAY
    )
    assert same == []
    back = decide_trust_action(
        files(memory), "deploy-on-fridays", "reaffirm", "", Actor.USER, TODAY
    )
    assert back == [EntryReaffirmed(entry_id="deploy-on-fridays", date=TODAY)]
    memory.apply(back)
    assert (
        decide_trust_action(files(memory), "deploy-on-fridays", "reaffirm", "", Actor.USER, TODAY)
        == []
    )


def test_retract_moves_the_entry_out_and_reaffirm_after_retract_brings_it_back() -> None:
    memory = decisions()
    body = memory.body
    events = decide_trust_action(
        files(memory), "deploy-on-fridays", "retract", "broke prod", Actor.USER, TODAY
    )
    pointer = (
        "[archived 2026-09-18 id:deploy-on-fridays] retracted by the person (broke prod): "
        "Deploy on Fridays → DECISIONS_ARCHIVE.md"
    )
    assert events == [
        EntryRetracted(entry_id="deploy-on-fridays", reason="broke prod", date=TODAY),
        EntryArchived(entry_id="deploy-on-fridays", pointer=pointer, date=TODAY),
    ]
    memory.apply(events)
    assert pointer in memory.body and "Chose: yes." not in memory.body
    assert "## Deploy on Fridays <!--mem id:deploy-on-fridays" in render_archive(memory.state)
    assert (
        decide_trust_action(files(memory), "deploy-on-fridays", "retract", "", Actor.USER, TODAY)
        == []
    )
    with pytest.raises(Refused, match="is retracted: it is already out of force"):
        decide_trust_action(files(memory), "deploy-on-fridays", "dispute", "x", Actor.USER, TODAY)
    back = decide_trust_action(
        files(memory), "deploy-on-fridays", "reaffirm", "", Actor.USER, TODAY
    )
    assert back == [
        EntryReaffirmed(entry_id="deploy-on-fridays", date=TODAY),
        EntryRestored(entry_id="deploy-on-fridays", date=TODAY),
    ]
    memory.apply(back)
    assert memory.body == body
    assert memory.state.entries["deploy-on-fridays"].trust == Trust(on=TODAY)


def test_a_retired_entry_cannot_change_trust() -> None:
    memory = decisions()
    memory.write("# DECISIONS\n\n## Use SQLite for the store\nChose: SQLite.\n")
    with pytest.raises(Refused, match="'deploy-on-fridays' is retired"):
        decide_trust_action(files(memory), "deploy-on-fridays", "retract", "", Actor.USER, TODAY)


# -- supersession -----------------------------------------------------------------------------


def test_supersedes_lines() -> None:
    text = (
        "## X\nChose: a.\nSupersedes: old-one, id:other since 2026-03-01\n"
        "- **Supersedes:** `b` and @decision.c\nsupersedes: d (since 2026-01-02)\n"
        "Nothing supersedes: this line starts with other words.\n"
    )
    assert supersedes_lines(text) == [
        SupersedesLine(("old-one", "other"), "2026-03-01"),
        SupersedesLine(("b", "c"), ""),
        SupersedesLine(("d",), "2026-01-02"),
    ]


def test_a_supersedes_line_moves_the_old_entry_out_with_its_effective_date() -> None:
    memory = decisions()
    warnings, events = write_with_trust(memory, memory.text + POSTGRES)
    assert warnings == []
    pointer = (
        "[archived 2026-09-18 id:use-sqlite-for-the-store] superseded by "
        "use-postgresql-for-the-store: Use SQLite for the store → DECISIONS_ARCHIVE.md"
    )
    assert events == [
        EntrySuperseded(
            entry_id="use-sqlite-for-the-store",
            by=("use-postgresql-for-the-store",),
            date=TODAY,
            since=D1,
        ),
        EntryArchived(entry_id="use-sqlite-for-the-store", pointer=pointer, date=TODAY),
    ]
    assert memory.body.startswith(f"# DECISIONS\n\n{pointer}\n\n## Deploy on Fridays")
    # the same text written again records nothing more
    assert write_with_trust(memory, memory.text) == ([], [])


def test_supersede_of_an_already_superseded_entry_adds_the_newer_one() -> None:
    memory = decisions()
    write_with_trust(memory, memory.text + POSTGRES)
    again = "\n## Use CockroachDB for the store\nChose: CockroachDB.\n"
    again += "Supersedes: use-sqlite-for-the-store\n"
    warnings, events = write_with_trust(memory, memory.text + again)
    assert warnings == [
        "use-cockroachdb-for-the-store: use-sqlite-for-the-store was already superseded by "
        "use-postgresql-for-the-store; it is now superseded by use-cockroachdb-for-the-store too"
    ]
    assert events == [
        EntrySuperseded(
            entry_id="use-sqlite-for-the-store", by=("use-cockroachdb-for-the-store",), date=TODAY
        )
    ]
    trust = memory.state.entries["use-sqlite-for-the-store"].trust
    assert (trust.state, trust.by, trust.since) == (
        "superseded",
        ("use-postgresql-for-the-store", "use-cockroachdb-for-the-store"),
        D1,
    )


def test_supersede_naming_an_unknown_id_or_a_bad_date_warns_and_records_nothing() -> None:
    memory = decisions()
    text = "\n## Use DuckDB\nChose: DuckDB.\nSupersedes: no-such-entry since yesterday\n"
    warnings, events = write_with_trust(memory, memory.text + text)
    assert warnings == [
        "use-duckdb: 'since yesterday' on its Supersedes line is not a date (YYYY-MM-DD); "
        "the supersession takes effect today",
        "use-duckdb: Supersedes names 'no-such-entry', which no entry has: nothing was "
        "superseded (use the id from the old entry's id comment)",
    ]
    assert events == []
    assert "use-duckdb" in memory.state.live_ids()


def test_supersede_of_a_retracted_or_pinned_entry() -> None:
    memory = decisions()
    memory.apply(
        decide_trust_action(files(memory), "deploy-on-fridays", "retract", "", Actor.USER, TODAY)
    )
    text = "\n## Deploy on Tuesdays\nChose: Tuesdays.\nSupersedes: deploy-on-fridays\n"
    warnings, _ = write_with_trust(memory, memory.text + text)
    assert warnings == [
        "deploy-on-tuesdays: deploy-on-fridays was already retracted by the person; "
        "it stays retracted"
    ]
    assert memory.state.entries["deploy-on-fridays"].trust.state == "retracted"
    pinned = decisions()
    pinned.apply([EntryPinned(entry_id="use-sqlite-for-the-store")])
    warnings, events = write_with_trust(pinned, pinned.text + POSTGRES)
    assert warnings == [
        "use-postgresql-for-the-store: use-sqlite-for-the-store is pinned by the person: it "
        "stays in the live file, marked superseded and left out of the view"
    ]
    assert [type(e) for e in events] == [EntrySuperseded]
    assert "use-sqlite-for-the-store" in pinned.state.live_ids()
    assert "Chose: SQLite" not in render_body(view_state(pinned.state))


# -- the view and the files, per state ---------------------------------------------------------


def test_view_and_files_for_each_state() -> None:
    memory = decisions()
    memory.write(memory.text + "\n## Keep a changelog\nChose: yes.\n")
    held = memory.state
    assert view_state(held) is held
    memory.apply(
        decide_trust_action(
            files(memory), "deploy-on-fridays", "dispute", "two outages", Actor.USER, TODAY
        )
    )
    view = render_body(view_state(memory.state))
    assert "## Deploy on Fridays <!--mem id:deploy-on-fridays created:2026-09-18 " in view
    assert "touched:2026-09-18-->\n[disputed by the person: two outages]\nChose: yes." in view
    assert "[disputed" not in memory.body  # the file itself is as written
    write_with_trust(memory, memory.text + POSTGRES)
    memory.apply(
        decide_trust_action(files(memory), "keep-a-changelog", "retract", "", Actor.USER, TODAY)
    )
    view = render_body(view_state(memory.state))
    assert view.startswith(
        "# DECISIONS\n\n[2 superseded or retracted DECISIONS entries left out of this view — "
        "read orbital/DECISIONS_ARCHIVE.md or run `orbital beliefs`]\n\n## Deploy on Fridays"
    )
    assert "SQLite" not in view and "changelog" not in view
    assert "[archived 2026-09-18 id:keep-a-changelog] retracted by the person" in memory.body
    archive = render_archive(memory.state)
    assert "## Use SQLite for the store <!--mem id:use-sqlite-for-the-store" in archive
    assert "## Keep a changelog <!--mem id:keep-a-changelog" in archive
    listed = {b.id: (b.state, b.status, b.by) for b in beliefs(files(memory))}
    assert listed == {
        "use-sqlite-for-the-store": ("superseded", "archived", ("use-postgresql-for-the-store",)),
        "deploy-on-fridays": ("disputed", "live", ()),
        "keep-a-changelog": ("retracted", "archived", ()),
        "use-postgresql-for-the-store": ("held", "live", ()),
    }
    assert [b.id for b in beliefs(files(memory), ("retracted",))] == ["keep-a-changelog"]


def test_state_entries_are_marked_and_left_out_too() -> None:
    memory = Memory("state")
    memory.write("- Current focus: the importer.\n- Blocked on the vendor API key.\n")
    first, second = memory.state.live_ids()
    memory.apply(
        decide_trust_action(
            {"state": memory.state}, first, "dispute", "done already", Actor.USER, TODAY
        )
    )
    memory.apply(
        decide_trust_action({"state": memory.state}, second, "retract", "", Actor.USER, TODAY)
    )
    view = render_body(view_state(memory.state))
    assert "- Current focus: the importer. [disputed by the person: done already]" in view
    assert "vendor" not in view
    assert "[1 superseded or retracted PROJECT_STATE entry left out of this view" in view


# -- restatements -----------------------------------------------------------------------------


def test_a_retracted_entry_re_added_is_warned_and_linked_not_refused() -> None:
    memory = decisions()
    memory.apply(
        decide_trust_action(
            files(memory), "deploy-on-fridays", "retract", "broke prod", Actor.USER, TODAY
        )
    )
    text = "\n## Deploy every Friday\nChose: yes, deploy on Fridays. Reason: weekly cadence.\n"
    warnings, events = write_with_trust(memory, memory.text + text)
    assert warnings == [
        "DECISIONS: new entry deploy-every-friday says again what deploy-on-fridays said, which "
        "was retracted by the person (broke prod); it is kept and linked to deploy-on-fridays "
        "— if it is meant to replace it, say why in the entry"
    ]
    assert events == [
        EntryRestates(entry_id="deploy-every-friday", restates="deploy-on-fridays", date=TODAY)
    ]
    assert "deploy-every-friday" in memory.state.live_ids()


def test_a_new_entry_restating_a_live_one_is_warned_naming_it() -> None:
    memory = decisions()
    text = "\n## Store on SQLite\nChose: SQLite for the store. Reason: embedded.\n"
    warnings, events = write_with_trust(memory, memory.text + text)
    assert warnings == [
        "DECISIONS: new entry store-on-sqlite restates use-sqlite-for-the-store (DECISIONS); "
        "revise use-sqlite-for-the-store instead, or name it on a 'Supersedes:' line"
    ]
    assert events == []
    different = "\n## Use Redis for the cache\nChose: Redis. Reason: TTLs.\n"
    assert write_with_trust(memory, memory.text + different) == ([], [])


def test_a_new_entry_restating_an_archived_one_is_warned_naming_its_archive() -> None:
    memory = decisions()
    pointer = "[archived 2026-09-18 id:use-sqlite-for-the-store] Use SQLite → DECISIONS_ARCHIVE.md"
    memory.apply([EntryArchived(entry_id="use-sqlite-for-the-store", pointer=pointer, date=TODAY)])
    text = "\n## Store on SQLite\nChose: SQLite for the store. Reason: embedded.\n"
    warnings, events = write_with_trust(memory, memory.text + text)
    assert warnings == [
        "DECISIONS: new entry store-on-sqlite restates use-sqlite-for-the-store (its archive); "
        "revise use-sqlite-for-the-store instead, or name it on a 'Supersedes:' line"
    ]
    assert events == []  # held and archived: a warning, no link


def test_lessons_are_checked_for_restatements_and_project_state_is_not() -> None:
    lessons = Memory("lessons")
    lessons.write("1. Curl beats the browser\nUse curl for GitHub pages.\n")
    before = {"lessons": lessons.state}
    again = "2. Curl beats a browser\nFor GitHub pages, use curl.\n"  # renumbered, reordered
    decision = lessons.write(lessons.text + again)
    restated = decide_restatements(before, decision.events, TODAY)
    (warning,) = restated.warnings
    assert warning.startswith("LESSONS: new entry ")
    assert "restates curl-beats-the-browser (LESSONS)" in warning
    state = Memory("state")
    state.write("- Use curl for GitHub pages.\n")
    before = {"state": state.state}
    decision = state.write(state.text + "- Use curl for the GitHub pages.\n")
    assert decide_restatements(before, decision.events, TODAY).warnings == ()


def test_a_write_naming_an_out_of_force_entry_by_its_id_does_not_bring_it_back() -> None:
    memory = decisions()
    read_before = memory.text  # a writer read the file, then the person retracted and
    memory.apply(  # a newer entry superseded
        decide_trust_action(
            files(memory), "deploy-on-fridays", "retract", "broke prod", Actor.USER, TODAY
        )
    )
    write_with_trust(memory, memory.text + POSTGRES)
    body = memory.body
    decision = memory.write(read_before + POSTGRES)  # the stale text, both entries in it
    assert decision.events == ()
    assert decision.warnings == (
        "DECISIONS: use-sqlite-for-the-store was superseded by use-postgresql-for-the-store; "
        "the write does not bring it back (it stays in the archive). The person can reaffirm "
        "it; to say it again, write a new entry without its id comment and say why",
        "DECISIONS: deploy-on-fridays was retracted by the person (broke prod); the write does "
        "not bring it back (it stays in the archive). The person can reaffirm it; to say it "
        "again, write a new entry without its id comment and say why",
    )
    assert memory.body == body  # one pointer each, where they were
    trust = {i: e.trust.state for i, e in memory.state.entries.items()}
    assert trust["deploy-on-fridays"] == "retracted"
    assert trust["use-sqlite-for-the-store"] == "superseded"
