"""The projector contract: what every output Orbital produces declares, and how its key is made.

An output (a memory file, an archive, ASKS.md, the injection view, …) is a pure function of
the streams it reads, a few facts from outside the store and its own parameters. A projector
names all three: the stream categories it ``reads``, the ``facts`` it needs (the day in the
view's zone, which mentioned files exist, …) and, through :meth:`Projector.key`, the key of
one output. Two renders with equal keys give equal text, so any process may keep an output by
its key and answer from it (the output store, ``orbital/service/_outputs.py``); a changed
input changes the key, so nothing stale is ever found. Rendering is the projector's own
business and does no I/O: the shell gathers the state and the facts and hands them in.

Positions are gapless and global, so a category's newest event (position and id) names every
event of that category up to it: the heads of the categories read stand for the state read.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

#: A key: plain values only (strings, numbers, tuples), so its ``repr`` is stable across
#: processes and a process-independent digest can be made of it.
Key = tuple[Hashable, ...]


class Heads:
    """Each stream category of a project -> its last position and that event's id."""

    __slots__ = ("_newest", "categories")

    def __init__(self, categories: Mapping[str, tuple[int, str]]) -> None:
        self.categories = categories
        #: :meth:`newest` per prefixes asked (the heads never change; a server asks each request).
        self._newest: dict[tuple[str, ...], tuple[int, str]] = {}

    def event(self) -> tuple[int, str]:
        """The project's last position and that event's id."""
        return max(self.categories.values(), default=(0, ""))

    def of(self, *prefixes: str) -> int:
        """The newest position of ``prefixes``: ``ask:`` covers the ``ask`` category, ``ask``
        every category that starts with it (``ask``, ``asks``)."""
        return self.newest(*prefixes)[0]

    def newest(self, *prefixes: str) -> tuple[int, str]:
        """The last position of ``prefixes`` (as :meth:`of`) and that event's id: what an
        output of those streams alone is kept under."""
        found = self._newest.get(prefixes)
        if found is None:
            found = self._newest[prefixes] = self._find_newest(prefixes)
        return found

    def _find_newest(self, prefixes: tuple[str, ...]) -> tuple[int, str]:
        return max(
            (
                head
                for name, head in self.categories.items()
                for prefix in prefixes
                if (name == prefix[:-1] if prefix.endswith(":") else name.startswith(prefix))
            ),
            default=(0, ""),
        )


class Projector:
    """One kind of output: its name, what it reads, the outside facts it needs."""

    #: Names the output (part of every key: two projectors never share one).
    name: str
    #: The stream categories (``entry:``, ``ask:``…) the output is a function of.
    reads: tuple[str, ...]
    #: The facts from outside the store the output depends on, by name.
    facts: tuple[str, ...] = ()

    def key(
        self,
        project: str,
        heads: Heads,
        facts: Mapping[str, Hashable] | None = None,
        params: Key = (),
    ) -> Key:
        """The key of this output of ``project``: its name, the newest event of the
        categories it reads, each declared fact's value and the output's own parameters.
        A fact not declared is not read (it cannot change the output); a declared one
        missing is an error, never a silent default."""
        return self.key_at(project, heads.newest(*self.reads), facts, params)

    def key_at(
        self,
        project: str,
        newest: tuple[int, str],
        facts: Mapping[str, Hashable] | None = None,
        params: Key = (),
    ) -> Key:
        """:meth:`key` from the newest event of the categories read (a writer knows it)."""
        given = facts or {}
        try:
            values = tuple(given[name] for name in self.facts)
        except KeyError as missing:
            raise KeyError(f"{self.name}: fact not given: {missing.args[0]}") from None
        return (self.name, project, newest, values, params)
