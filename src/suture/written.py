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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson

from suture.model import Message, Source

__all__ = ["Written", "document_lines", "lines_of", "written"]


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
_BETWEEN = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]|\\.)*+")*+', re.DOTALL)
"""What lies between two brackets of a JSON value: anything but a bracket, strings whole (a
bracket in a string is text). One match of the regular-expression engine, not one a string."""


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


def went_on_said(after: int) -> str:
    """That a session went on after an error it recorded (``after``: :func:`went_on`)."""
    from suture.words import count

    return f"the session went on: {count(after, 'message')} after it"


def went_on(messages: Sequence[Message], evidence: Sequence[tuple[Source, str]], text: str) -> int:
    """How many messages a session wrote after the last error it recorded with ``text`` (its
    ``evidence``): 0 where it recorded none such, or wrote nothing after it."""
    line = next((source.line for source, said in reversed(evidence) if said == text), None)
    if line is None:  # (none such, or a JSON document, whose messages carry no line)
        return 0
    return sum(1 for m in messages if m.source is not None and m.source.line is not None and m.source.line > line)


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


def document_lines(data: bytes, sources: Sequence[Source | None]) -> list[tuple[int, int] | None]:
    """The first and last line (1-based) of the JSON document ``data`` that each of ``sources``
    names by its pointer (``$[5]``, ``messages[2].content[1]``): the lines a person sees the
    message's record on, as :func:`written` finds it. ``None`` for a source that has a line of
    its own (a JSONL file's: :func:`lines_of`), none at all, or one the file no longer holds.

    One pass over the document for the pointers into one array, as a loader gives them (in
    order): an element is walked to from the one found before it."""
    walker = _Walker(data)
    spans = [
        walker.span(source.pointer) if source is not None and source.line is None and source.pointer else None
        for source in sources
    ]
    # Each place's line, counted from the place before it.
    places = sorted({at for span in spans if span is not None for at in (span[0], max(span[0], span[1] - 1))})
    line_at: dict[int, int] = {}
    line, last = 1, 0
    for at in places:
        line += data.count(b"\n", last, at)
        line_at[at] = line
        last = at
    return [(line_at[span[0]], line_at[max(span[0], span[1] - 1)]) if span is not None else None for span in spans]


class _Walker:
    """Finds the values pointers name in one JSON document, each array's elements walked to
    from the last one found in it (not from its start again)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.reached: dict[int, tuple[int, int]] = {}
        """For the array starting at each offset: the last element found in it (index, start)."""
        self.ends: dict[int, int] = {}
        """Where the values found so far end, by where they start (a value's end is found when
        it is named, and again when the walk to the next element skips it)."""

    def span(self, pointer: str) -> tuple[int, int] | None:
        return _at_pointer(self.data, pointer, self.element, self.end)

    def element(self, data: bytes, at: int, index: int) -> int:
        known = self.reached.get(at)
        if known is not None and known[0] <= index:
            start = _element(data, at, index - known[0], known[1], self.end)
        else:
            start = _element(data, at, index, end=self.end)
        self.reached[at] = (index, start)
        return start

    def end(self, data: bytes, at: int) -> int:
        found = self.ends.get(at)
        if found is None:
            found = self.ends[at] = _end(data, at)
        return found


def _at_pointer(
    data: bytes,
    pointer: str,
    element: Callable[[bytes, int, int], int] | None = None,
    end_of: Callable[[bytes, int], int] | None = None,
) -> tuple[int, int] | None:
    """Start and end of the value ``pointer`` names in the JSON document ``data`` (``element``
    finds an array's element and ``end_of`` a value's end: :func:`_element` and :func:`_end`, or
    a walker's, which remember what they found)."""
    element = element or _element
    end_of = end_of or _end
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
                start = element(data, at, int(first))
                if last:  # a range of elements: from the first's start to the last's end
                    last_start = element(data, at, int(last))
                    at, end = start, end_of(data, last_start)
                else:
                    at, end = start, None
        return at, end if end is not None else end_of(data, at)
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
            i = _BETWEEN.match(data, i).end()  # type: ignore[union-attr]
            ch = data[i : i + 1]
            if not ch:
                raise ValueError("unterminated value")
            if ch == b'"':
                raise ValueError("unterminated string")
            depth += 1 if ch in (b"[", b"{") else -1
            i += 1
            if depth == 0:
                return i
    m = _SCALAR.match(data, at)
    if m is None:
        raise ValueError("no value")
    return m.end()


def _skip(data: bytes, at: int) -> int:
    return _SPACE.match(data, at).end()  # type: ignore[union-attr]


def _element(
    data: bytes, at: int, index: int, start: int | None = None, end: Callable[[bytes, int], int] = _end
) -> int:
    """Where the element ``index`` of the array at ``at`` starts; counted from ``start``, the
    start of an element of it, where given."""
    if data[at : at + 1] != b"[":
        raise ValueError("not an array")
    i = _skip(data, at + 1) if start is None else start
    for _ in range(index):
        if data[i : i + 1] == b"]":
            raise IndexError(index)
        i = _skip(data, end(data, i))
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
