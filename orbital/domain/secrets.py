"""Secrets kept out at the door: the one rule every write path runs on the text it brings.

Every event a unit of work appends passes :func:`refuse_secrets` (``Unit.append``; a
workspace write, which is no unit, calls it too), whoever wrote it and however it came (an
agent's file tool through a hook, the CLI, HTTP, MCP, a hand edit taken in from disk). The
text an event carries (:func:`texts_of`) is read line by line by ``detect-secrets``' own
plugins and filters, in the process (no subprocess, no network); the package is imported on
the first text checked, so a process that writes no text never pays for it, and without
``requests`` (:func:`_detector`). A secret the
memory files hold already is not new and passes (one written before this check is taken out
with ``orbital purge``). A false positive passes when its line carries detect-secrets' own
allow marker, ``pragma: allowlist secret`` after a comment sign (``#``, ``//``,
``<!-- … -->``), or the line above says ``pragma: allowlist nextline secret``.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import msgspec

from orbital.errors import SecretRefused
from orbital.events._base import Event

#: The fields of an event that carry text someone wrote (ids, hashes, dates and Orbital's own
#: messages are not among them).
TEXT_FIELDS = frozenset({"text", "note", "reason", "pointer", "title"})

#: detect-secrets 1.5's plugins, less ``IPPublicDetector``: an address is not a secret, and a
#: memory file names servers on purpose.
PLUGINS = (
    "ArtifactoryDetector",
    "AWSKeyDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "Base64HighEntropyString",
    "HexHighEntropyString",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)


class Found(msgspec.Struct, frozen=True):
    """A line that looks like it holds a secret: its number (from 1), the kind, the line and
    the secret found on it (kept in the process only, to tell a new secret from a known one)."""

    line: int
    kind: str
    text: str
    secret: str = ""


class _Hit(Protocol):
    line_number: int
    type: str
    secret_value: str | None


class _RequestsOnUse(types.ModuleType):
    """``requests`` as detect-secrets' modules hold it: the package is imported on the first
    name read from it after they are, which only a verification makes (a network call per
    secret found, which Orbital turns off). Importing it costs more than all the plugins
    (urllib3, http, ssl, email, ...: half of a hook's whole start). While they are imported, the
    names they read are the annotations of their verification helpers (``requests.Response``):
    those read :data:`typing.Any`."""

    def __init__(self) -> None:
        super().__init__("requests")
        self.importing = True

    def __getattr__(self, name: str) -> Any:
        if self.importing:
            return Any
        return getattr(importlib.import_module("requests"), name)


_IMPORTING = threading.Lock()


@functools.cache
def _detector() -> tuple[tuple[Any, ...], Any, Any, Any]:
    """detect-secrets' plugins, with its settings made once per process (its verification
    stays off whatever else configured it), and its line scan, filters and line context.
    Its modules are imported with ``requests`` stood in for (:class:`_RequestsOnUse`) unless
    the process imported it already; the stand-in leaves :data:`sys.modules` after."""
    with _IMPORTING:  # sys.modules is the whole process's: one thread at a time
        stand_in = _RequestsOnUse() if "requests" not in sys.modules else None
        if stand_in is not None:
            sys.modules["requests"] = stand_in
        try:
            from detect_secrets.core.scan import _is_filtered_out, _scan_line
            from detect_secrets.settings import get_filters, get_plugins, get_settings
            from detect_secrets.util.code_snippet import get_code_snippet

            settings = get_settings()
            settings.configure_plugins([{"name": name} for name in PLUGINS])
            settings.disable_filters(
                "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
            )
            plugins = tuple(get_plugins())
            get_filters()  # imports the filters' modules now, while ``requests`` is stood in for
        finally:
            if stand_in is not None:
                del sys.modules["requests"]
                stand_in.importing = False
        return plugins, _scan_line, _is_filtered_out, get_code_snippet


def _hits(lines: list[str]) -> Iterator[_Hit]:
    """What detect-secrets reports for ``lines``, as its own line scan does (every plugin,
    its filters, the allow marker among them), but with the filters of a whole line run only
    on a line some plugin found a secret on: they cost more than the plugins, and a line
    they pass over yields nothing either way."""
    plugins, _scan_line, _is_filtered_out, get_code_snippet = _detector()
    name = "memory.md"
    for n, full in enumerate(lines, 1):
        line = full.rstrip()
        if not line.strip():
            continue
        context = get_code_snippet(lines=lines, line_number=n)
        found = [
            hit
            for plugin in plugins
            for hit in _scan_line(
                plugin=plugin, filename=name, line=line, line_number=n, context=context
            )
            if not _is_filtered_out(
                required_filter_parameters=["context"],
                filename=name,
                secret=hit.secret_value,
                plugin=plugin,
                line=line,
                context=context,
            )
        ]
        if found and not _is_filtered_out(
            required_filter_parameters=["line"], filename=name, line=line, context=context
        ):
            yield from found


def secrets_in(text: str) -> tuple[Found, ...]:
    """Each line of ``text`` that looks like it holds a secret, once, with its first kind."""
    lines = text.split("\n")
    found: dict[int, Found] = {}
    for hit in _hits(lines):
        n = int(hit.line_number)
        found.setdefault(n, Found(n, str(hit.type), lines[n - 1], hit.secret_value or ""))
    return tuple(found[n] for n in sorted(found))


def texts_of(event: msgspec.Struct) -> Iterator[str]:
    """The texts someone wrote that ``event`` carries (nested records and slots too)."""
    for name in event.__struct_fields__:
        value = getattr(event, name)
        if isinstance(value, str):
            if name in TEXT_FIELDS and value:
                yield value
        elif isinstance(value, msgspec.Struct):
            yield from texts_of(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, msgspec.Struct):
                    yield from texts_of(item)


def refuse_secrets(
    events: Sequence[Event],
    known: Callable[[], str],
    where: Callable[[Event, Found], tuple[str, int]],
) -> None:
    """Refuse (:class:`SecretRefused`) the first line of the events' texts that looks like a
    secret the memory does not hold already (``known``: its texts, one string; a secret
    already there, moved into an archive's pointer or a merged entry, is not new); ``where``
    names the text and the line number the writer knows it by (the file they wrote, else
    the event's text)."""
    for event in events:
        for text in texts_of(event):
            if text in known():  # text the memory holds already (an archive, a restore):
                continue  # nothing in it is new, so the detector need not even load
            for found in secrets_in(text):
                if (found.secret or found.text).strip() in known():
                    continue
                place, line = where(event, found)
                raise SecretRefused(place, line, found.kind)


def locate(found: Found, text: str) -> int | None:
    """The number (from 1) of the line of ``text`` that holds ``found``'s line (a file's
    line holds an event's: an ASKS.md line its ask's text), if one does."""
    for n, line in enumerate(text.split("\n"), 1):
        if found.text.strip() and found.text.strip() in line:
            return n
    return None


def redacted(text: str) -> tuple[str, tuple[Found, ...]]:
    """``text`` with each line that looks like a secret replaced by a note of what was left
    out (a conflict copy the person reads), and those lines."""
    found = secrets_in(text)
    if not found:
        return text, ()
    lines = text.split("\n")
    for f in found:
        lines[f.line - 1] = f"[left out: line {f.line} looked like a secret ({f.kind})]"
    return "\n".join(lines), found
