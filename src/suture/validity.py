"""The repair contract's *Valid* property (docs/contract.md) as a list of the ways a history breaks it.

Valid: every call is answered by exactly one result; all results of a span follow its assistant
message directly, in call order; no two calls share an id; no result is outside its call's span.
``suture check`` prints these; the property tests assert a repaired history has none. A history
that grows is checked again from a cut near its end (:class:`suture.checks.resume.Valid`, over
:func:`scan`).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from suture.model import Message, Transcript, messages_of

__all__ = ["NAME", "Breach", "scan", "violations"]

NAME = "Valid"
"""What a verdict by this property is headed with (a file written for no single provider, the
AI SDK's, in the app, the sessions browser and ``suture scan``): the property's own name. It is
stricter than any one provider (results in call order, say), and each provider counts and words
its problems its own way, so its count is not any one provider's."""


class Breach(Struct, frozen=True):
    """One way the history breaks the Valid property: the message it is about and what is wrong.
    (A provider's rule broken is a :class:`suture.checks.Violation`.)"""

    index: int
    problem: str
    call_id: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "problem": self.problem, "call_id": self.call_id}


def _call_label(call_id: str, name: str | None) -> str:
    shown = call_id if call_id else "(no id)"
    return f"call {shown} ({name})" if name else f"call {shown}"


def violations(messages: Sequence[Message] | Transcript) -> list[Breach]:
    """Every way ``messages`` breaks the Valid property, by message index. ``messages``: a
    loaded transcript's ``messages``, or the Transcript itself (as :func:`suture.repair` takes);
    anything else is a TypeError that says what to pass."""
    history = messages_of(messages, "suture.violations(messages)")
    return scan(history, 0, len(history), {})


def scan(messages: Sequence[Message], start: int, stop: int, first_use: dict[str, int]) -> list[Breach]:
    """The breaches of ``messages[start:stop]``, by message index, where ``start`` is 0 or an
    assistant message (no span crosses it) and ``stop`` the end or an assistant message;
    ``first_use`` holds the message of each call id used before ``start``, and gets those used
    here. The breaches of a history are those of its parts, one after the other."""
    span_of_result, by_span = _spans(messages, start, stop)
    found: list[Breach] = []
    answered = _calls(messages, start, stop, by_span, first_use, found)
    _results(messages, span_of_result, by_span, answered, found)
    found.sort(key=lambda v: v.index)
    return found


def _spans(
    messages: Sequence[Message], start: int, stop: int
) -> tuple[dict[int, int], dict[tuple[int, str], list[int]]]:
    """Each result's span (the index of the assistant message with calls before it, -1: none) and,
    by span and ``tool_call_id``, the results in it."""
    span_of_result: dict[int, int] = {}
    by_span: dict[tuple[int, str], list[int]] = {}
    span_start = -1
    for index in range(start, stop):
        message = messages[index]
        if message.role == "assistant":
            span_start = index if message.tool_calls else -1
        elif message.role == "tool":
            span_of_result[index] = span_start
            by_span.setdefault((span_start, message.tool_call_id), []).append(index)
    return span_of_result, by_span


def _calls(
    messages: Sequence[Message],
    start: int,
    n: int,
    by_span: dict[tuple[int, str], list[int]],
    first_use: dict[str, int],
    found: list[Breach],
) -> set[int]:
    """The breaches of each call (an id used before, a result not right after it in call order, or
    none); returns the results that answer a call properly."""
    answered: set[int] = set()
    i = start
    while i < n:
        message = messages[i]
        if message.role != "assistant" or not message.tool_calls:
            i += 1
            continue
        calls = message.tool_calls
        for call in calls:
            earlier = first_use.get(call.id)
            if earlier is not None:
                found.append(
                    Breach(
                        i,
                        f"{_call_label(call.id, call.name)} uses an id that the call at [{earlier}] already uses",
                        call.id,
                    )
                )
            else:
                first_use[call.id] = i
        j = i + 1
        for call in calls:
            if j < n and messages[j].role == "tool" and messages[j].tool_call_id == call.id:
                answered.add(j)
                j += 1
                continue
            elsewhere = [k for k in by_span.get((i, call.id), ()) if k not in answered]
            if elsewhere:
                where = elsewhere[0]
                found.append(
                    Breach(
                        i,
                        f"{_call_label(call.id, call.name)}: its result at [{where}] is not right after the call in call order",
                        call.id,
                    )
                )
            else:
                found.append(Breach(i, f"{_call_label(call.id, call.name)} has no result in its turn", call.id))
        i = j
    return answered


def _results(
    messages: Sequence[Message],
    span_of_result: dict[int, int],
    by_span: dict[tuple[int, str], list[int]],
    answered: set[int],
    found: list[Breach],
) -> None:
    """The breach of each result that answers no call properly: outside any span, answering no
    call of its span, a second result, or not right after its call."""
    for index in sorted(span_of_result):
        if index in answered:
            continue
        result = messages[index]
        shown = result.tool_call_id or "(no id)"
        start = span_of_result[index]
        if start < 0:
            found.append(Breach(index, _outside(messages, index, shown), result.tool_call_id))
            continue
        ids = [c.id for c in messages[start].tool_calls]
        if result.tool_call_id not in ids:
            found.append(
                Breach(
                    index,
                    f"result for {shown} answers no call of its turn (the calls at [{start}])",
                    result.tool_call_id,
                )
            )
        elif len(by_span[(start, result.tool_call_id)]) > ids.count(result.tool_call_id):
            found.append(Breach(index, f"result for {shown} is a second result for the same call", result.tool_call_id))
        else:
            found.append(
                Breach(index, f"result for {shown} is not right after its call [{start}]", result.tool_call_id)
            )


def _outside(messages: Sequence[Message], index: int, shown: str) -> str:
    """Why a result is in no turn with calls, naming its call and what ended the call's turn
    where an earlier call has its id (a placeholder or reply saved between call and result)."""
    call_id = messages[index].tool_call_id
    ended_by: int | None = None
    for k in range(index - 1, -1, -1):
        m = messages[k]
        if m.role != "assistant":
            continue
        if any(c.id == call_id for c in m.tool_calls):
            if ended_by is not None:
                return (
                    f"result for {shown} is outside its call's turn: the call is at [{k}], "
                    f"and the assistant message at [{ended_by}] ends that turn"
                )
            break
        ended_by = k
    return f"result for {shown} is outside any turn with calls"
