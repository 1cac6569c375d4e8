"""The repair contract (docs/contract.md), as one pure function.

``repair(messages)`` makes a saved, resumed or interrupted history valid to send: every call has
exactly one result, right after it, under an id no other call uses. It reads neutral messages
(``suture.model``) and returns a :class:`Repair`; it does no I/O, uses no clock and no randomness,
never mutates its input and copies only the messages it changes.

The rules, in the order they apply (numbered as in docs/contract.md):
1. assistant placeholders (no calls, only whitespace) are dropped, as if never there;
2. a span runs from an assistant message with calls up to the next assistant message;
3. every call gets a final id: its id (or ``call_{m}_{c}`` where empty), made unique with ``_{k}``;
4. results pair with calls inside their span only, by original id, first unpaired call first;
5. a result that pairs with nothing becomes a user note at the same place;
6. a call with no result gets a synthetic "interrupted" result;
7. each span is written as: assistant, one result per call in call order, then the rest.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from suture import show
from suture.grown import Growing
from suture.model import Content, Message, TextPart, ToolCall, Transcript, is_blank, is_placeholder, messages_of

__all__ = [
    "Change",
    "ChangeKind",
    "Repair",
    "Span",
    "interrupted_text",
    "note_text",
    "repair",
    "repair_from",
    "reused",
]


class ChangeKind(StrEnum):
    DROPPED_PLACEHOLDER = "dropped_placeholder"
    RENAMED_ID = "renamed_id"
    SYNTHETIC_INTERRUPT = "synthetic_interrupt"
    MOVED_RESULT = "moved_result"
    ORPHAN_NOTE = "orphan_note"


NO_RESULT = "had no result"
"""What a synthetic interrupt's summary says of its call (the app says "has no result yet" of a
call of the file's last turn: :meth:`suture.tui.rows.RowModel.said_of`)."""


class Change(Struct, frozen=True):
    """One difference between input and output (docs/contract.md, *Change records*)."""

    kind: ChangeKind
    input_index: int
    output_index: int | None
    span: int | None
    call_id: str | None
    new_id: str | None
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": str(self.kind),
            "input_index": self.input_index,
            "output_index": self.output_index,
            "span": self.span,
            "call_id": self.call_id,
            "new_id": self.new_id,
            "summary": self.summary,
        }


class Span(Struct, frozen=True):
    """A span: its assistant message with calls and what follows it up to the next assistant.

    Ranges are half-open. ``input_stop`` is one past the span's last input member (dropped
    placeholders inside it included); ``output_stop`` one past its last output message.
    """

    index: int
    input_start: int
    input_stop: int
    output_start: int
    output_stop: int


@dataclass(frozen=True, slots=True)
class Repair:
    """What ``repair`` returns.

    ``origin[j]`` is the input index output message ``j`` came from, or ``None`` for a synthetic
    result. ``interrupted`` lists the calls that got a synthetic result, under their final ids.
    """

    messages: Sequence[Message]
    changes: list[Change]
    spans: list[Span]
    origin: Sequence[int | None]
    interrupted: list[ToolCall]
    input_count: int = 0
    _by_input: list[int | None] = field(default_factory=list, repr=False, compare=False)
    _checkpoint: _Checkpoint | None = field(default=None, repr=False, compare=False)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def output_of(self, input_index: int) -> int | None:
        """The output index of an input message, or ``None`` for a dropped placeholder."""
        if not self._by_input:
            by_input: list[int | None] = [None] * self.input_count
            for out_index, in_index in enumerate(self.origin):
                if in_index is not None:
                    by_input[in_index] = out_index
            self._by_input.extend(by_input)
        return self._by_input[input_index]

    def renamed_results(self, change: Change) -> list[int]:
        """The output results whose ``tool_call_id`` a ``renamed_id`` change rewrote: the
        file's results paired with the renamed call, now under its final id (the record names
        the assistant message only; its paired result changes only its ``tool_call_id``). Empty
        for any other kind of change, and where the call's result is a synthetic one (its own
        record says so)."""
        if change.kind is not ChangeKind.RENAMED_ID or change.span is None or change.output_index is None:
            return []
        stop = self.spans[change.span].output_stop if change.span < len(self.spans) else len(self.messages)
        messages, origin = self.messages, self.origin
        return [
            j
            for j in range(change.output_index + 1, min(stop, len(messages)))
            if origin[j] is not None and messages[j].role == "tool" and messages[j].tool_call_id == change.new_id
        ]

    def counts(self) -> dict[ChangeKind, int]:
        """How many changes of each kind, every kind present (zero where none)."""
        counts = dict.fromkeys(ChangeKind, 0)
        for change in self.changes:
            counts[change.kind] += 1
        return counts

    def report(self) -> dict[str, Any]:
        """The JSON report ``suture repair --report`` writes."""
        return {
            "changes": [c.to_json() for c in self.changes],
            "interrupted": [c.id for c in self.interrupted],
        }


