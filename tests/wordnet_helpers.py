"""Tests whose held lines rest on WordNet skip, with their reason, where it is not installed
(``.ci/run`` installs Debian's ``wordnet-base``)."""

from __future__ import annotations

import pytest

from orbital.domain import wordnet

needs_wordnet = pytest.mark.skipif(
    wordnet.folder() is None,
    reason="WordNet is not installed (apt-get install wordnet-base, or set ORBITAL_WORDNET)",
)
