"""A loopback HTTP server for the scripted stand-ins of remote APIs (the editor's model
provider in ``tests/editor/fake_llm.py``, the Anthropic API in ``tests/agents/fake_anthropic.py``):
one place that binds a free 127.0.0.1 port, serves each request from a thread and stops."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    """A request as it reached the server (``body`` is the raw bytes, empty when none)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


#: A stand-in's answer to one request: status, content type and body.
Answer = tuple[int, str, bytes]


@contextmanager
def loopback(answer: Callable[[Received], Answer], methods: Iterable[str]) -> Iterator[str]:
    """Answer each request of ``methods`` with ``answer`` for the ``with`` block (others get
    ``501``); yields the base URL ``http://127.0.0.1:<port>``. A client that gave up on its
    answer (a timeout test, an agent moving on) is not an error."""

    class Handler(BaseHTTPRequestHandler):
        def serve(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length) if length else b""
            status, content_type, data = answer(
                Received(self.command, self.path, dict(self.headers), body)
            )
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    for method in methods:
        setattr(Handler, f"do_{method}", Handler.serve)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        thread.join()
        httpd.server_close()
