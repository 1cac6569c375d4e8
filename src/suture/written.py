"""A message's record exactly as the file holds it: its line(s), or its span of a JSON document.

Every loader says where a message came from (:class:`suture.model.Source`): a line of a JSONL
file (with the lines merged into it, for a Claude Code response written a block a line), or a
path into a JSON document (``$[3]``, ``messages[2].content[1]``, ``contents[4].parts[0]``,
``input[2..4]``). :func:`written` finds those bytes in the file's bytes, untouched: what a person
reviewing a repair compares the normalised message with. It reads no file and imports nothing
from the app. Walking to the 100,000th element of a JSON array skips the elements before it
without building them (a regular-expression scan, well under a second for 100 MB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from suture.model import Source

__all__ = ["Written", "lines_of", "written"]


@dataclass(frozen=True, slots=True)
class Written:
    """Bytes of the file and where they are: ``line`` (1-based, where the bytes start) and the
    ``what`` a person reads (``line 760``, ``$[5]``)."""

    what: str
    line: int
    data: bytes


_MERGED = re.compile(r"^merged with lines? ([\d, ]+)$")
_SEGMENT = re.compile(r"([^.\[\]]*)((?:\[\d+(?:\.\.\d+)?\])*)")
_INDEX = re.compile(r"\[(\d+)(?:\.\.(\d+))?\]")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SPACE = re.compile(rb"[ \t\r\n]*")
_SCALAR = re.compile(rb"[^,\]}\s]+")
_STRUCTURE = re.compile(rb'["\[\]{}]')


def written(data: bytes, source: Source | None) -> list[Written]:
    """The records of the file ``data`` that the message from ``source`` was read from, as
    written: one line, the lines merged into one message, or the span of a JSON document a
    pointer names. Empty where the file no longer holds them (it changed since), or where
    ``source`` says nothing to find them by."""
    if source is None:
        return []
    if source.line is not None:
        return [w for n in lines_of(source) if (w := _line(data, n)) is not None]
    if source.pointer:
        found = _at_pointer(data, source.pointer)
        if found is not None:
            start, end = found
            return [Written(source.pointer, data.count(b"\n", 0, start) + 1, data[start:end])]
    return []


def lines_of(source: Source | None) -> list[int]:
    """The lines of a JSONL file a message was read from: its own, then those merged into it
    (a Claude Code response written a block a line). Empty for a JSON document."""
    if source is None or source.line is None:
        return []
    numbers = [source.line]
    merged = _MERGED.match(source.pointer or "")
    if merged:
        numbers += [int(n) for n in merged.group(1).replace(" ", "").split(",") if n]
    return numbers


def _line(data: bytes, number: int) -> Written | None:
    start = 0
    for _ in range(number - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return None
    end = data.find(b"\n", start)
    line = data[start : len(data) if end < 0 else end].removesuffix(b"\r")
    if not line and end < 0:
        return None
    return Written(f"line {number}", number, line)


def _at_pointer(data: bytes, pointer: str) -> tuple[int, int] | None:
    """Start and end of the value ``pointer`` names in the JSON document ``data``."""
    try:
        at = _SPACE.match(data, 0).end()  # type: ignore[union-attr]
        if data.startswith(b"\xef\xbb\xbf", at):
            at += 3
        end = None
        for k, (name, indices) in enumerate(_SEGMENT.findall(pointer)):
            # A bare array is named after the list it stands for (Gemini's ``contents[3]``).
            if name and name != "$" and not (k == 0 and data[at : at + 1] == b"["):
                at = _member(data, at, name)
            for first, last in _INDEX.findall(indices):
                start = _element(data, at, int(first))
                if last:  # a range of elements: from the first's start to the last's end
                    last_start = _element(data, at, int(last))
                    at, end = start, _end(data, last_start)
                else:
                    at, end = start, None
        return at, end if end is not None else _end(data, at)
    except (IndexError, KeyError, ValueError):
        return None


def _end(data: bytes, at: int) -> int:
    """Where the JSON value starting at ``at`` ends."""
    c = data[at : at + 1]
    if c == b'"':
        m = _STRING.match(data, at)
        if m is None:
            raise ValueError("unterminated string")
        return m.end()
    if c in (b"[", b"{"):
        depth = 0
        i = at
        while True:
            m = _STRUCTURE.search(data, i)
            if m is None:
                raise ValueError("unterminated value")
            ch = m.group()
            if ch == b'"':
                s = _STRING.match(data, m.start())
                if s is None:
                    raise ValueError("unterminated string")
                i = s.end()
                continue
            depth += 1 if ch in (b"[", b"{") else -1
            i = m.end()
            if depth == 0:
                return i
    m = _SCALAR.match(data, at)
    if m is None:
        raise ValueError("no value")
    return m.end()


def _skip(data: bytes, at: int) -> int:
    return _SPACE.match(data, at).end()  # type: ignore[union-attr]


def _element(data: bytes, at: int, index: int) -> int:
    if data[at : at + 1] != b"[":
        raise ValueError("not an array")
    i = _skip(data, at + 1)
    for _ in range(index):
        if data[i : i + 1] == b"]":
            raise IndexError(index)
        i = _skip(data, _end(data, i))
        if data[i : i + 1] != b",":
            raise IndexError(index)
        i = _skip(data, i + 1)
    if data[i : i + 1] == b"]":
        raise IndexError(index)
    return i


def _member(data: bytes, at: int, name: str) -> int:
    if data[at : at + 1] != b"{":
        raise ValueError("not an object")
    i = _skip(data, at + 1)
    while data[i : i + 1] == b'"':
        key_end = _end(data, i)
        key = orjson.loads(data[i:key_end])
        i = _skip(data, key_end)
        if data[i : i + 1] != b":":
            raise ValueError("no colon")
        i = _skip(data, i + 1)
        if key == name:
            return i
        i = _skip(data, _end(data, i))
        if data[i : i + 1] != b",":
            break
        i = _skip(data, i + 1)
    raise KeyError(name)
