"""The memory part of the editor's prompt: sizes against budgets, pointer counts, the files.

Rendered from the folded state the run starts from (the OCC baseline), so the ids the model
sees are exactly the ids the applier checks.
"""

from __future__ import annotations

from collections.abc import Mapping

from orbital.catalogue import FILE_BUDGETS, LAYER1_KEYS, MEMORY_FILES
from orbital.domain.budgets import TokenCounter, consolidation_target
from orbital.domain.measure import measure_state
from orbital.grammar.model import FileState
from orbital.grammar.pointers import is_pointer_line
from orbital.grammar.render import render_body


def memory_section(files: Mapping[str, FileState], count: TokenCounter) -> str:
    """Per file ``NAME: N tok (soft S, target T) — verdict; P pointer lines``, then every file
    in full without its format contract as ``=== NAME ===``."""
    sizes = ["Memory files (token sizes; budgets exclude the format line):"]
    shown = []
    for key in LAYER1_KEYS:
        state = files.get(key, FileState(key=key))
        body = render_body(state)
        measure = measure_state(state, count)
        soft, target = FILE_BUDGETS[key].soft, consolidation_target(key)
        verdict = (
            f"OVER the soft budget: bring it toward {target}" if measure > soft else "within budget"
        )
        pointers = sum(1 for line in body.splitlines() if is_pointer_line(line))
        sizes.append(
            f"- {MEMORY_FILES[key]}: {measure:.0f} tok (soft budget {soft}, target {target}) — "
            f"{verdict}; {pointers} pointer line(s)"
        )
        shown.append(f"=== {MEMORY_FILES[key]} ===\n{body if body.strip() else '(empty)'}")
    return "\n".join(sizes) + "\n\n" + "\n\n".join(s.rstrip("\n") for s in shown)
