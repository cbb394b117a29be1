"""``python -m orbital``: the ``orbital`` command (how Orbital starts a process of its own
whatever the ``orbital`` on ``PATH`` is)."""

from orbital.cli import main

main()
