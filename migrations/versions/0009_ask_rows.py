"""Ask stream states as rows: each ``ask:<id>`` state re-encoded from a JSON object to the
array Orbital writes from this revision on (``orbital/service/_ask_rows.py``: no field names,
dates as day numbers since 1970-01-01, the state as an index, trailing defaults left out).
States are materialised views, not events: the events stay as they were stored. Ask events
appended from this revision on are arrays too, which code before it cannot decode, so the
revision also keeps that code from opening the store. No table changes.

The layout is repeated here, not imported: a migration is frozen at its revision.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_STATES = ("open", "done", "dropped")
_EPOCH = dt.date(1970, 1, 1).toordinal()
_BATCH = 2000
_streams = sa.table(
    "streams",
    sa.column("project_id", sa.String),
    sa.column("stream", sa.String),
    sa.column("state", sa.Text),
)


def _day(value: str) -> int:
    return dt.date.fromisoformat(value).toordinal() - _EPOCH


def _row(state: dict[str, Any]) -> list[Any]:
    opened = _day(state["opened"])
    row = [
        state["id"],
        state["text"],
        opened,
        _STATES.index(state["state"]),
        _day(state["updated"]) - opened,
        state["seq"],
    ]
    rest = [state.get("note", ""), state.get("closed_by"), state.get("due")]
    while rest and rest[-1] == ("", None, None)[len(rest) - 1]:
        rest.pop()
    return row + rest


def _object(row: list[Any]) -> dict[str, Any]:
    note, closed_by, due = [*row[6:], *("", None, None)[len(row) - 6 :]]
    opened = dt.date.fromordinal(_EPOCH + row[2])
    return {
        "id": row[0],
        "text": row[1],
        "due": due,
        "opened": opened.isoformat(),
        "state": _STATES[row[3]],
        "updated": (opened + dt.timedelta(days=row[4])).isoformat(),
        "closed_by": closed_by,
        "note": note,
        "seq": row[5],
    }


def _recode(opening: str, recode: Callable[[Any], Any]) -> None:
    """Every ``ask:`` state that starts with ``opening``, re-encoded, a batch at a time."""
    conn = op.get_bind()
    after = ("", "")
    while True:
        rows = conn.execute(
            sa.select(_streams.c.project_id, _streams.c.stream, _streams.c.state)
            .where(
                sa.tuple_(_streams.c.project_id, _streams.c.stream) > sa.tuple_(*after),
                _streams.c.stream.startswith("ask:"),
            )
            .order_by(_streams.c.project_id, _streams.c.stream)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        changed = [
            {
                "p": project,
                "s": stream,
                "v": json.dumps(
                    recode(json.loads(state)), ensure_ascii=False, separators=(",", ":")
                ),
            }
            for project, stream, state in rows
            if state is not None and state.startswith(opening)
        ]
        if changed:
            conn.execute(
                _streams.update()
                .where(
                    _streams.c.project_id == sa.bindparam("p"),
                    _streams.c.stream == sa.bindparam("s"),
                )
                .values(state=sa.bindparam("v")),
                changed,
            )
        after = (rows[-1][0], rows[-1][1])


def upgrade() -> None:
    _recode("{", _row)


def downgrade() -> None:
    _recode("[", _object)
