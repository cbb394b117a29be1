"""A tool call's arguments checked against the tool's input schema: one check, both transports.

A tool's schema is the one the SDK derives from its signature (:mod:`._tools`) and lists;
``manifest.json`` holds it as the SDK wrote it (:mod:`._manifest`). Both transports check a
call's arguments against it with the standard JSON Schema validator (``jsonschema``, which the
SDK itself depends on): the stdio server before it runs the call, the SDK server (HTTP
``/mcp``) in a middleware before the SDK's own signature model sees them, so that model never
refuses anything. A rule about arguments is thus written once, as the signature's schema, and
read by one validator, and a bad call gets the same error on either transport. The validator
is loaded on first use (the stdio server's opening thread loads it, not the handshake).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from orbital.mcp._manifest import load

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


@cache
def _validators() -> dict[str, Validator]:
    """Each tool's compiled validator, by tool name."""
    from jsonschema.validators import validator_for

    found: dict[str, Validator] = {}
    for tool in load()["tools"]:
        schema = tool["inputSchema"]
        kind = validator_for(schema)
        kind.check_schema(schema)
        found[tool["name"]] = kind(schema)
    return found


def prepare() -> None:
    """Load the validator and compile every tool's schema now (the first check's cost)."""
    _validators()


def argument_error(tool: str, arguments: Any) -> str | None:
    """The tool error for ``arguments`` that do not fit ``tool``'s schema: every failing
    argument with what its schema wanted; None when they fit or the tool is unknown (the
    caller answers that)."""
    validator = _validators().get(tool)
    if validator is None:
        return None
    errors = sorted(
        validator.iter_errors(arguments),
        key=lambda e: ([str(p) for p in e.absolute_path], e.message),
    )
    if not errors:
        return None
    lines = []
    for error in errors:
        where = ".".join(str(p) for p in error.absolute_path) or "arguments"
        options = "; ".join(sorted({c.message for c in error.context or ()}))
        lines.append(f"{where}: {error.message}" + (f" ({options})" if options else ""))
    plural = "s" if len(lines) > 1 else ""
    return "\n".join([f"{len(lines)} validation error{plural} for {tool}:", *lines])


def bound(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Checked ``arguments`` as the tool takes them: the schema's default for each one not
    given, and the schema's properties only (others are ignored, as the SDK ignores them)."""
    schema = _validators()[tool].schema
    properties: dict[str, Any] = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return {
        name: arguments[name] if name in arguments else spec["default"]
        for name, spec in properties.items()
        if name in arguments or "default" in spec
    }