def note_text(tool_call_id: str) -> str:
    """The sentence that opens an orphan note (contract rule 5)."""
    shown = tool_call_id or "(no id)"
    return f"A result for tool call {shown} arrived outside its turn and is kept here as a note:"


def interrupted_text(name: str | None, read_only: bool) -> str:
    """The content of a synthetic result (contract rule 6)."""
    tool = name or "the tool"
    if read_only:
        return f"Interrupted before {tool} returned a result. It only reads, so it is safe to run again."
    return (
        f"Interrupted before {tool} returned a result. "
        "It may have partly run: check its effects before running it again."
    )


def _note_content(content: Content, tool_call_id: str) -> Content:
    note = note_text(tool_call_id)
    if content is None:
        return note
    if isinstance(content, str):
        return f"{note}\n{content}" if content else note
    return [TextPart(note), *content]


def _shown(value: str) -> str:
    """An id or tool name as a summary shows it: on one line, control characters escaped (ids
    and names are untrusted transcript data), ``(no id)`` for an empty one."""
    return show.line(value) if value else "(no id)"


def _tool_label(name: str | None) -> str:
    return f" ({_shown(name)})" if name else ""


class _Ids:
    """Rule 3: final ids, each depending only on the calls before it.

    The ids in use are ``base`` (shared between results, never changed) plus ``used`` (this run's
    own); each call visited adds one id to ``used``. ``log`` records what a clash changed in
    ``next_k``, so the state before the last calls can be restored to resume a repair there
    (:func:`repair_from`).
    """

    __slots__ = ("_base", "_log", "_next_k", "_used")

    def __init__(
        self,
        base: frozenset[str] | set[str] = frozenset(),
        used: set[str] | None = None,
        next_k: dict[str, int] | None = None,
    ) -> None:
        self._base = base
        self._used: set[str] = set() if used is None else used
        self._next_k: dict[str, int] = {} if next_k is None else next_k
        # (ids in used before the clash, its base, next_k[base] before it)
        self._log: list[tuple[int, str, int | None]] = []

    def final(self, base: str) -> str:
        used = self._used
        if base not in used and base not in self._base:
            used.add(base)
            return base
        # The set only grows, so the smallest free k for a base never goes down.
        previous = self._next_k.get(base)
        k = previous or 1
        candidate = f"{base}_{k}"
        while candidate in used or candidate in self._base:
            k += 1
            candidate = f"{base}_{k}"
        self._next_k[base] = k + 1
        self._log.append((len(used), base, previous))
        used.add(candidate)
        return candidate

    def rewind(self, taken: Sequence[str]) -> None:
        """Forget ``taken``, the final ids of the last calls visited, as if they were never visited."""
        log, used, next_k = self._log, self._used, self._next_k
        mark = len(used) - len(taken)
        for final in taken:
            used.discard(final)
        while log and log[-1][0] >= mark:
            _, base, previous = log.pop()
            if previous is None:
                del next_k[base]
            else:
                next_k[base] = previous


