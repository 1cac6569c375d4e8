"""Reading the message list of a JSON document a piece at a time, for a first screen at once.

A transcript saved as one JSON document (``[...]`` of messages, or a request body whose
``messages``, ``input`` or ``contents`` holds them) has to be read whole before a parser says a
word, and a large one takes seconds. :class:`ListReader` reads its list instead in pieces of
about the size asked: a piece is the bytes from the start of an element up to a place where an
element may end (a ``}``, a comma, then the ``{"`` of the next element), and it counts only once
the piece, put in brackets, parses as a JSON array: a cut inside a string, or inside an element,
leaves brackets or a string unclosed, and does not parse. So each piece is exactly a run of whole
elements, and each element is parsed once, by the same reader a whole document goes through
(:mod:`suture.codec`: msgspec, every integer exact, a lone surrogate escape kept), so the values are
those of reading the document whole. Why not a streaming parser such as ijson: its values are its
own (floats as ``Decimal``, its own handling of escapes), and they would have to be made equal to
the codec's again; finding the cuts and letting the codec parse keeps one reader of JSON.

The members of a body before and after the list are parsed the same way (``{`` + what comes before
the list's key, ``}`` closing it, is an object only when the key is a member of the body itself),
and :meth:`ListReader.document` puts the whole value together. Anything this reader cannot vouch
for (no list where one is looked for, a member named twice, a list of values that are not
objects, bytes after the document, a cut not found in :data:`ATTEMPTS` tries) raises
:class:`NotPieces`: the caller reads the document whole, which gives the value, or the error, a
whole read always gives.

No Textual here: the live reader (:mod:`suture.tail`) uses it for its first read.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from suture.codec import loads
from suture.io import Document, _content_end

__all__ = ["ATTEMPTS", "ListReader", "NotPieces"]

ATTEMPTS = 64
"""Places where an element may end that are tried for one piece before another way is tried."""
_MAX_HEADS = 64  # ways an element starts that are remembered

_HEAD_LIMIT = 16 << 20  # how far into a body its list's key is looked for
_LIST_KEY = re.compile(rb'"(messages|input|contents)"[ \t\n\r]*:[ \t\n\r]*\[')
# The end of an element of the list and the start of the next one (an object with a key, or {}).
_BETWEEN = re.compile(rb'\}[ \t\n\r]*,[ \t\n\r]*\{[ \t\n\r]*["}]')
_LAST = re.compile(rb"\}[ \t\n\r]*\]")
_SPACE = re.compile(rb"[ \t\n\r]*")
_NON_SPACE = re.compile(rb"[^ \t\n\r]")


class NotPieces(Exception):
    """The document cannot be read in pieces here: read it whole."""


class ListReader:
    """The elements of a JSON document's message list, a piece at a time.

    ``data`` is the document's bytes (an ``mmap`` does: only the pieces are copied). After
    :meth:`start`, each :meth:`read` returns the next whole elements (about ``size`` bytes of
    them, at least one) until ``done``; ``position`` is how many bytes are read.
    """

    def __init__(self, data: Any) -> None:
        self.data = data
        self.position = 0
        self.done = False
        self.key: str | None = None
        """The body's member that holds the list (``None``: the document is the list)."""
        self.head: dict[str, Any] = {}
        self._end = 0
        self._heads: set[bytes] = set()
        self._pattern: re.Pattern[bytes] | None = None

    def start(self) -> None:
        """Find the list (raises :class:`NotPieces` when there is none to read in pieces)."""
        data = self.data
        first = _NON_SPACE.search(data)
        if first is None:
            raise NotPieces("blank")
        at = first.start()
        opening = data[at : at + 1]
        if opening == b"[":
            begin = at
        elif opening == b"{":
            begin = self._find_list(at)
        else:
            raise NotPieces("not a list or an object")
        self.position = _SPACE.match(data, begin + 1).end()  # type: ignore[union-attr]  # always matches
        if data[self.position : self.position + 1] == b"]":
            self.done = True
            self._end = self.position + 1
        elif data[self.position : self.position + 1] != b"{":
            raise NotPieces("a list of values that are not objects")

    def _find_list(self, at: int) -> int:
        """The offset of the ``[`` of the body's message list; its members before it read."""
        data = self.data
        for found in _LIST_KEY.finditer(data, at, min(len(data), at + _HEAD_LIMIT)):
            head = data[at : found.start()].rstrip(b" \t\n\r")
            if head.endswith(b","):
                head = head[:-1]
            try:
                members = loads(head + b"}")
            except orjson.JSONDecodeError:
                continue  # the key is inside a string or a member's value
            if not isinstance(members, dict):
                continue
            self.head = members
            self.key = found.group(1).decode()
            if self.key in members:
                raise NotPieces("a member named twice")
            return found.end() - 1
        raise NotPieces("no message list")

    def read(self, size: int) -> list[Any]:
        """The next whole elements: about ``size`` bytes of them, at least one (none when done)."""
        if self.done:
            return []
        start = self.position
        look = start + max(1, size)
        heads = self._heads_pattern()
        found = None
        # Where an element like those read so far starts, then where any object starts, then
        # the list's end: the first place from ``look`` on, then (the list ends within ``size``)
        # the last before it, then the list's end.
        tries = ((heads, look, False), (_BETWEEN, look, False), (heads, look, True), (_BETWEEN, look, True))
        for pattern, at, before in (*tries, (_LAST, start + 1, False)):
            if pattern is not None:
                found = self._cut(start, at, pattern, before=before)
                if found is not None:
                    break
        if found is None:
            raise NotPieces("no place where an element ends")
        values, end, after = found
        if pattern is _LAST:
            self.done = True
            self._end = self.position = after
        else:
            self.position = _next_element(self.data, end)
        for value in values:
            self._learn(value)
        return values

    def _cut(
        self, start: int, look: int, pattern: re.Pattern[bytes], *, before: bool = False
    ) -> tuple[list[Any], int, int] | None:
        """The elements from ``start`` up to the first place at or after ``look`` that ``pattern``
        finds (``before``: the last place before ``look``), its first byte the ``}`` that ends an
        element: the elements, the offset after that ``}`` and the offset after the match;
        ``None`` when no place tried parses."""
        data = self.data
        if before:
            places: Any = reversed(list(pattern.finditer(data, start + 1, look)))
        else:
            places = iter(lambda: pattern.search(data, look), None)
        for _, cut in zip(range(ATTEMPTS), places, strict=False):
            end = cut.start() + 1
            try:
                values = loads(b"[" + data[start:end] + b"]")
            except orjson.JSONDecodeError:
                look = end
                continue
            if not isinstance(values, list) or not values:
                raise NotPieces("not elements")
            return values, end, cut.end()
        return None

    def _learn(self, value: Any) -> None:
        """Remember how an element starts (its first member's name, and its value when a short
        string), so the next cuts are looked for where an element of the list starts, not one of
        the objects inside an element (a content part)."""
        if not isinstance(value, dict) or not value or len(self._heads) >= _MAX_HEADS:
            return
        key, first = next(iter(value.items()))
        head = re.escape(orjson.dumps(key)) + rb"[ \t\n\r]*:[ \t\n\r]*"
        if isinstance(first, str) and len(first) <= 40:
            head += re.escape(orjson.dumps(first))
        if head not in self._heads:
            self._heads.add(head)
            self._pattern = None

    def _heads_pattern(self) -> re.Pattern[bytes] | None:
        if not self._heads:
            return None
        if self._pattern is None:
            heads = b"|".join(sorted(self._heads))
            self._pattern = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*\{[ \t\n\r]*(?:" + heads + rb")")
        return self._pattern

    def document(self, elements: list[Any], *, size: int) -> Document:
        """The whole document, its list being ``elements`` (every element read): the value a
        whole read gives. Call once :attr:`done`."""
        if not self.done:
            raise NotPieces("the list is not read to its end")
        data = self.data
        rest = data[self._end :]
        value: Any
        if self.key is None:
            if rest.strip(b" \t\n\r"):
                raise NotPieces("bytes after the document")
            value = elements
        else:
            rest = rest.lstrip(b" \t\n\r")
            tail: dict[str, Any] = {}
            if rest.startswith(b","):
                try:
                    found = loads(b"{" + rest[1:])
                except orjson.JSONDecodeError:
                    raise NotPieces("the body does not end as an object") from None
                if not isinstance(found, dict):
                    raise NotPieces("the body does not end as an object")
                tail = found
            elif rest.rstrip(b" \t\n\r") != b"}":
                raise NotPieces("the body does not end as an object")
            if self.key in tail or tail.keys() & self.head.keys():
                raise NotPieces("a member named twice")
            value = {**self.head, self.key: elements, **tail}
        first = _NON_SPACE.search(data)
        assert first is not None
        at = first.start()
        # As parse_document says it: a newline in the first 4 KB of what is not blank.
        pretty = b"\n" in data[at : min(at + 4096, _content_end(data))]
        return Document("json", value=value, pretty=pretty, size=size)

    def partial(self, elements: list[Any], *, size: int) -> Document:
        """A document holding the elements read so far (and the body's members before the list):
        what the formats read while the rest is still being read."""
        value: Any = list(elements) if self.key is None else {**self.head, self.key: list(elements)}
        return Document("json", value=value, size=size)


def _next_element(data: Any, end: int) -> int:
    """The offset of the ``{`` that starts the element after the one ending at ``end``."""
    at = _SPACE.match(data, end).end()  # type: ignore[union-attr]  # always matches
    at = _SPACE.match(data, at + 1).end()  # type: ignore[union-attr]  # past the comma
    return int(at)
