"""Tests whose held lines rest on WordNet skip, with their reason, where it is not installed
(``.ci/run`` installs Debian's ``wordnet-base``); :data:`WORDNET` loads it as the service does."""

from __future__ import annotations

import pytest

from orbital.service._wordnet import LoadedWordNet, folder

#: The installed WordNet, loaded at the first call (no state folder: its lists parsed).
WORDNET = LoadedWordNet()

needs_wordnet = pytest.mark.skipif(
    folder() is None,
    reason="WordNet is not installed (apt-get install wordnet-base, or set ORBITAL_WORDNET)",
)
