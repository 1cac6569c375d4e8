"""The rows the app draws, worked out without Textual.

One row per aligned pair: an output message and the input message it came from sit on the same
row (through ``Repair.origin``); a dropped placeholder gets a row with nothing on the Repaired
side, a synthetic result one with nothing on the Original side. Rows follow the output order, so
a moved result shows as an Original index out of sequence. A dropped message sits right after
the row of the input message before it.

Everything here treats transcript text as data: names and ids go through :func:`suture.show.line`,
text through :func:`suture.show.prose`, so nothing reaches the terminal as an escape sequence, a
control character or a bidirectional override.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from suture import show
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart, Transcript
from suture.repair import Change, ChangeKind, Repair

__all__ = [
    "KIND_BADGES",
    "KIND_ORDER",
    "KIND_SHORT",
    "KIND_WORDS",
    "Piece",
    "RowModel",
    "human_size",
]

# What a change is called on screen, and its badge in the middle column.
KIND_WORDS: dict[ChangeKind, str] = {
    ChangeKind.MOVED_RESULT: "moved result",
    ChangeKind.SYNTHETIC_INTERRUPT: "synthetic interrupt",
    ChangeKind.ORPHAN_NOTE: "orphan note",
    ChangeKind.RENAMED_ID: "renamed id",
    ChangeKind.DROPPED_PLACEHOLDER: "dropped placeholder",
}
# Kinds in the order the app lists them, and the short words the status line uses.
KIND_ORDER: tuple[ChangeKind, ...] = (
    ChangeKind.MOVED_RESULT,
    ChangeKind.SYNTHETIC_INTERRUPT,
    ChangeKind.ORPHAN_NOTE,
    ChangeKind.RENAMED_ID,
    ChangeKind.DROPPED_PLACEHOLDER,
)
KIND_SHORT: dict[ChangeKind, tuple[str, str]] = {
    ChangeKind.MOVED_RESULT: ("moved", "moved"),
    ChangeKind.SYNTHETIC_INTERRUPT: ("interrupted", "interrupted"),
    ChangeKind.ORPHAN_NOTE: ("note", "notes"),
    ChangeKind.RENAMED_ID: ("renamed", "renamed"),
    ChangeKind.DROPPED_PLACEHOLDER: ("dropped", "dropped"),
}
KIND_BADGES: dict[ChangeKind, str] = {
    ChangeKind.MOVED_RESULT: "↕ moved",
    ChangeKind.SYNTHETIC_INTERRUPT: "+ interrupt",
    ChangeKind.ORPHAN_NOTE: "✎ note",
    ChangeKind.RENAMED_ID: "≠ renamed",
    ChangeKind.DROPPED_PLACEHOLDER: "✕ dropped",
}


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of a row's summary and what it is: ``text``, ``id``, ``name`` or ``muted``."""

    text: str
    kind: str = "text"


def short_id(value: str) -> str:
    """A long id cut to its head and tail (``toolu_01Wj…dKQ``): rows have room for the text too.
    The detail view, the info line, copying and search use the whole id."""
    value = show.line(value)
    return value if len(value) <= 16 else f"{value[:9]}…{value[-4:]}"


def summarize(message: Message, limit: int = 400) -> list[Piece]:
    """A one-line summary: the text, then calls (name and id) or the result's id."""
    pieces: list[Piece] = []
    if message.role == "tool":
        pieces.append(Piece("← ", "muted"))
        pieces.append(Piece(short_id(message.tool_call_id) or "(no id)", "id"))
        if message.name:
            pieces.append(Piece(" " + show.line(message.name), "name"))
        pieces.append(Piece(": ", "muted"))
    content = message.content
    text = ""
    extras: list[str] = []
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if isinstance(part, TextPart):
                texts.append(part.text)
            elif isinstance(part, ThinkingPart):
                extras.append("thinking")
            elif isinstance(part, ImagePart):
                extras.append(f"image {human_size(part.size)}" if part.size else "image")
            elif isinstance(part, OtherPart):
                extras.append(part.kind)
        text = " ".join(texts)
    for extra in extras:
        pieces.append(Piece(f"[{show.line(extra)}] ", "muted"))
    if text:
        pieces.append(Piece(show.prose(text[:limit])))
    if message.role == "assistant" and message.tool_calls:
        if text or extras:
            pieces.append(Piece("  "))
        pieces.append(Piece("→ ", "muted"))
        for k, call in enumerate(message.tool_calls):
            if k:
                pieces.append(Piece(", ", "muted"))
            pieces.append(Piece(show.line(call.name or "?"), "name"))
            pieces.append(Piece(" " + (short_id(call.id) or "(no id)"), "id"))
    if not pieces:
        pieces.append(Piece("(empty)", "muted"))
    return pieces


def search_text(message: Message) -> str:
    """What search looks at: the message's text (a result's output too), its calls' names, ids
    and arguments (``pytest`` finds a Bash call that runs it), its result's id and tool name."""
    bits = [text_of_all(message)]
    if message.tool_call_id:
        bits.append(message.tool_call_id)
    if message.name:
        bits.append(message.name)
    for call in message.tool_calls:
        bits.append(call.id)
        if call.name:
            bits.append(call.name)
        arguments = arguments_text(call.arguments)
        if arguments:
            bits.append(arguments)
    return "\n".join(bits).casefold()


