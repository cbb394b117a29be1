"""Write the agent plugins' files from :mod:`orbital.agents.plugin`:
``python -m tests.packaging.plugins`` after changing the hooks, the instructions or the
version (``tests/packaging/test_plugins.py`` fails until the committed files agree)."""

from __future__ import annotations

import orbital
from orbital.agents.plugin import files
from tests.packaging.tools import ROOT


def main() -> None:
    for name, text in files(orbital.__version__).items():
        path = ROOT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