class _Checkpoint(Struct, frozen=True):
    """The engine's state just before input message ``start`` (an assistant message that is not a
    placeholder): how much of the output came before it and the ids its calls cannot take."""

    start: int
    outputs: int
    changes: int
    spans: int
    interrupted: int
    base: frozenset[str] | set[str]
    used: set[str]
    next_k: dict[str, int]


# Beyond this many ids of its own, a checkpoint folds them into a new shared base.
_FOLD = 1024


def _opens(message: Message) -> bool:
    """True for an assistant message that is not a placeholder: one that starts a span or ends one."""
    return message.role == "assistant" and not is_placeholder(message)


def repair(
    messages: Sequence[Message] | Transcript,
    is_read_only: Callable[[str], bool] | None = None,
) -> Repair:
    """Repair a history by the contract in docs/contract.md. See the module docstring.

    ``messages``: a loaded transcript's ``messages``, or the :class:`~suture.model.Transcript`
    itself (what ``suture.load_file`` returns), whose messages are then repaired. Anything else
    is a TypeError that says what to pass."""
    return _run(messages_of(messages, "suture.repair(messages)"), is_read_only, None, None)


def repair_from(
    previous: Repair,
    messages: Sequence[Message],
    changed_from: int,
    is_read_only: Callable[[str], bool] | None = None,
) -> Repair:
    """``repair(messages, is_read_only)``, reusing ``previous`` where it still holds.

    ``previous`` must be the repair of a history whose first ``changed_from`` messages are
    exactly ``messages[:changed_from]`` (the rest was changed, removed or added), made with the
    same ``is_read_only``. Work starts again only at the last assistant message that is not a
    placeholder before ``changed_from`` (docs/contract.md, *Prefix-stable*: the output before it cannot
    change), so appending to a long history costs what was appended. Falls back to a full repair
    when ``previous`` offers no usable point to start from.
    """
    point = _usable(previous, messages, changed_from)
    if point is None:
        return repair(messages, is_read_only)
    return _run(messages, is_read_only, previous, point)


def reused(previous: Repair, messages: Sequence[Message], changed_from: int) -> tuple[int, int] | None:
    """Where :func:`repair_from` with these arguments starts work again: the input index and the
    output index before which its result equals ``previous`` (``None``: from the start). A view
    need draw again only the output from there on."""
    point = _usable(previous, messages, changed_from)
    return None if point is None else (point.start, point.outputs)


def _usable(previous: Repair, messages: Sequence[Message], changed_from: int) -> _Checkpoint | None:
    point = previous._checkpoint
    changed_from = min(changed_from, previous.input_count, len(messages))
    if point is None or point.start > changed_from or point.start >= len(messages):
        return None
    return point if _opens(messages[point.start]) else None


def _run(
    messages: Sequence[Message],
    is_read_only: Callable[[str], bool] | None,
    previous: Repair | None,
    point: _Checkpoint | None,
) -> Repair:
    """One pass of the engine over ``messages``: from the start, or from ``point``, a checkpoint of
    ``previous`` (:func:`repair_from`), whose output before it is kept."""
    run = _Run(messages, is_read_only)
    first = 0
    if previous is not None and point is not None:
        run.resume(previous, point)
        first = point.start
    kept = len(run.changes)
    last = run.walk(first)
    # Change records in input order (docs/contract.md, *Change records*); the sort is stable, so
    # the records of one message keep the order the steps made them in.
    changes = run.changes
    changes[kept:] = sorted(changes[kept:], key=_by_input_index)
    checkpoint = point if last < 0 else _checkpoint(run, last)
    out = run.out.done() if isinstance(run.out, Growing) else run.out
    origin = run.origin.done() if isinstance(run.origin, Growing) else run.origin
    return Repair(out, changes, run.spans, origin, run.interrupted, len(messages), _checkpoint=checkpoint)


