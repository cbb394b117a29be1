"""The fold takes a whole project's entry/file events and keeps only its own file's."""

from __future__ import annotations

from orbital.domain.entries import fold_file, stream_for
from orbital.grammar.render import render_file
from tests.entries.entry_helpers import Memory


def test_one_log_for_all_files_folds_into_each_file() -> None:
    decisions, state = Memory("decisions"), Memory("state")
    decisions.write("## A\nx\n")
    state.write("- s\n")
    log = [*decisions.events, *state.events]
    assert render_file(fold_file("decisions", log)) == decisions.text
    assert render_file(fold_file("state", log)) == state.text
    assert {stream_for(e) for e in decisions.events} == {"entry:a", "file:decisions"}
