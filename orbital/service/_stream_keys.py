"""Stream states filed by their keys in the store (``stream_keys``), so that a view reads the
first asks of its orders and a refusal the few asks under its key, never every ask.

A **family** is one keyed projection of a category's states: the keys a state gives (the
rules' own key functions: :func:`projections.asks_view.view_key` for the view's orders,
:func:`orbital.domain.asks.filed` for the refusals' indexes), the position it was projected at
and a stamp of the code that makes its keys. A writer catches a family up inside its own
transaction (:func:`catch_up`: the streams moved since its position, filed again), so it is
current whenever no write is under way; one made by other code (a stamp that differs) is made
again whole, once. A reader does not write: it reads the rows as of the family's position plus
the streams moved since (:mod:`._stored_asks`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from orbital.catalogue import ASK_PREFIX
from orbital.domain.asks import Ask, filed
from orbital.store import Projected, Writer
from projections.asks_view import ORDERS, order_range, view_key


class Family(NamedTuple):
    """A keyed projection of the states of the streams named ``prefix…``."""

    name: str
    prefix: str
    keys: Callable[[Any], Iterable[str]]
    #: The modules whose code makes the keys (what the stamp is of).
    sources: tuple[str, ...]
    #: The prefixes of keys whose rows are counted (a view shows how many).
    counted: tuple[str, ...] = ()


#: Stream states read at a time when a family is caught up.
STATES_PAGE = 5_000
#: Separates a key's index from the key within it.
SEP = "\x01"


def index_key(index: str, key: str) -> str:
    """The store's key of ``key`` in one of the refusals' indexes (:func:`filed`)."""
    return f"{index}{SEP}{key}"


def index_range(index: str) -> tuple[str, str]:
    """Every key of one of the refusals' indexes: ``[lo, hi)``."""
    return f"{index}{SEP}", f"{index}\x02"


def _ask_keys(ask: Ask) -> list[str]:
    return [view_key(ask), *(index_key(index, key) for index, key in filed(ask))]


#: The asks by their place in the view's orders and by the keys the refusals look them up by.
ASK_KEYS = Family(
    "asks",
    ASK_PREFIX,
    _ask_keys,
    ("projections.asks_view", "orbital.domain.asks", "orbital.grammar.text"),
    tuple(order_range(n)[0] for n in range(ORDERS)),
)


@functools.cache
def source_digest(modules: tuple[str, ...]) -> bytes:
    """A digest of ``modules``' source files: what keys made by their code depend on."""
    import importlib.util

    digest = hashlib.sha256()
    for module in modules:
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        digest.update(Path(spec.origin).read_bytes())
    return digest.digest()


@functools.cache
def stamp(family: Family) -> str:
    """A digest of the code that makes ``family``'s keys: the same on every machine that runs
    the same Orbital (a team's machines share one PostgreSQL store), another for other code,
    and for another Unicode database (what text keys fold by)."""
    import unicodedata

    digest = hashlib.sha256(f"{family.name};{unicodedata.unidata_version}".encode())
    digest.update(source_digest(family.sources))
    return digest.hexdigest()


def behind(
    w: Writer, project: str, name: str, prefix: str, code: str
) -> tuple[int, Projected | None]:
    """The head of the streams named ``prefix…`` and where family ``name`` was projected, for
    a writer about to catch it up: a family made by other code (another ``code``) is dropped
    first and read as never projected (it is made again whole)."""
    head = w.prefix_head(project, prefix)
    found = w.keys_projected(project, name)
    if found is None or found.stamp != code:
        w.drop_family(project, name)
        return head, None
    return head, found


def catch_up(w: Writer, project: str, family: Family = ASK_KEYS) -> Projected:
    """Bring ``family`` up to the head of its streams inside ``w``'s transaction: the streams
    moved since its position filed again (every stream, when it was never projected or
    another code made it), and its counts moved by the rows they lost and gained. One
    primary-key read when it is current. Returns where it is projected now."""
    code = stamp(family)
    head, found = behind(w, project, family.name, family.prefix, code)
    if found is not None and found.position >= head:
        return found
    after = 0 if found is None else found.position
    counts = dict.fromkeys(family.counted, 0) if found is None else dict(found.counts)
    for moved in w.state_pages(project, family.prefix, after=after, size=STATES_PAGE):
        streams = [] if found is None else list(moved)
        count(counts, (key for _, key in w.keys_of(project, family.name, streams)), -1)
        keys = [
            (key, stream)
            for stream, state in moved.items()
            if state is not None
            for key in family.keys(state)
        ]
        count(counts, (key for key, _ in keys), 1)
        w.file_keys(project, family.name, streams, keys)
    now = Projected(head, code, counts)
    w.keys_at(project, family.name, now)
    return now


def count(counts: dict[str, int], keys: Iterable[str], by: int) -> None:
    """``counts`` moved ``by`` for each of ``keys`` under a counted prefix."""
    for key in keys:
        for prefix in counts:
            if key.startswith(prefix):
                counts[prefix] += by