def arguments_text(arguments: Any) -> str:
    """A call's arguments as one searchable text: a JSON string as it is, a value as JSON."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    try:
        return orjson.dumps(arguments, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(arguments)


def text_of_all(message: Message) -> str:
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(p.text for p in content if isinstance(p, TextPart | ThinkingPart))


class RowModel:
    """The aligned rows of a transcript and its repair, with what each row needs to be drawn."""

    def __init__(self, transcript: Transcript, result: Repair) -> None:
        self.transcript = transcript
        self.repair = result
        inputs = transcript.messages
        n_in = len(inputs)
        dropped = {c.input_index for c in result.changes if c.output_index is None}

        left: list[int | None] = []
        right: list[int | None] = []
        # Each dropped input goes after the row of the nearest input before it that has a row.
        pending = sorted(dropped)
        p = 0
        while p < len(pending) and pending[p] == p:
            left.append(pending[p])
            right.append(None)
            p += 1
        after: dict[int, list[int]] = {}
        for d in pending[p:]:
            k = d - 1
            while k in dropped:
                k -= 1
            after.setdefault(k, []).append(d)
        for j, i in enumerate(result.origin):
            left.append(i)
            right.append(j)
            if i is not None and i in after:
                for d in after.pop(i):
                    left.append(d)
                    right.append(None)
        for rest in after.values():  # only when origin is not a permutation of the inputs
            for d in rest:
                left.append(d)
                right.append(None)
        self.left = left
        self.right = right

        self.row_of_input: list[int] = [0] * n_in
        self.row_of_output: list[int] = [0] * len(result.messages)
        for row, (a, b) in enumerate(zip(left, right, strict=True)):
            if a is not None:
                self.row_of_input[a] = row
            if b is not None:
                self.row_of_output[b] = row

        self.in_span: list[int | None] = [None] * n_in
        self.out_span: list[int | None] = [None] * len(result.messages)
        for span in result.spans:
            for i in range(span.input_start, span.input_stop):
                self.in_span[i] = span.index
            for j in range(span.output_start, span.output_stop):
                self.out_span[j] = span.index

        self.change_rows: list[int] = []
        self.row_changes: dict[int, list[Change]] = {}
        self.first_change: dict[int, int] = {}
        for number, change in enumerate(result.changes):
            if change.output_index is not None:
                row = self.row_of_output[change.output_index]
            else:
                row = self.row_of_input[change.input_index]
            self.change_rows.append(row)
            self.row_changes.setdefault(row, []).append(change)
            self.first_change.setdefault(row, number)
        self.changed_rows = sorted(self.row_changes)
        self._summaries: dict[tuple[int, int], list[Piece]] = {}
        self._haystack: list[str] | None = None

    def __len__(self) -> int:
        return len(self.left)

    def original(self, row: int) -> Message | None:
        i = self.left[row]
        return None if i is None else self.transcript.messages[i]

    def repaired(self, row: int) -> Message | None:
        j = self.right[row]
        return None if j is None else self.repair.messages[j]

    def summary(self, side: int, row: int) -> list[Piece]:
        """Pieces of the summary of the Original (side 0) or Repaired (side 1) message of a row."""
        key = (side, row)
        found = self._summaries.get(key)
        if found is None:
            message = self.original(row) if side == 0 else self.repaired(row)
            # A message repair did not touch is the same object on both sides: summarize it once.
            other = self._summaries.get((1 - side, row))
            if other is not None and message is (self.repaired(row) if side == 0 else self.original(row)):
                found = other
            else:
                found = summarize(message) if message is not None else []
            if len(self._summaries) > 4096:
                self._summaries.clear()
            self._summaries[key] = found
        return found

    def span_of(self, side: int, row: int) -> int | None:
        index = self.left[row] if side == 0 else self.right[row]
        if index is None:
            return None
        return (self.in_span if side == 0 else self.out_span)[index]

    def counts(self) -> dict[ChangeKind, int]:
        return self.repair.counts()

    def search(self, query: str) -> list[int]:
        """Rows whose Original or Repaired message holds ``query`` (case-insensitive) in its text,
        call names, call ids or result id."""
        needle = query.casefold()
        if not needle:
            return []
        if self._haystack is None:
            originals = [search_text(m) for m in self.transcript.messages]
            repaired = [search_text(m) for m in self.repair.messages]
            self._haystack = [
                (originals[i] if i is not None else "") + "\x00" + (repaired[j] if j is not None else "")
                for i, j in zip(self.left, self.right, strict=True)
            ]
        return [row for row, hay in enumerate(self._haystack) if needle in hay]

    def next_changed(self, row: int, step: int) -> int | None:
        """The next row with a change after ``row`` (``step`` 1) or before it (``step`` -1)."""
        return _next_in(self.changed_rows, row, step)

    def rows_with_changes(self) -> Iterator[tuple[int, Change]]:
        yield from zip(self.change_rows, self.repair.changes, strict=True)


def _next_in(rows: list[int], row: int, step: int) -> int | None:
    import bisect

    if not rows:
        return None
    if step > 0:
        k = bisect.bisect_right(rows, row)
        return rows[k] if k < len(rows) else None
    k = bisect.bisect_left(rows, row) - 1
    return rows[k] if k >= 0 else None