class _Run:
    """The output of one pass as it is written, and the steps that write it, one a rule.

    ``out[j]`` came from input message ``origin[j]`` (``None``: a synthetic result). Each step
    appends to ``out``, ``origin``, ``changes``, ``spans`` and ``interrupted``; none reads another's
    loop variables.
    """

    __slots__ = ("changes", "ids", "interrupted", "is_read_only", "messages", "origin", "out", "spans")

    def __init__(self, messages: Sequence[Message], is_read_only: Callable[[str], bool] | None) -> None:
        self.messages = messages
        self.is_read_only = is_read_only
        self.out: list[Message] | Growing[Message] = []
        self.origin: list[int | None] | Growing[int | None] = []
        self.changes: list[Change] = []
        self.spans: list[Span] = []
        self.interrupted: list[ToolCall] = []
        self.ids = _Ids()

    def resume(self, previous: Repair, point: _Checkpoint) -> None:
        """Start from ``point``: ``previous``'s output before it, and the ids its calls cannot take."""
        # The output before it is kept as it is, not copied: appending to a long history costs
        # what was appended (suture.grown).
        self.out = Growing(previous.messages, point.outputs)
        self.origin = Growing(previous.origin, point.outputs)
        self.changes = previous.changes[: point.changes]
        self.spans = previous.spans[: point.spans]
        self.interrupted = previous.interrupted[: point.interrupted]
        self.ids = _Ids(point.base, set(point.used), dict(point.next_k))

    def walk(self, first: int) -> int:
        """Rules 1 and 2 over ``messages[first:]``: drop placeholders, gather each span and write it,
        write every other message as it is (a result outside any span as a note, rule 5). Returns
        the index of the last assistant message that is not a placeholder (-1: none)."""
        messages, out, origin, write_span = self.messages, self.out, self.origin, self.write_span
        span_start = -1  # the open span's assistant message
        members: list[int] = []  # the input indices of its other members
        last = -1
        for index in range(first, len(messages)):
            message = messages[index]
            role = message.role
            if role == "assistant":
                if not message.tool_calls and is_blank(message.content):  # is_placeholder, inline
                    self.drop(index)
                    continue
                if span_start >= 0:
                    write_span(span_start, members)
                    span_start = -1
                last = index
                if message.tool_calls:
                    span_start = index
                    members = []
                else:
                    out.append(message)
                    origin.append(index)
            elif span_start >= 0:
                members.append(index)
            elif role == "tool":
                self.orphan(index, None)
            else:
                out.append(message)
                origin.append(index)
        if span_start >= 0:
            self.write_span(span_start, members)
        return last

    def drop(self, index: int) -> None:
        """Rule 1: a placeholder is left out; only its change record says it was there."""
        self.changes.append(
            Change(
                ChangeKind.DROPPED_PLACEHOLDER,
                index,
                None,
                None,
                None,
                None,
                "empty assistant message dropped (a placeholder with no calls and no text)",
            )
        )

    def orphan(self, index: int, span: int | None) -> None:
        """Rule 5: a result that pairs with nothing becomes a user note at the same place."""
        result = self.messages[index]
        shown = _shown(result.tool_call_id)
        where = "has no call in its turn" if span is None else "matches no unanswered call of its turn"
        self.changes.append(
            Change(
                ChangeKind.ORPHAN_NOTE,
                index,
                len(self.out),
                span,
                result.tool_call_id,
                None,
                f"result for {shown} {where}: kept as a user note",
            )
        )
        note = Message(role="user", content=_note_content(result.content, result.tool_call_id), source=result.source)
        self.out.append(note)
        self.origin.append(index)

    def write_span(self, start: int, members: list[int]) -> None:
        """Rules 3 to 7 for the span of the assistant message ``start`` and its ``members``."""
        span = len(self.spans)
        calls = self.messages[start].tool_calls
        output_start = len(self.out)
        finals = self.final_ids(start, calls)
        if not self.write_as_is(start, members, calls, finals):
            paired, rest = _pair(self.messages, calls, members)
            self.write_assistant(span, start, calls, finals)
            self.write_results(span, start, calls, finals, paired)
            self.write_rest(span, rest)
            self.record_moves(span, output_start, calls, finals)
        input_stop = (members[-1] if members else start) + 1
        self.spans.append(Span(span, start, input_stop, output_start, len(self.out)))

    def final_ids(self, start: int, calls: Sequence[ToolCall]) -> list[str]:
        """Rule 3, in call order: each call's id (``call_{m}_{c}`` where empty), made unique."""
        ids = self.ids
        used, shared, final = ids._used, ids._base, ids.final
        finals = []
        for j, call in enumerate(calls):
            base = call.id or f"call_{start}_{j}"
            if base in used or base in shared:
                base = final(base)
            else:  # the usual case, an id no call took yet, inline
                used.add(base)
            finals.append(base)
        return finals

    def write_as_is(self, start: int, members: list[int], calls: Sequence[ToolCall], finals: list[str]) -> bool:
        """The usual span, written as it is: one result per call, in call order, under ids that
        stay, so rule 4 pairs them one to one and nothing moves. False (nothing written) for
        any other span."""
        if len(members) != len(calls):
            return False
        messages = self.messages
        for j, index in enumerate(members):
            message = messages[index]
            call_id = calls[j].id
            if message.role != "tool" or message.tool_call_id != call_id or finals[j] != call_id:
                return False
        out = self.out
        out.append(messages[start])
        for index in members:
            out.append(messages[index])
        self.origin.append(start)
        self.origin.extend(members)
        return True

    def write_assistant(self, span: int, start: int, calls: Sequence[ToolCall], finals: list[str]) -> None:
        """Rule 7's first message: the assistant message, its calls under their final ids (rule 3)."""
        assistant = self.messages[start]
        output_index = len(self.out)
        renamed = [j for j, call in enumerate(calls) if finals[j] != call.id]
        if renamed:
            new_calls = list(calls)
            for j in renamed:
                new_calls[j] = replace(calls[j], id=finals[j])
            assistant = replace(assistant, tool_calls=tuple(new_calls))
        self.out.append(assistant)
        self.origin.append(start)
        for j in renamed:
            call = calls[j]
            why = "it had no id" if not call.id else "an earlier call already uses that id"
            self.changes.append(
                Change(
                    ChangeKind.RENAMED_ID,
                    start,
                    output_index,
                    span,
                    call.id,
                    finals[j],
                    f"call {_shown(call.id)}{_tool_label(call.name)} renamed to {_shown(finals[j])}: {why}",
                )
            )

    def write_results(
        self, span: int, start: int, calls: Sequence[ToolCall], finals: list[str], paired: list[int | None]
    ) -> None:
        """Rules 6 and 7: one result per call, in call order, under the call's final id; a call with
        no result gets a synthetic "interrupted" one."""
        messages, out, origin = self.messages, self.out, self.origin
        for j, call in enumerate(calls):
            final_id = finals[j]
            answer = paired[j]
            if answer is not None:
                result = messages[answer]
                out.append(result if result.tool_call_id == final_id else replace(result, tool_call_id=final_id))
                origin.append(answer)
                continue
            is_read_only = self.is_read_only
            read_only = bool(is_read_only and call.name is not None and is_read_only(call.name))
            self.changes.append(
                Change(
                    ChangeKind.SYNTHETIC_INTERRUPT,
                    start,
                    len(out),
                    span,
                    final_id,
                    None,
                    f"call {_shown(final_id)}{_tool_label(call.name)} {NO_RESULT}: added one saying it was interrupted",
                )
            )
            content = interrupted_text(call.name, read_only)
            out.append(Message(role="tool", content=content, tool_call_id=final_id, name=call.name))
            origin.append(None)
            self.interrupted.append(replace(call, id=final_id) if final_id != call.id else call)

    def write_rest(self, span: int, rest: list[int]) -> None:
        """Rules 5 and 7: the rest of the span in its original order, unpaired results as notes."""
        messages = self.messages
        for index in rest:
            if messages[index].role == "tool":
                self.orphan(index, span)
            else:
                self.out.append(messages[index])
                self.origin.append(index)

    def record_moves(self, span: int, output_start: int, calls: Sequence[ToolCall], finals: list[str]) -> None:
        """The MOVED_RESULT records of a span just written: a paired result that some other input
        member of the span crossed (docs/contract.md, *Change records*)."""
        order = self.origin[output_start + 1 :]
        real = [i for i in order if i is not None]
        if real == sorted(real):
            return
        # suffix_min[p]: the smallest input index from the p-th real member on.
        suffix_min: list[int] = [len(self.messages)] * (len(real) + 1)
        for p in range(len(real) - 1, -1, -1):
            suffix_min[p] = min(real[p], suffix_min[p + 1])
        n_calls = len(calls)
        prefix_max = -1
        p = 0
        for offset, member in enumerate(order):
            if member is None:
                continue
            if offset < n_calls and (prefix_max > member or suffix_min[p + 1] < member):
                self.changes.append(
                    Change(
                        ChangeKind.MOVED_RESULT,
                        member,
                        output_start + 1 + offset,
                        span,
                        finals[offset],
                        None,
                        f"result for {_shown(finals[offset])}{_tool_label(calls[offset].name)} moved to follow "
                        f"its call (position {offset + 1} of {n_calls})",
                    )
                )
            prefix_max = max(prefix_max, member)
            p += 1


