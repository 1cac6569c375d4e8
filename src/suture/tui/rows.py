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

import bisect
import threading
import weakref
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

import orjson
from msgspec import Struct

from suture import show
from suture.grown import Grown
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart, Transcript
from suture.repair import NO_RESULT, Change, ChangeKind, Repair, Span, reused

__all__ = [
    "Grown",
    "Piece",
    "RowBuilder",
    "RowModel",
    "human_size",
    "next_in",
    "next_round",
    "stable_point",
]


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


class Piece(Struct, frozen=True):
    """A piece of a row's summary and what it is: ``text``, ``id``, ``name`` or ``muted``."""

    text: str
    kind: str = "text"


def short_id(value: str) -> str:
    """A long id cut to its head and tail (``toolu_01Wj…dKQ``): rows have room for the text too.
    The detail view, the info line, copying and search use the whole id."""
    value = show.line(value)
    return value if len(value) <= 16 else f"{value[:9]}{ID_CUT}{value[-4:]}"


_NOT_YET = "has no result yet (its agent may still run it)"
"""What :meth:`RowModel.said_of` says in its place of a call of the file's last turn."""

ID_CUT = "…"
"""What stands for the middle of an id :func:`short_id` cuts."""


def id_head(shown: str) -> str:
    """What a row too narrow for an id :func:`short_id` cut keeps of it: its head and the
    ellipsis that says it is cut (``toolu_01Wj…``), which then ends the row. An id left whole
    stays as it is."""
    at = shown.find(ID_CUT)
    return shown if at < 0 else shown[: at + 1]


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


