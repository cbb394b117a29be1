"""Base types shared by every event module: the tagged Struct base and the actors."""

from __future__ import annotations

import enum

import msgspec


class Actor(enum.StrEnum):
    """Who caused an event. Decided by the credential or entry point, never by content."""

    USER = "user"
    AGENT = "agent"
    EDITOR = "editor"
    SYSTEM = "system"
    FILE = "file"


class Event(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="type"):
    """Base of every event payload.

    Subclasses set ``tag="<category>.<name>"``; the tag is the ``type`` column of the
    event table. New fields must have defaults so that stored events keep decoding, and the
    decoder never forbids unknown fields (old code may read newer events).
    """


def event_type(cls: type[Event]) -> str:
    """The stored ``type`` of an event class (its msgspec tag)."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str), f"{cls.__name__} has no string tag"
    return tag
