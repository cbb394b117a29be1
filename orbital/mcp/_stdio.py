"""``orbital mcp``: the MCP server on stdin/stdout, answering without loading the MCP SDK.

An agent starts its MCP servers with every session and waits for them; loading the SDK (the
pydantic models of every protocol revision) costs seconds of CPU. So this server speaks the
initialize-handshake revisions of the protocol itself (newline-delimited JSON-RPC, MCP's
stdio transport): ``initialize`` and ``tools/list`` are answered from the manifest the SDK
server wrote (:mod:`._manifest`) before the store is open, while a thread opens the service;
tool calls run the same :class:`._calls.Calls` the SDK server runs, after the same argument
check (:mod:`._schema`: the tool's schema, by the JSON Schema validator), so the SDK is never
loaded here (the thread renders the injection view once, so the first ``memory_context``
finds it cached, and loads the validator). A ``server/discover`` probe (the stateless 2026
revision) is "method not found", on which clients fall back to ``initialize``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

import msgspec

from orbital.errors import OrbitalError, error_line
from orbital.mcp._answer import error, wire
from orbital.mcp._caller import Caller, session_of
from orbital.mcp._manifest import load, resources
from orbital.mcp._schema import argument_error, bound, prepare

if TYPE_CHECKING:
    from orbital.mcp._answer import Answer
    from orbital.mcp._calls import Calls
    from orbital.service import Orbital

#: JSON-RPC error codes the server answers with.
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
Opener = Callable[[], "tuple[Orbital, str]"]


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class _Warm:
    """The service and the project, opened by a thread while the handshake is answered."""

    def __init__(self, opener: Opener) -> None:
        self._opener = opener
        self._done = threading.Event()
        self.calls: Calls | None = None
        self.project = ""
        self.failure: BaseException | None = None
        threading.Thread(target=self._open, name="orbital-mcp-open", daemon=True).start()

    def _open(self) -> None:
        try:
            from orbital.mcp._calls import Calls

            service, self.project = self._opener()
            calls = Calls(service)
            first = Caller(self.project, None)
            calls.memory_context(first, **bound("memory_context", {}))  # cached for the first call
            prepare()
            self.calls = calls
        except BaseException as exc:  # reported to each call, and at the end
            self.failure = exc
        finally:
            self._done.set()

    def ready(self) -> Calls:
        """The calls, once the service is open; its error if it could not be opened."""
        self._done.wait()
        if self.failure is not None:
            raise self.failure
        assert self.calls is not None
        return self.calls


class StdioServer:
    """One client's session: each message in, at most one answer out."""

    def __init__(self, opener: Opener, output: BinaryIO) -> None:
        self.warm = _Warm(opener)
        self.output = output
        self.manifest = load()
        self.tools = {tool["name"]: tool for tool in self.manifest["tools"]}
        self.uris = {r["uri"]: r for r in resources()}

    def serve(self, lines: BinaryIO) -> None:
        for line in lines:
            if line.strip():
                self.handle(line)
        self.warm.ready()  # a project that could not be opened is the command's error

    def handle(self, line: bytes) -> None:
        try:
            message = msgspec.json.decode(line)
        except msgspec.DecodeError:
            self._send({"jsonrpc": "2.0", "id": None, "error": _error(PARSE_ERROR, "Parse error")})
            return
        if not isinstance(message, dict) or "method" not in message:
            return  # a response to us, or nothing we answer
        if "id" not in message:
            return  # a notification: initialized, cancelled, roots changed…
        ident, params = message["id"], message.get("params") or {}
        try:
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "Invalid params")
            result = self._answer(str(message["method"]), params)
        except RpcError as exc:
            self._send(
                {"jsonrpc": "2.0", "id": ident, "error": _error(exc.code, exc.message, exc.data)}
            )
            return
        except Exception as exc:  # a bug: said on stderr, answered, and the session goes on
            sys.stderr.write(f"orbital mcp: {type(exc).__name__}: {exc}\n")
            self._send(
                {"jsonrpc": "2.0", "id": ident, "error": _error(INTERNAL_ERROR, "Internal error")}
            )
            return
        self._send({"jsonrpc": "2.0", "id": ident, "result": result})

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            asked = params.get("protocolVersion")
            versions = self.manifest["protocolVersions"]
            version = asked if asked in versions else versions[-1]
            return {**self.manifest["initialize"], "protocolVersion": version}
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": self.manifest["tools"]}
        if method == "resources/list":
            return {"resources": list(self.uris.values())}
        if method == "resources/templates/list":
            return {"resourceTemplates": []}
        if method == "prompts/list":
            return {"prompts": []}
        if method == "tools/call":
            return self._call(params)
        if method == "resources/read":
            return self._read(str(params.get("uri", "")))
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = str(params.get("name", "")), params.get("arguments") or {}
        tool = self.tools.get(name)
        if tool is None:
            return wire(error(f"Unknown tool: {name}"))
        try:
            calls = self.warm.ready()
        except OrbitalError as exc:
            return wire(error(error_line(exc)))
        problem = argument_error(name, arguments)
        if problem is not None:
            return wire(error(problem))
        who = Caller(self.warm.project, session_of(params.get("_meta")))
        answer: Answer = getattr(calls, name)(who, **bound(name, arguments))
        return wire(answer)

    def _read(self, uri: str) -> dict[str, Any]:
        listed = self.uris.get(uri)
        if listed is None:
            raise RpcError(INVALID_PARAMS, f"Unknown resource: {uri}", {"uri": uri})
        try:
            text = self.warm.ready().service.read_file(self.warm.project, listed["name"])
        except OrbitalError as exc:
            raise RpcError(INTERNAL_ERROR, error_line(exc), {"uri": uri}) from exc
        return {"contents": [{"uri": uri, "mimeType": listed["mimeType"], "text": text}]}

    def _send(self, message: dict[str, Any]) -> None:
        self.output.write(msgspec.json.encode(message) + b"\n")
        self.output.flush()


def _error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {"code": code, "message": message, **({} if data is None else {"data": data})}


def serve_stdio(opener: Opener) -> None:
    """Serve until the client closes stdin. ``opener`` opens the service and names the
    project; it runs beside the handshake, and its error (an unknown project…) is each tool
    call's error and, at the end, the command's."""
    StdioServer(opener, sys.stdout.buffer).serve(sys.stdin.buffer)
