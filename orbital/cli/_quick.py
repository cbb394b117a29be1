"""``orbital context`` and ``orbital show FILE`` without click, when an earlier process kept the
answer (:mod:`orbital.service._view_outputs`: the same keys in the same output store).

Only the plainest command lines are taken (``--project``, and for ``context`` ``--window`` and
``--audience``); any other, and any answer not kept, goes to click and the full path, which
prints the same text and keeps it for the next process.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The options each quick command takes, each with one value.
_OPTIONS = {"context": ("--project", "--window", "--audience"), "show": ("--project",)}


def plain_line(words: list[str], names: tuple[str, ...]) -> tuple[dict[str, str], list[str]] | None:
    """The options (each of ``names`` at most once, with a non-empty value, ``--name value``
    or ``--name=value``) and the arguments of a command line's ``words``; None for anything
    else (another option, a word starting with ``-``): click takes that line."""
    options, rest = dict[str, str](), list[str]()
    it = iter(words)
    for word in it:
        name, eq, value = word.partition("=")
        if name in names and name not in options:
            value = value if eq else next(it, "")
            if not value:
                return None
            options[name] = value
        elif word.startswith("-"):
            return None
        else:
            rest.append(word)
    return options, rest


def quick_read(args: list[str]) -> bool:
    """Print the kept answer of a plain ``context``/``show`` line; False: not answered."""
    if not args or args[0] not in _OPTIONS:
        return False
    command = args[0]
    parsed = plain_line(args[1:], _OPTIONS[command])
    if parsed is None:
        return False
    options, rest = parsed
    project = Path(options.get("--project", "."))
    if not project.is_dir():
        return False
    from orbital.project import store_for
    from orbital.service._sessions import state_dir
    from orbital.service._view_outputs import kept_file, kept_view

    db, outputs = store_for(project), state_dir() / "cache" / "outputs"
    if command == "context":
        window_text, audience = options.get("--window"), options.get("--audience", "agent")
        if rest or audience not in ("agent", "subagent"):
            return False
        window = None if window_text is None else _positive(window_text)
        if window_text is not None and window is None:
            return False
        text = kept_view(outputs, db, project, window, audience)
        end = "\n"
    else:
        if len(rest) != 1:
            return False
        text, end = kept_file(outputs, db, project, rest[0]), ""
    if text is None or "\x1b" in text:  # click would strip escapes off a pipe: let it
        return False
    sys.stdout.write(text + end)
    sys.stdout.flush()
    return True


def _positive(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value > 0 else None
