"""Whether arguments plainly fit a tool's input schema, for the stdio server's quick path.

The tools' schemas (written by the SDK from their signatures) use a small part of JSON Schema:
an object of properties, each a type, an enum, ``anyOf`` alternatives or an array of items.
Arguments that fit are run at once; anything else, including a schema keyword not known here,
is "not plainly valid" and goes to the SDK server, whose validation (pydantic's) decides and
words the error. So this check may send valid arguments the slow way, never bad ones the
quick way.
"""

from __future__ import annotations

from typing import Any

#: Keywords that only describe.
_NOTES = frozenset({"title", "description", "default"})
_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def plainly_valid(schema: dict[str, Any], arguments: dict[str, Any]) -> bool:
    """Whether ``arguments`` fit the object ``schema`` by its plain keywords alone."""
    if set(schema) - _NOTES - {"type", "properties", "required"} or schema.get("type") != "object":
        return False
    properties: dict[str, Any] = schema.get("properties", {})
    if any(name not in arguments for name in schema.get("required", ())):
        return False
    return all(
        name in properties and _fits(properties[name], value) for name, value in arguments.items()
    )


def _fits(schema: dict[str, Any], value: Any) -> bool:
    keys = set(schema) - _NOTES
    if "anyOf" in schema:
        return keys == {"anyOf"} and any(_fits(option, value) for option in schema["anyOf"])
    if keys - {"type", "enum", "items"}:
        return False
    wanted = _TYPES.get(schema.get("type", ""))
    if wanted is None or not isinstance(value, wanted):
        return False
    if isinstance(value, bool) and schema["type"] != "boolean":
        return False  # JSON true is not an integer
    if "enum" in schema and value not in schema["enum"]:
        return False
    return "items" not in schema or (
        isinstance(value, list) and all(_fits(schema["items"], item) for item in value)
    )
