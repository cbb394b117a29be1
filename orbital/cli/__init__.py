"""The ``orbital`` command line. It parses arguments, calls the service, prints results;
rules live below it. Orbital's typed errors become one ``error:`` line and the exit status of
their family (``_app.py``).
"""

from orbital.cli import (  # noqa: F401  (each registers its commands)
    _admin,
    _agents,
    _asks,
    _editor,
    _entries,
    _mcp,
    _memory,
)
from orbital.cli._app import cli, main

__all__ = ["cli", "main"]
