"""A Claude Code command hook for tests: log the payload, print the next canned reply.

Usage: ``python scripted_hook.py LOG.jsonl [REPLIES.json]``. Each call appends one line
``{"started": <epoch s>, "payload": <stdin JSON>}`` to the log, takes the first reply of the
JSON list in REPLIES.json (writing the rest back) and prints it; ``{}`` once the list is used
up or without one. So a test scripts what each hook answers, then asserts what Claude Code
sent it. Standard library only, so it starts as fast as Python can.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    """Run once as the hook process; always exit 0 (a test hook never blocks by exit code)."""
    started = time.time()
    payload = json.load(sys.stdin)
    with Path(argv[1]).open("a", encoding="utf-8") as log:
        log.write(json.dumps({"started": started, "payload": payload}) + "\n")
    reply: object = {}
    if len(argv) > 2:
        replies = Path(argv[2])
        queue = json.loads(replies.read_text(encoding="utf-8"))
        if queue:
            reply = queue.pop(0)
            replies.write_text(json.dumps(queue), encoding="utf-8")
    sys.stdout.write(json.dumps(reply))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
