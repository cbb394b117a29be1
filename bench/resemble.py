"""The dropped-ask guard's three outcomes on labelled pairs: refused (certainly the same),
held (possibly the same, :mod:`orbital.domain.resemble`), accepted.

Run: ``python bench/resemble.py [--data PATH ...]`` (default: the dev pairs,
``tests/asks/data/rephrase-dev.jsonl``, the fresh set written before any tuning,
``bench/data/rephrase-fresh.jsonl``, and a second one written before the second round of
tuning and never tuned on, ``bench/data/rephrase-fresh2.jsonl``). Prints per set: refused +
held of the same-intent candidates, refused and held of the different ones (the targets:
>= 95 %, <= 2 %, <= 15 %), then per kind how many were refused / held / accepted; then the
open against 10,000 dropped asks (``bench/rephrase.py``'s timing, the held lookup included)
and the install growth (WordNet, the one new dependency: an operating-system package).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from rephrase import DATA, Row, load, timing

from orbital.domain.rephrase import same_intent
from orbital.domain.resemble import resembles
from orbital.service._wordnet import LoadedWordNet, folder

WORDNET = LoadedWordNet()

FRESH = Path(__file__).resolve().parent / "data" / "rephrase-fresh.jsonl"
FRESH2 = FRESH.with_name("rephrase-fresh2.jsonl")
Outcome = str


def outcome(row: Row) -> Outcome:
    dropped, candidate = str(row["dropped"]), str(row["candidate"])
    if same_intent(dropped, candidate):
        return "refused"
    return "held" if resembles(dropped, candidate, WORDNET()) else "accepted"


def report(path: Path) -> None:
    rows = load(path)
    outcomes = [outcome(r) for r in rows]
    same = [o for r, o in zip(rows, outcomes, strict=True) if r["same_intent"]]
    different = [o for r, o in zip(rows, outcomes, strict=True) if not r["same_intent"]]
    caught = sum(o != "accepted" for o in same) / len(same)
    refused_same = same.count("refused") / len(same)
    refused = sum(o == "refused" for o in different) / len(different)
    held = sum(o == "held" for o in different) / len(different)
    print(f"{path.name}: {len(rows)} pairs ({len(same)} same intent, {len(different)} different)")
    print(f"  same intent refused + held: {caught:.1%} (refused alone {refused_same:.1%})")
    print(f"  different refused: {refused:.1%}; held: {held:.1%}")
    by_kind: dict[tuple[bool, str], collections.Counter[str]] = collections.defaultdict(
        collections.Counter
    )
    for row, found in zip(rows, outcomes, strict=True):
        by_kind[(bool(row["same_intent"]), str(row["kind"]))][found] += 1
    print(f"  {'kind':34} refused  held  accepted")
    for (is_same, kind), counts in sorted(by_kind.items(), key=lambda k: (not k[0][0], k[0][1])):
        label = f"{kind} ({'same' if is_same else 'different'})"
        print(f"  {label:34} {counts['refused']:7} {counts['held']:5} {counts['accepted']:9}")


def install_growth() -> None:
    where = folder()
    if where is None:
        print("install growth: no WordNet found (held lines rest on abbreviations alone)")
        return
    size = sum(p.stat().st_size for p in where.iterdir() if p.is_file())
    print(f"install growth: WordNet 3.0 at {where}, {size / 1e6:.1f} MB (wordnet-base)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="*", default=[DATA, FRESH, FRESH2])
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    for path in args.data:
        report(path)
    if not args.no_timing:
        timing(load(DATA))
    install_growth()


if __name__ == "__main__":
    main()