def _row_text(original: Message | None, repaired: Message | None) -> str:
    """What search looks at in a row: both sides' :func:`search_text`, apart; a message the
    repair left as it is (the same message on both sides, most rows) once."""
    if original is repaired:
        return search_text(original) if original is not None else ""
    return (
        (search_text(original) if original is not None else "")
        + "\x00"
        + (search_text(repaired) if repaired is not None else "")
    )


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
    """The aligned rows of a transcript and its repair, with what each row needs to be drawn.

    ``RowModel(transcript, repair)`` builds every row. :meth:`grown` builds the rows of the next
    state of the same file from this one: the rows before the point where the new repair starts
    to differ are shared (:class:`Grown`), so a reload costs what changed. ``upto`` (an input and
    an output index, a point where the repair starts a span: see :func:`stable_point`) keeps the
    rows before it only: a file still being read shows the part no later message can change.
    ``inputs``, ``outputs`` and ``changes`` are what the rows show (all of the repair's but
    where ``upto`` cut them); ``listed`` is ``changes`` in the order of their rows, as the
    Changes list shows them."""

    def __init__(
        self,
        transcript: Transcript,
        result: Repair,
        *,
        previous: RowModel | None = None,
        stable: tuple[int, int] = (0, 0),
        upto: tuple[int, int] | None = None,
    ) -> None:
        self.transcript = transcript
        self.repair = result
        in_limit, out_limit = upto if upto is not None else (len(transcript.messages), len(result.messages))
        all_changes = result.changes
        n_changes = len(all_changes) if upto is None else bisect.bisect_left(all_changes, in_limit, key=_input_index)
        self.inputs = in_limit
        self.outputs = out_limit
        self.partial = upto is not None
        self.changes = all_changes if n_changes == len(all_changes) else all_changes[:n_changes]

        self.grown_from: tuple[weakref.ref[RowModel], int] | None = (
            (weakref.ref(previous), stable[0]) if previous is not None else None
        )
        """The state this one was grown from (by weak reference), and how many input messages at
        the start are that one's."""
        # Where the rows of ``previous`` still hold: input c_in and output c_out start row r0.
        cut = _cut(previous, result, stable, in_limit, out_limit) if previous is not None else None
        if cut is None or cut[2] == 0:
            previous, cut = None, (0, 0, 0)
        c_in, c_out, r0 = cut
        first_new = bisect.bisect_left(all_changes, c_in, key=_input_index)
        dropped = sorted(c.input_index for c in all_changes[first_new:n_changes] if c.output_index is None)
        left, right = _aligned(result.origin, dropped, c_out, out_limit)
        row_of_input, row_of_output = _rows_of(left, right, r0, (c_in, in_limit), (c_out, out_limit))
        in_span, out_span = _spans_of(result.spans, (c_in, in_limit), (c_out, out_limit))
        self._keep_rows(previous, cut, _NewRows(left, right, row_of_input, row_of_output, in_span, out_span))
        self._place_changes(previous, range(first_new, n_changes), r0)
        self._summaries: dict[tuple[int, int], list[Piece]] = {}
        if previous is not None:
            self._summaries = {k: v for k, v in previous._summaries.items() if k[1] < r0}
        self._stable_rows = r0
        self._hay = _HaySlot(self)
        self._hay_bases = _hay_bases(previous, r0)

    def _keep_rows(self, previous: RowModel | None, cut: tuple[int, int, int], new: _NewRows) -> None:
        """The rows of ``previous`` before the ``cut`` (input, output, row), shared, then ``new``."""
        c_in, c_out, r0 = cut
        if previous is None:
            self.left: Grown[int | None] = Grown(new.left)
            self.right: Grown[int | None] = Grown(new.right)
            self.row_of_input: Grown[int] = Grown(new.row_of_input)
            self.row_of_output: Grown[int] = Grown(new.row_of_output)
            self.in_span: Grown[int | None] = Grown(new.in_span)
            self.out_span: Grown[int | None] = Grown(new.out_span)
        else:
            self.left = previous.left.grown(r0, new.left)
            self.right = previous.right.grown(r0, new.right)
            self.row_of_input = previous.row_of_input.grown(c_in, new.row_of_input)
            self.row_of_output = previous.row_of_output.grown(c_out, new.row_of_output)
            self.in_span = previous.in_span.grown(c_in, new.in_span)
            self.out_span = previous.out_span.grown(c_out, new.out_span)

    def _place_changes(self, previous: RowModel | None, numbers: range, r0: int) -> None:
        """The row of each change: those of ``previous`` before row ``r0``, then the changes
        ``numbers`` of the repair, each on the row of its output message (of its input message,
        for a dropped one); a renamed call's change also on the rows of the results it renamed
        (:meth:`~suture.repair.Repair.renamed_results`).

        ``listed`` is the changes as the Changes list shows them: in the order of their rows, as
        the panes read and ``n`` visits them (a moved result's change where the result now is),
        a row's changes in the repair's order; ``change_rows`` the row of each. The kept changes
        are all on rows before ``r0`` and keep their places: only the new ones are ordered."""
        changed: list[int]
        if previous is None:
            self.listed: Grown[Change] = Grown()
            self.change_rows: Grown[int] = Grown()
            self.row_changes: dict[int, list[Change]] = {}
            self.first_change: dict[int, int] = {}
            changed = []
        else:
            self.listed = previous.listed
            self.change_rows = previous.change_rows
            self.row_changes = {r: c for r, c in previous.row_changes.items() if r < r0}
            self.first_change = {r: n for r, n in previous.first_change.items() if r < r0}
            changed = previous.changed_rows[: bisect.bisect_left(previous.changed_rows, r0)]
        all_changes = self.repair.changes
        placed: list[tuple[int, int]] = []
        renamed: list[tuple[int, int]] = []
        for number in numbers:
            change = all_changes[number]
            if change.output_index is not None:
                row = self.row_of_output[change.output_index]
            else:
                row = self.row_of_input[change.input_index]
            placed.append((row, number))
            self.row_changes.setdefault(row, []).append(change)
            # A renamed call's result is sent under the new id too: its row shows the change.
            for j in self.repair.renamed_results(change):
                if j < self.outputs:
                    result_row = self.row_of_output[j]
                    self.row_changes.setdefault(result_row, []).append(change)
                    renamed.append((result_row, number))
        placed.sort(key=itemgetter(0))  # (stable: a row's changes stay in the repair's order)
        kept = numbers.start
        # The list item of a row: its own first change; a renamed result's row without one of its
        # own, its call's rename.
        for at, (row, _) in enumerate(placed, kept):
            self.first_change.setdefault(row, at)
        if renamed:
            renames = {number for _, number in renamed}
            position = {number: at for at, (_, number) in enumerate(placed, kept) if number in renames}
            for row, number in renamed:
                self.first_change.setdefault(row, position[number])
        self.listed = self.listed.grown(kept, [all_changes[number] for _, number in placed])
        self.change_rows = self.change_rows.grown(kept, [row for row, _ in placed])
        changed.extend(sorted(r for r in self.row_changes if r >= r0))
        self.changed_rows: list[int] = changed

    def grown(
        self,
        transcript: Transcript,
        result: Repair,
        stable: tuple[int, int],
        upto: tuple[int, int] | None = None,
    ) -> RowModel:
        """The rows of the file's next state (``transcript``, ``result``), whose first
        ``stable`` (input, output) messages are those of this one's: built from the point where
        the repair starts to differ, sharing the rows before it."""
        return RowModel(transcript, result, previous=self, stable=stable, upto=upto)

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

    def reordered(self) -> int:
        """How many turns the export writes in another order than the file holds them, though
        the repair changes nothing there (``suture.formats.reordered_turns``: a Responses or Codex
        turn written with its outputs right after its calls). 0 while the file is still read."""
        if self.partial:
            return 0
        found = getattr(self, "_reordered", None)
        if found is None:
            from suture.formats import reordered_turns

            found = self._reordered = reordered_turns(self.repair.messages, self.transcript)
        return found

    def said_of(self, change: Change) -> str:
        """What the lists and the line under the panes say of ``change``: its summary, but for a
        call of a session log's last turn with nothing after it but results, that it has none yet. The
        repair answers it as interrupted, as resuming now would need; an agent still running it
        (the session written as it works) writes its result next."""
        summary = change.summary
        if change.kind is not ChangeKind.SYNTHETIC_INTERRUPT or self.partial or NO_RESULT not in summary:
            return summary
        from suture.formats import session_log

        if not session_log(self.transcript.format):  # (a request file: no agent writes it as it works)
            return summary
        messages = self.transcript.messages  # (looked at up to the first message that is no result)
        if any(messages[i].role != "tool" for i in range(change.input_index + 1, len(messages))):
            return summary
        return summary.replace(NO_RESULT, _NOT_YET, 1)

    def counts(self) -> dict[ChangeKind, int]:
        """How many changes of each kind the rows show, every kind present."""
        counts = dict.fromkeys(ChangeKind, 0)
        for change in self.changes:
            counts[change.kind] += 1
        return counts

    def search(self, query: str) -> list[int]:
        """Rows whose Original or Repaired message holds ``query`` (case-insensitive) in its text,
        call names, call ids or result id. A state grown from one searched for the same text
        (a file still loading, or appended to) keeps its matches in the rows they share and
        searches only the rows after them."""
        needle = query.casefold()
        if not needle:
            return []
        hay = self._hay.hay
        start, kept = 0, []
        if hay is None:
            base, start = next(((slot.hay, rows) for slot, rows in self._hay_bases if slot.hay is not None), (None, 0))
            originals, repaired = self.transcript.messages, self.repair.messages
            made = [
                _row_text(originals[i] if i is not None else None, repaired[j] if j is not None else None)
                for i, j in zip(self.left[start:], self.right[start:], strict=True)
            ]
            hay = _Hay(base.text.grown(start, made) if base is not None else Grown(made))
            self._hay.hay, self._hay_bases = hay, ()
            last = base.last if base is not None else None
            if last is not None and last[0] == needle:
                kept = last[1][: bisect.bisect_left(last[1], start)]
            else:
                start = 0
        elif hay.last is not None and hay.last[0] == needle:
            return list(hay.last[1])
        text = hay.text
        found = kept + [row for row, said in enumerate(text[start:], start) if needle in said]
        hay.last = (needle, found)
        return list(found)


