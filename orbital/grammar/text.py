"""Whitespace normalisation shared by the grammars and the deciders (an ask's identity key)."""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1 << 16)
def one_line(text: str) -> str:
    """Collapse every run of Unicode whitespace (newlines included) to one space."""
    return " ".join(text.split())


def clipped(text: str, limit: int) -> str:
    """``text`` one-lined, cut to ``limit`` characters with an ellipsis when longer."""
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@functools.lru_cache(maxsize=1 << 16)
def norm(text: str) -> str:
    """The identity key of an ask text: one-lined and casefolded (punctuation kept)."""
    return one_line(text).casefold()


def to_lf(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` as ``\\n``: the one line ending the grammars and the events
    know. A file's own line endings are a property of the file on disk (:func:`uses_crlf`),
    never of its content, so they are never a change."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def uses_crlf(raw: bytes | None) -> bool:
    """Whether a file's bytes end their lines with ``\\r\\n`` (judged by its first line)."""
    if not raw:
        return False
    end = raw.find(b"\n")
    return end > 0 and raw[end - 1 : end] == b"\r"


def with_line_endings(text: str, crlf: bool) -> str:
    """``text`` (``\\n`` line endings) in a file's style."""
    return text.replace("\n", "\r\n") if crlf else text


def same_text(raw: bytes, text: str) -> bool:
    """Whether a file's bytes are ``text`` in either line-ending style."""
    data = text.encode()
    return raw == data or (uses_crlf(raw) and raw == data.replace(b"\n", b"\r\n"))


#: U+0000: no text Orbital stores holds it (PostgreSQL's text refuses it, editors and terminals
#: stop at it), so it is removed wherever text enters, with a warning (:func:`without_nul`).
NUL = "\x00"


def nul_warning(where: str, count: int) -> str:
    """The one warning for NUL characters removed from what entered as ``where``."""
    what, them = ("character", "it") if count == 1 else ("characters", "them")
    return f"{where}: removed {count} NUL {what} (U+0000): stored text cannot hold {them}."


def without_nul(text: str, where: str) -> tuple[str, list[str]]:
    """``text`` without NUL characters, and the warning saying so (none when there were none).

    The one rule for NUL: every interface's text (a file's proposed content, a hand edit, an
    ask's text, due or note) passes here before anything is decided on it."""
    if NUL not in text:  # a search, many times faster than a count over a long log
        return text, []
    return text.replace(NUL, ""), [nul_warning(where, text.count(NUL))]


def without_nul_bytes(data: bytes, where: str) -> tuple[bytes, list[str]]:
    """:func:`without_nul` for UTF-8 bytes not decoded yet (byte 0 is only ever U+0000)."""
    if b"\x00" not in data:
        return data, []
    return data.replace(b"\x00", b""), [nul_warning(where, data.count(b"\x00"))]
