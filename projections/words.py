"""The words of a text as a search takes them: runs of letters and digits, everything else a
separator. A person's or a prompt's text reaches a full-text engine only as these words, each
quoted (:mod:`orbital.store._search`), so no character they type is ever its syntax. Light on
purpose: a hook's quick lane imports it."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")


def words_of(text: str) -> list[str]:
    """The words of ``text`` in order (letters and digits of any script)."""
    return _WORD.findall(text)


def title_of(text: str, most: int = 120) -> str:
    """The first line of a text without its markdown marker (heading, bullet, number), at
    most ``most`` characters."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    title = first.lstrip("#*-+0123456789.) \t").strip() or first.strip()
    return title if len(title) <= most else title[: most - 1] + "…"
