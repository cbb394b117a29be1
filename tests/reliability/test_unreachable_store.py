"""Issue 13 item 14: a PostgreSQL URL that cannot be reached (nothing listening, a host that
does not resolve, a database or role that does not exist) is the one ``error:`` line on the
CLI, as a missing SQLite directory is, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orbital import errors
from orbital.store import EventStore

UNREACHABLE = {
    "refused": ("postgresql+psycopg://postgres@127.0.0.1:1/test", "Connection refused"),
    "no host": ("postgresql+psycopg://postgres@nosuchhost.invalid/test", "nosuchhost.invalid"),
    "no database": (
        "postgresql+psycopg://postgres@127.0.0.1:5432/orbital_no_such_db",
        'database "orbital_no_such_db" does not exist',
    ),
}


@pytest.mark.parametrize("name", sorted(UNREACHABLE))
def test_an_unreachable_postgresql_url_is_one_error_line(name: str) -> None:
    url, fragment = UNREACHABLE[name]
    done = subprocess.run(
        [str(Path(sys.executable).parent / "orbital"), "--db", url, "projects"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 6, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("error: cannot reach the store postgresql+psycopg://postgres@"), (
        done.stderr
    )
    assert fragment in done.stderr
    assert done.stderr.rstrip().endswith(
        "nothing was read or written. Check ORBITAL_DB / --db and that the server is running"
    ), done.stderr


def test_the_password_never_shows_in_the_error() -> None:
    with pytest.raises(errors.StoreUnreachable) as caught:
        EventStore("postgresql+psycopg://postgres:s3cret@127.0.0.1:1/test")
    assert "s3cret" not in str(caught.value)
    assert "postgresql+psycopg://postgres:***@127.0.0.1:1/test" in str(caught.value)