_HAY_BASES = 32
"""How many earlier states a state's search text may be grown from (the nearest whose text is
built by the time it is searched). A state still queued to be shown is alive, so while a search
runs under load as many pieces as this may be read before the state being searched drops out of
reach (the next state's search would then search all of its rows again)."""


class _Hay:
    """The search text of a state's rows, and the last search of it: the text searched for and
    the rows that hold it (a state grown from this one keeps them where its rows are the same)."""

    __slots__ = ("last", "text")

    def __init__(self, text: Grown[str]) -> None:
        self.text = text
        self.last: tuple[str, list[int]] | None = None


class _HaySlot:
    """Where a state's search text is put once it is built. The states grown from it hold the
    slot, not the state: a state searched and then let go (the app shows a newer one) leaves its
    text to them. A slot whose state is gone before it was searched is of no use, and is dropped."""

    __slots__ = ("hay", "owner")

    def __init__(self, owner: RowModel) -> None:
        self.hay: _Hay | None = None
        self.owner = weakref.ref(owner)

    def of_use(self) -> bool:
        return self.hay is not None or self.owner() is not None


def _hay_bases(previous: RowModel | None, slot_rows: int) -> tuple[tuple[_HaySlot, int], ...]:
    """Where the search text of a state grown from ``previous`` (its first ``slot_rows`` rows
    the same) can be grown from, nearest first, each with the rows of it that still hold: the
    previous state's slot, and while that is empty (a search of it may be under way, while a
    large file loads faster than it is searched) the slots the previous state was to grow from,
    up to the nearest one filled."""
    if previous is None:
        return ()
    bases = [(previous._hay, slot_rows)]
    for slot, rows in previous._hay_bases if previous._hay.hay is None else ():
        if len(bases) == _HAY_BASES:
            break
        if slot.of_use():
            bases.append((slot, min(rows, slot_rows)))
            if slot.hay is not None:
                break
    return tuple(bases)


