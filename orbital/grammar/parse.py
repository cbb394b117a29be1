"""Parse a writer's proposed file into the pieces the domain decider works on.

The format contract is normalised and set aside first; pointer lines of this file's archived
entries are recognised ("carved") so an archived entry keeps its slot through a rewrite.
"""

from __future__ import annotations

import functools

from orbital.grammar.durable import (
    MARKERS,
    normalized_title,
    parse_title_line,
    renumber,
    slug,
    split_entries,
    strip_marker,
)
from orbital.grammar.memory_files import ensure_format_header, strip_format_header
from orbital.grammar.model import Carved, FileState, ParsedDoc, ParsedEntry, Piece
from orbital.grammar.pointers import pointer_ids, without_id_comments
from orbital.grammar.render import render_pointer_slot
from orbital.grammar.state_blocks import Block, match_key, parse_blocks, segments


def proposed_body(text: str, key: str) -> str:
    """The proposed text without its (normalised) line-1 format contract."""
    return strip_format_header(ensure_format_header(text, key))


@functools.lru_cache(maxsize=4096)
def parse_durable_entry(chunk: str, key: str, number: int | None = None) -> ParsedEntry:
    """A DECISIONS/LESSONS entry (LESSONS renumbered to ``number`` when given). Kept per
    chunk: a whole-file write sends back every entry it leaves unchanged, and the state's
    own entries are parsed again for each write."""
    first, newline, rest = chunk.partition("\n")
    title, fields = parse_title_line(first)
    if key == "lessons" and number is not None:
        title = renumber(title, number)
    bare = strip_marker(title, key)
    normalized = normalized_title(title, key)
    return ParsedEntry(
        text=title + newline + rest,
        fields=fields,
        match=normalized,
        base_id=slug(normalized),
        shape=(bare if key == "lessons" else title) + newline + rest,
        title=bare,
        body=rest.strip(),
    )


def parse_state_block(block: Block) -> ParsedEntry:
    clean = block.clean
    return ParsedEntry(text=clean, fields=block.fields, match=block.match_key, shape=clean)


def parse_previous(state: FileState) -> dict[str, ParsedEntry]:
    """The live entries of ``state`` parsed by the same grammar as a proposed write."""
    out: dict[str, ParsedEntry] = {}
    for entry_id in state.live_ids():
        text = state.entries[entry_id].text
        if state.key == "state":
            blocks = parse_blocks(text)
            out[entry_id] = (
                parse_state_block(blocks[0])
                if blocks
                else ParsedEntry(text=text, fields={}, match=match_key(text), shape=text)
            )
        else:
            out[entry_id] = parse_durable_entry(text, state.key)
    return out


class _Carver:
    """Splits text at pointer lines of archived entries (each entry's pointer carved once); a
    group's line is known by its ids, or by its visible text when its id comment was stripped."""

    def __init__(self, state: FileState) -> None:
        self.expected = {
            e.entry_id: render_pointer_slot(e, state.key)
            for e in state.entries.values()
            if e.status in ("archived", "merged") and e.pointer and not e.pointer_dropped
        }
        self.named = {e: pointer_ids(state.entries[e].pointer) for e in self.expected}
        #: A group line without its id comment -> its head.
        self.stripped = {
            without_id_comments(p).partition("\n")[0]: e
            for e, p in self.expected.items()
            if without_id_comments(p) != p
        }
        #: Archived entries shown by another entry's group line: carved right after it.
        self.members = {
            e.entry_id
            for e in state.entries.values()
            if e.status == "archived" and not e.pointer and not e.pointer_dropped
        }

    def _hit(self, line: str) -> tuple[str, str] | None:
        """The entry whose pointer ``line`` is, and its rendered slot as this text may show it."""
        hit = next((i for i in pointer_ids(line) if i in self.expected), None)
        if hit is not None:
            return hit, self.expected[hit]
        hit = self.stripped.get(line.rstrip("\r\n"))
        if hit is not None and hit in self.expected:
            return hit, without_id_comments(self.expected[hit])
        return None

    def carve(self, chunk: str) -> list[Piece]:
        if not self.expected:  # no pointer left to find: the chunk is text
            return [chunk] if chunk else []
        out: list[Piece] = []
        buffer, pos = "", 0
        while pos < len(chunk):
            newline = chunk.find("\n", pos)
            end = len(chunk) if newline < 0 else newline + 1
            line = chunk[pos:end]
            found = self._hit(line)
            if found is None:
                buffer += line
                pos = end
                continue
            hit, expected = found
            del self.expected[hit]
            if buffer:
                out.append(buffer)
                buffer = ""
            out.append(Carved(hit))
            for member in self.named[hit]:
                if member in self.members:
                    self.members.discard(member)
                    out.append(Carved(member))
            pos += len(expected) if chunk.startswith(expected, pos) and expected else len(line)
        if buffer:
            out.append(buffer)
        return out


def parse_proposed(state: FileState, text: str) -> ParsedDoc:
    """The pieces of a proposed full text of ``state.key`` (contract line normalised away)."""
    key = state.key
    body = proposed_body(text, key)
    previous = parse_previous(state)
    carver = _Carver(state)
    if key == "index":
        return ParsedDoc(pieces=(body,) if body else (), previous=previous)
    if key == "state":
        return ParsedDoc(pieces=tuple(_state_pieces(body, carver)), previous=previous)
    split = split_entries(body, key)
    if split is None:
        if not body.strip():
            return ParsedDoc(pieces=(body,) if body else (), previous=previous)
        warning = (
            f"{key}: could not parse into entries (expected '{MARKERS[key]}' markers) "
            "— wrote as-is, metadata/caps not applied."
        )
        return ParsedDoc(stored_raw=body, previous=previous, warnings=(warning,))
    preamble, chunks = split
    pieces: list[Piece] = carver.carve(preamble)
    for number, chunk in enumerate(chunks, start=1):
        parts = carver.carve(chunk)
        head = parts[0]
        assert isinstance(head, str), "an entry chunk starts with its marker line"
        pieces.append(parse_durable_entry(head, key, number))
        pieces.extend(parts[1:])
    return ParsedDoc(pieces=tuple(pieces), previous=previous)


def _state_pieces(body: str, carver: _Carver) -> list[Piece]:
    pieces: list[Piece] = []
    for segment in segments(body):
        if isinstance(segment, str):
            pieces.extend(carver.carve(segment))
        else:
            pieces.append(parse_state_block(segment))
    return pieces