def _pair(
    messages: Sequence[Message], calls: Sequence[ToolCall], members: list[int]
) -> tuple[list[int | None], list[int]]:
    """Rule 4: each result of the span takes the first unpaired call with its original id.
    Returns the result paired with each call (``None``: none) and the members left over."""
    paired: list[int | None] = [None] * len(calls)
    rest: list[int] = []
    waiting: dict[str, list[int]] = {}
    for j, call in enumerate(calls):
        waiting.setdefault(call.id, []).append(j)
    for index in members:
        message = messages[index]
        if message.role == "tool":
            queue = waiting.get(message.tool_call_id)
            if queue:
                paired[queue.pop(0)] = index
                continue
        rest.append(index)
    return paired, rest


def _checkpoint(run: _Run, start: int) -> _Checkpoint:
    """The state just before ``start``, the last assistant message that is not a placeholder,
    worked out at the end of a run from what followed it (the run's ids are no longer needed)."""
    out, origin, spans, interrupted, ids = run.out, run.origin, run.spans, run.interrupted, run.ids
    if run.messages[start].tool_calls:
        # It opened the last span: its calls took the last ids, its results hold the last synthetic ones.
        outputs = spans[-1].output_start
        n_spans = len(spans) - 1
        taken = [c.id for c in out[outputs].tool_calls]
        synthetic = sum(1 for j in range(outputs + 1, outputs + 1 + len(taken)) if origin[j] is None)
        n_interrupted = len(interrupted) - synthetic
    else:
        outputs = len(origin) - 1
        while origin[outputs] != start:
            outputs -= 1
        n_spans = len(spans)
        taken = []
        n_interrupted = len(interrupted)
    n_changes = bisect_left(run.changes, start, key=_by_input_index)
    ids.rewind(taken)
    base, used = ids._base, ids._used
    if not base:
        base, used = used, set()
    elif len(used) > _FOLD:
        base, used = base | used, set()
    return _Checkpoint(start, outputs, n_changes, n_spans, n_interrupted, base, used, ids._next_k)


def _by_input_index(change: Change) -> int:
    return change.input_index
