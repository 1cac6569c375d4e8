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
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from suture import show
from suture.model import Content, Message, TextPart, ToolCall

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


@dataclass(frozen=True, slots=True)
class Change:
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


@dataclass(frozen=True, slots=True)
class Span:
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

    messages: list[Message]
    changes: list[Change]
    spans: list[Span]
    origin: list[int | None]
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


def _is_placeholder(message: Message) -> bool:
    """Rule 1: an assistant message with no calls whose content is only whitespace."""
    if message.tool_calls:
        return False
    content = message.content
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    return all(type(part) is TextPart and not part.text.strip() for part in content)


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


@dataclass(frozen=True, slots=True)
class _Checkpoint:
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
    return message.role == "assistant" and not _is_placeholder(message)


def repair(
    messages: Sequence[Message],
    is_read_only: Callable[[str], bool] | None = None,
) -> Repair:
    """Repair a history by the contract in docs/contract.md. See the module docstring."""
    return _run(messages, is_read_only, None, None)


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
    if previous is not None and point is not None:
        out = previous.messages[: point.outputs]
        origin = previous.origin[: point.outputs]
        changes = previous.changes[: point.changes]
        spans = previous.spans[: point.spans]
        interrupted = previous.interrupted[: point.interrupted]
        ids = _Ids(point.base, set(point.used), dict(point.next_k))
        first = point.start
    else:
        out, origin, changes, spans, interrupted = [], [], [], [], []
        ids = _Ids()
        first = 0
    kept_changes = len(changes)
    final = ids.final
    used_ids, base_ids = ids._used, ids._base
    take = used_ids.add

    # The open span: its assistant's input index and the input indices of its other members.
    span_start = -1
    members: list[int] = []
    # The last assistant message that is not a placeholder: where a later repair may start.
    last = -1

    def orphan(index: int, span: int | None) -> None:
        result = messages[index]
        note = Message(
            role="user",
            content=_note_content(result.content, result.tool_call_id),
            source=result.source,
        )
        shown = _shown(result.tool_call_id)
        where = "has no call in its turn" if span is None else "matches no unanswered call of its turn"
        changes.append(
            Change(
                ChangeKind.ORPHAN_NOTE,
                index,
                len(out),
                span,
                result.tool_call_id,
                None,
                f"result for {shown} {where}: kept as a user note",
            )
        )
        out.append(note)
        origin.append(index)

    def close_span() -> None:
        span_number = len(spans)
        assistant = messages[span_start]
        calls = assistant.tool_calls
        output_start = len(out)
        n_calls = len(calls)

        # Rule 3, in call order (the usual case, an id no call took yet, inline).
        finals = []
        for j, c in enumerate(calls):
            base = c.id or f"call_{span_start}_{j}"
            if base in used_ids or base in base_ids:
                base = final(base)
            else:
                take(base)
            finals.append(base)

        # The usual span: one result per call, in call order, under ids that stay. Rule 4 pairs
        # them one to one and nothing moves, so the span is written as it is.
        if len(members) == n_calls:
            for j in range(n_calls):
                message = messages[members[j]]
                call_id = calls[j].id
                if message.role != "tool" or message.tool_call_id != call_id or finals[j] != call_id:
                    break
            else:
                out.append(assistant)
                origin.append(span_start)
                for index in members:
                    out.append(messages[index])
                origin.extend(members)
                input_stop = (members[-1] if members else span_start) + 1
                spans.append(Span(span_number, span_start, input_stop, output_start, len(out)))
                return

        # Rule 4: each result takes the first unpaired call with its original id.
        paired: list[int | None] = [None] * n_calls
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

        renamed = [j for j, c in enumerate(calls) if finals[j] != c.id]
        if renamed:
            new_calls = list(calls)
            for j in renamed:
                new_calls[j] = replace(calls[j], id=finals[j])
            out.append(replace(assistant, tool_calls=tuple(new_calls)))
        else:
            out.append(assistant)
        origin.append(span_start)
        for j in renamed:
            changes.append(
                Change(
                    ChangeKind.RENAMED_ID,
                    span_start,
                    output_start,
                    span_number,
                    calls[j].id,
                    finals[j],
                    f"call {_shown(calls[j].id)}{_tool_label(calls[j].name)} renamed to "
                    f"{_shown(finals[j])}: "
                    + ("it had no id" if not calls[j].id else "an earlier call already uses that id"),
                )
            )

        # Rule 6 and 7: one result per call, in call order.
        for j, call in enumerate(calls):
            final_id = finals[j]
            answer = paired[j]
            if answer is None:
                read_only = bool(is_read_only and call.name is not None and is_read_only(call.name))
                changes.append(
                    Change(
                        ChangeKind.SYNTHETIC_INTERRUPT,
                        span_start,
                        len(out),
                        span_number,
                        final_id,
                        None,
                        f"call {_shown(final_id)}{_tool_label(call.name)} had no result: added one saying it was interrupted",
                    )
                )
                out.append(
                    Message(
                        role="tool",
                        content=interrupted_text(call.name, read_only),
                        tool_call_id=final_id,
                        name=call.name,
                    )
                )
                origin.append(None)
                interrupted.append(replace(call, id=final_id) if final_id != call.id else call)
            else:
                result = messages[answer]
                out.append(result if result.tool_call_id == final_id else replace(result, tool_call_id=final_id))
                origin.append(answer)

        # Rule 5 and 7: the rest of the span in its original order.
        for index in rest:
            if messages[index].role == "tool":
                orphan(index, span_number)
            else:
                out.append(messages[index])
                origin.append(index)

        # Moved: a paired result some other input member of the span crossed (docs/contract.md, *Change records*).
        order = origin[output_start + 1 :]
        real = [i for i in order if i is not None]
        if real != sorted(real):
            suffix_min: list[int] = [len(messages)] * (len(real) + 1)
            for p in range(len(real) - 1, -1, -1):
                suffix_min[p] = min(real[p], suffix_min[p + 1])
            prefix_max = -1
            p = 0
            for offset, member in enumerate(order):
                if member is None:
                    continue
                if offset < n_calls and (prefix_max > member or suffix_min[p + 1] < member):
                    name = calls[offset].name
                    changes.append(
                        Change(
                            ChangeKind.MOVED_RESULT,
                            member,
                            output_start + 1 + offset,
                            span_number,
                            finals[offset],
                            None,
                            f"result for {_shown(finals[offset])}{_tool_label(name)} moved to follow its call "
                            f"(position {offset + 1} of {n_calls})",
                        )
                    )
                prefix_max = max(prefix_max, member)
                p += 1

        input_stop = (members[-1] if members else span_start) + 1
        spans.append(Span(span_number, span_start, input_stop, output_start, len(out)))

    for index in range(first, len(messages)):
        message = messages[index]
        role = message.role
        if role == "assistant":
            if not message.tool_calls and _is_placeholder(message):
                changes.append(
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
                continue
            if span_start >= 0:
                close_span()
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
            orphan(index, None)
        else:
            out.append(message)
            origin.append(index)
    if span_start >= 0:
        close_span()

    if kept_changes:
        changes[kept_changes:] = sorted(changes[kept_changes:], key=_by_input_index)
    else:
        changes.sort(key=_by_input_index)

    checkpoint = point if last < 0 else _checkpoint(last, messages, out, origin, changes, spans, interrupted, ids)
    return Repair(out, changes, spans, origin, interrupted, len(messages), _checkpoint=checkpoint)


def _checkpoint(
    start: int,
    messages: Sequence[Message],
    out: list[Message],
    origin: list[int | None],
    changes: list[Change],
    spans: list[Span],
    interrupted: list[ToolCall],
    ids: _Ids,
) -> _Checkpoint:
    """The state just before ``start``, the last assistant message that is not a placeholder,
    worked out at the end of a run from what followed it (the run's ids are no longer needed)."""
    if messages[start].tool_calls:
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
    n_changes = bisect_left(changes, start, key=_by_input_index)
    ids.rewind(taken)
    base, used = ids._base, ids._used
    if not base:
        base, used = used, set()
    elif len(used) > _FOLD:
        base, used = base | used, set()
    return _Checkpoint(start, outputs, n_changes, n_spans, n_interrupted, base, used, ids._next_k)


def _by_input_index(change: Change) -> int:
    return change.input_index
