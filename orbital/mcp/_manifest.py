"""What the server says about itself, for the stdio server to answer without the MCP SDK.

Importing the SDK (pydantic models of every protocol revision) costs seconds of CPU, far past
the half second an agent should wait for its memory server to start. So ``manifest.json``
beside this module holds what the SDK server built by :func:`orbital.mcp.build_server`
answers to ``initialize`` and ``tools/list``; ``python -m tests.mcp.test_manifest`` writes it
after a tool changes, and the test checks it. The resources and the instructions are plain
data and live here, below both servers (the SDK server imports them).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from orbital.catalogue import ARCHIVE_FILES, MEMORY_FILES

#: The scheme of the resources' URIs: ``orbital://memory/DECISIONS.md``.
RESOURCE_PREFIX = "orbital://memory/"
INSTRUCTIONS = (
    "Orbital is this project's memory, shared with the user and other agents. Read "
    "memory_context at the start of a task. Record what lasts with memory_write (read the file "
    "first) and what the user asks for with ask_open; close or reopen an ask only on the "
    "user's own words, quoted. A refusal is final for that call: do not retry it reworded."
)
MANIFEST = Path(__file__).with_name("manifest.json")


def resources() -> list[dict[str, str]]:
    """One resource per projected file, as ``resources/list`` lists them."""
    archives = set(ARCHIVE_FILES.values())
    return [
        {
            "name": name,
            "uri": RESOURCE_PREFIX + name,
            "description": ("What was archived from " if name in archives else "The memory file ")
            + f"{name.replace('_ARCHIVE', '')}, as Orbital renders it from events.",
            "mimeType": "text/markdown",
        }
        for name in (*MEMORY_FILES.values(), *ARCHIVE_FILES.values())
    ]


@cache
def load() -> dict[str, Any]:
    """The manifest: ``initialize`` (the result less ``protocolVersion``), ``tools`` (as
    listed) and ``protocolVersions`` (the handshake revisions the SDK negotiates)."""
    manifest: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return manifest