class RowBuilder:
    """Builds the row model of each state of one file, each grown from the one before where
    that one still holds: the states of a first read in pieces (:meth:`partial`), then the
    states a reader reports (:meth:`state`). Safe to call from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: RowModel | None = None
        self._version = 0
        self._loading = False
        self._final_stable = (0, 0)

    def partial(
        self, transcript: Transcript, result: Repair, stable: tuple[int, int], upto: tuple[int, int]
    ) -> RowModel:
        """The rows of a state of a file still being read, up to ``upto``; ``stable``: how many
        input and output messages are those of the state before."""
        with self._lock:
            previous = self._last if self._loading else None
            if previous is not None:
                model = previous.grown(transcript, result, stable, upto)
            else:
                model = RowModel(transcript, result, upto=upto)
            self._last, self._loading = model, True
            return model

    def finished(self, stable: tuple[int, int]) -> None:
        """The file is read whole; the next :meth:`state` is its state, whose first ``stable``
        input and output messages are those of the last partial state."""
        with self._lock:
            self._final_stable = stable

    def state(
        self, transcript: Transcript, result: Repair, *, version: int, appended: bool, stable: tuple[int, int]
    ) -> RowModel:
        """The rows of the reader's state ``version``: grown from the rows of the state before
        when that was ``version - 1`` and ``appended`` (``stable`` as :meth:`partial` says), or
        from the last partial state once the file is read whole; built whole otherwise."""
        with self._lock:
            previous: RowModel | None = None
            if self._loading:
                previous, stable = self._last, self._final_stable
            elif appended and self._last is not None and version == self._version + 1:
                previous = self._last
            model = previous.grown(transcript, result, stable) if previous else RowModel(transcript, result)
            self._last, self._version, self._loading = model, version, False
            return model


def stable_point(result: Repair, messages: Sequence[Message]) -> tuple[int, int]:
    """The input and output index before which no message read after ``messages`` can change the
    rows: where the repair of the last assistant message that is not a placeholder starts
    (docs/contract.md, *Prefix-stable*), or ``(0, 0)`` when there is none."""
    point = reused(result, messages, len(messages))
    return point if point is not None else (0, 0)


def _cut(
    previous: RowModel, result: Repair, stable: tuple[int, int], in_limit: int, out_limit: int
) -> tuple[int, int, int] | None:
    """Where the rows of ``previous`` hold for ``result``: an input index, an output index and
    the row they start (None: nowhere)."""
    s_in, s_out = stable
    if s_out <= 0:
        return None
    if previous.outputs <= s_out and previous.inputs <= s_in:
        c_in, c_out, r0 = previous.inputs, previous.outputs, len(previous)
    else:
        c_out = s_out
        if c_out >= previous.outputs:
            return None
        r0 = previous.row_of_output[c_out]
        c_in_found = previous.left[r0]
        if c_in_found is None:
            return None
        c_in = c_in_found
    if c_in > in_limit or c_out > out_limit or (c_out < len(result.origin) and result.origin[c_out] != c_in):
        return None
    return c_in, c_out, r0


class _NewRows(Struct, frozen=True):
    """The rows a model makes past the ones it shares (input, output, span of each row)."""

    left: list[int | None]
    right: list[int | None]
    row_of_input: list[int]
    row_of_output: list[int]
    in_span: list[int | None]
    out_span: list[int | None]


def _aligned(
    origin: Sequence[int | None], dropped: list[int], c_out: int, out_limit: int
) -> tuple[list[int | None], list[int | None]]:
    """The input and output index of each row from output ``c_out`` on (None: that side is
    empty): the outputs in order beside the input each came from, each dropped input (sorted)
    after the row of the nearest input before it that has a row."""
    left: list[int | None] = []
    right: list[int | None] = []
    p = 0
    while p < len(dropped) and dropped[p] == p:
        left.append(dropped[p])
        right.append(None)
        p += 1
    after: dict[int, list[int]] = {}
    dropped_set = set(dropped)
    for d in dropped[p:]:
        k = d - 1
        while k in dropped_set:
            k -= 1
        after.setdefault(k, []).append(d)
    for j in range(c_out, out_limit):
        i = origin[j]
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
    return left, right


def _rows_of(
    left: list[int | None], right: list[int | None], r0: int, inputs: tuple[int, int], outputs: tuple[int, int]
) -> tuple[list[int], list[int]]:
    """The row of each input in ``inputs`` and of each output in ``outputs`` (a range each,
    start and stop), for the rows ``left`` and ``right`` that start at row ``r0``."""
    c_in, in_limit = inputs
    c_out, out_limit = outputs
    row_of_input: list[int] = [0] * (in_limit - c_in)
    row_of_output: list[int] = [0] * (out_limit - c_out)
    for row, (a, b) in enumerate(zip(left, right, strict=True), r0):
        if a is not None and c_in <= a < in_limit:
            row_of_input[a - c_in] = row
        if b is not None:
            row_of_output[b - c_out] = row
    return row_of_input, row_of_output


def _spans_of(
    spans: Sequence[Span], inputs: tuple[int, int], outputs: tuple[int, int]
) -> tuple[list[int | None], list[int | None]]:
    """The span of each input in ``inputs`` and of each output in ``outputs`` (None: in no
    span)."""
    c_in, in_limit = inputs
    c_out, out_limit = outputs
    in_span: list[int | None] = [None] * (in_limit - c_in)
    out_span: list[int | None] = [None] * (out_limit - c_out)
    for span in spans[bisect.bisect_left(spans, c_in, key=_span_start) :]:
        if span.input_start >= in_limit:
            break
        for i in range(span.input_start, min(span.input_stop, in_limit)):
            in_span[i - c_in] = span.index
        for j in range(span.output_start, min(span.output_stop, out_limit)):
            out_span[j - c_out] = span.index
    return in_span, out_span


def _input_index(change: Change) -> int:
    return change.input_index


def _span_start(span: Span) -> int:
    return span.input_start


def next_in(rows: Sequence[int], row: int, step: int, wrap: bool = False) -> int | None:
    """The first of ``rows`` (ascending) after ``row`` (``step`` 1) or before it (-1); with
    ``wrap``, round to the other end."""
    if not rows:
        return None
    if step > 0:
        k = bisect.bisect_right(rows, row)
        return rows[k] if k < len(rows) else (rows[0] if wrap else None)
    k = bisect.bisect_left(rows, row) - 1
    return rows[k] if k >= 0 else (rows[-1] if wrap else None)


def next_round(rows: Sequence[int], row: int, step: int, what: str) -> tuple[int | None, str]:
    """The first of ``rows`` (ascending) after ``row`` (``step`` 1) or before it (-1), going
    round to the first past the last (the last before the first), as vim's search goes on at the
    top; and what to say of the step (``what`` names one of the rows: "change"): ``""`` where it
    did not go round. ``None`` for no rows."""
    found = next_in(rows, row, step)
    if found is not None or not rows:
        return found, ""
    found = rows[0] if step > 0 else rows[-1]
    if found == row or len(rows) == 1:  # (not "continuing at the first": there is no other)
        return found, f"this is the only {what}"
    if step > 0:
        return found, f"hit the last {what}, continuing at the first"
    return found, f"hit the first {what}, continuing at the last"
