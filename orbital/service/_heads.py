"""A project's heads from one read: the head event and the head of every stream prefix.

The view asks, after each change, whether the asks, the memory files and the project's texts
moved, and under which head it is kept; a read per question was a statement each. One
:meth:`Reader.category_heads` answers them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a quick read builds Heads from its own statement, without the store
    from orbital.store import Reader


@dataclass(frozen=True)
class Heads:
    """Each stream category of a project -> its last position and that event's id."""

    categories: Mapping[str, tuple[int, str]]

    @classmethod
    def read(cls, r: Reader, project: str) -> Heads:
        return cls(r.category_heads(project))

    def event(self) -> tuple[int, str]:
        """As :meth:`Reader.head_event`: the project's last position and that event's id."""
        return max(self.categories.values(), default=(0, ""))

    def of(self, *prefixes: str) -> int:
        """As :meth:`Reader.prefix_head`, the newest of ``prefixes``: ``ask:`` covers the
        ``ask`` category, ``ask`` every category that starts with it (``ask``, ``asks``)."""
        return self.newest(*prefixes)[0]

    def newest(self, *prefixes: str) -> tuple[int, str]:
        """The last position of ``prefixes`` (as :meth:`of`) and that event's id: what a
        projection of those streams alone is kept under."""
        return max(
            (
                head
                for name, head in self.categories.items()
                for prefix in prefixes
                if (name == prefix[:-1] if prefix.endswith(":") else name.startswith(prefix))
            ),
            default=(0, ""),
        )
