"""Recall on a prompt: at most ``ORBITAL_RECALL`` (default 3; 0 switches it off) one-line
pointers to archived entries that match the prompt strongly (:mod:`projections.recall`), read
from a current search index. Both hook lanes call :func:`recall_text`: the quick lane over its
first reads (when the index is current), the service after catching the index up. Light on
purpose: the quick lane imports it, and the rule's modules only when a prompt is weighed."""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import TYPE_CHECKING

from orbital.errors import InvalidInput

if TYPE_CHECKING:
    from orbital.store._search import SearchReads

#: Pointers per prompt unless configured.
DEFAULT_POINTERS = 3

#: Archived entries a recall weighs, best ranked first.
RECALL_CANDIDATES = 20
#: Pointers per prompt, at most, whatever is configured (a few hundred tokens).
MOST_POINTERS = 10


def recall_limit() -> int:
    """How many pointers a prompt may bring (``ORBITAL_RECALL``; 0: recall is off)."""
    raw = os.environ.get("ORBITAL_RECALL", "").strip()
    if not raw:
        return DEFAULT_POINTERS
    if not raw.isdigit() or int(raw) > MOST_POINTERS:
        raise InvalidInput(
            f"ORBITAL_RECALL must be a whole number from 0 (off) to {MOST_POINTERS}, not {raw!r}"
        )
    return int(raw)


def recall_text(
    reads: SearchReads, project: str, prompt: str, limit: int, given: Collection[str] = ()
) -> tuple[str, tuple[str, ...]]:
    """The pointers a prompt brings, as the agent reads them ("" for none), and the ids they
    point at; entries in ``given`` (the session has them already) are left out. The rule's
    modules are imported here: a hook with recall off never loads them."""
    from projections.recall import prompt_terms, recall_pointers, render_pointers

    terms = prompt_terms(prompt)
    if not terms or limit <= 0:
        return "", ()
    rows = reads.recall(project, terms, RECALL_CANDIDATES)
    found = recall_pointers(terms, [(r.item, r.file, r.text) for r in rows], limit, given)
    return render_pointers(found), tuple(p.entry_id for p in found)
