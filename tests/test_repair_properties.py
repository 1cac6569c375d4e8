"""The properties of the repair contract (docs/contract.md), held by hypothesis over generated histories (``tests.strategies``).

Besides the six properties (valid, deterministic, idempotent, prefix-stable, nothing lost, pure),
the engine is compared with :func:`spec_repair`, a second implementation written line by line
from the contract's rules and change-record table, slow and plain on purpose. Every output message,
origin, interrupted call and change record (summary text aside) must agree.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from suture.formats.chat import ADAPTER as CHAT
from suture.io import parse_document
from suture.model import ImagePart, Message, TextPart, ThinkingPart, ToolCall, Transcript
from suture.repair import interrupted_text, note_text, repair
from suture.validity import violations
from tests.strategies import NO_DEADLINE, histories, image_parts, placeholders, turns

# -- an independent reading of docs/contract.md --------------------------------------------------------


def _only_whitespace(content: Any) -> bool:
    if content is None:
        return True
    if isinstance(content, str):
        return content.strip() == ""
    return all(isinstance(p, TextPart) and p.text.strip() == "" for p in content)


def spec_repair(messages: Sequence[Message], is_read_only: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """docs/contract.md, rule by rule. Returns output messages as plain tuples, origin, interrupted ids and
    change records as ``(kind, input_index, output_index, span, call_id, new_id)``."""
    # Rule 1.
    dropped = [
        i for i, m in enumerate(messages) if m.role == "assistant" and not m.tool_calls and _only_whitespace(m.content)
    ]
    kept = [i for i in range(len(messages)) if i not in dropped]
    # Rule 2: span = [assistant index, member indices].
    spans: list[tuple[int, list[int]]] = []
    span_of: dict[int, int] = {}
    open_span: int | None = None
    for i in kept:
        m = messages[i]
        if m.role == "assistant":
            open_span = None
            if m.tool_calls:
                spans.append((i, []))
                open_span = len(spans) - 1
                span_of[i] = open_span
        elif open_span is not None:
            spans[open_span][1].append(i)
            span_of[i] = open_span
    # Rule 3.
    final: dict[tuple[int, int], str] = {}
    finals_so_far: list[str] = []
    for a, _ in spans:
        for c, call in enumerate(messages[a].tool_calls):
            base = call.id if call.id != "" else f"call_{a}_{c}"
            if base not in finals_so_far:
                f = base
            else:
                k = 1
                while f"{base}_{k}" in finals_so_far:
                    k += 1
                f = f"{base}_{k}"
            finals_so_far.append(f)
            final[(a, c)] = f
    # Rule 4.
    paired: dict[tuple[int, int], int] = {}  # (assistant, call) -> result index
    result_pair: dict[int, tuple[int, int]] = {}
    for a, members in spans:
        calls = messages[a].tool_calls
        for r in members:
            if messages[r].role != "tool":
                continue
            for c, call in enumerate(calls):
                if (a, c) not in paired and call.id == messages[r].tool_call_id:
                    paired[(a, c)] = r
                    result_pair[r] = (a, c)
                    break

    # Rules 5-7, building the output.
    def note(r: int) -> tuple[Any, ...]:
        m = messages[r]
        head = note_text(m.tool_call_id)
        if m.content is None or m.content == "":
            content: Any = head
        elif isinstance(m.content, str):
            content = head + "\n" + m.content
        else:
            content = [("text", head), *(_part(p) for p in m.content)]
        return ("user", content, (), "", None)

    out: list[tuple[Any, ...]] = []
    origin: list[int | None] = []
    interrupted: list[str] = []
    synthetic_at: dict[tuple[int, int], int] = {}
    note_at: dict[int, int] = {}
    for i in kept:
        m = messages[i]
        if i in span_of and m.role == "assistant":
            a = i
            calls = m.tool_calls
            out.append(
                (
                    "assistant",
                    _content(m.content),
                    tuple((final[(a, c)], call.name, call.arguments) for c, call in enumerate(calls)),
                    "",
                    m.raw,
                )
            )
            origin.append(a)
            for c, call in enumerate(calls):
                if (a, c) in paired:
                    r = paired[(a, c)]
                    res = messages[r]
                    out.append(("tool", _content(res.content), (), final[(a, c)], res.raw))
                    origin.append(r)
                else:
                    read_only = bool(is_read_only and call.name is not None and is_read_only(call.name))
                    synthetic_at[(a, c)] = len(out)
                    out.append(("tool", interrupted_text(call.name, read_only), (), final[(a, c)], None))
                    origin.append(None)
                    interrupted.append(final[(a, c)])
            for r in spans[span_of[a]][1]:
                if r in result_pair:
                    continue
                if messages[r].role == "tool":
                    note_at[r] = len(out)
                    out.append(note(r))
                else:
                    out.append(_plain(messages[r]))
                origin.append(r)
        elif i in span_of:
            continue  # a span member: written with its span
        elif m.role == "tool":
            note_at[i] = len(out)
            out.append(note(i))
            origin.append(i)
        else:
            out.append(_plain(m))
            origin.append(i)

    out_of = {o: j for j, o in enumerate(origin) if o is not None}
    records: list[tuple[Any, ...]] = []
    for i in dropped:
        records.append(("dropped_placeholder", i, None, None, None, None))
    for s, (a, members) in enumerate(spans):
        for c, call in enumerate(messages[a].tool_calls):
            if final[(a, c)] != call.id:
                records.append(("renamed_id", a, out_of[a], s, call.id, final[(a, c)]))
            if (a, c) in synthetic_at:
                records.append(("synthetic_interrupt", a, synthetic_at[(a, c)], s, final[(a, c)], None))
        for r in members:
            if r in result_pair:
                crossed = any(
                    (o < r and out_of[o] > out_of[r]) or (o > r and out_of[o] < out_of[r]) for o in members if o != r
                )
                if crossed:
                    records.append(("moved_result", r, out_of[r], s, final[result_pair[r]], None))
            elif messages[r].role == "tool":
                records.append(("orphan_note", r, note_at[r], s, messages[r].tool_call_id, None))
    for i in kept:
        if i not in span_of and messages[i].role == "tool":
            records.append(("orphan_note", i, note_at[i], None, messages[i].tool_call_id, None))
    return {"messages": out, "origin": origin, "interrupted": interrupted, "records": records}


def _part(p: Any) -> Any:
    if isinstance(p, TextPart):
        return ("text", p.text)
    return ("part", id(p))  # any other part must be the very same object


def _content(content: Any) -> Any:
    return content if content is None or isinstance(content, str) else [_part(p) for p in content]


def _plain(m: Message) -> tuple[Any, ...]:
    return (
        m.role,
        _content(m.content),
        tuple((c.id, c.name, c.arguments) for c in m.tool_calls),
        m.tool_call_id,
        m.raw,
    )


def _view(m: Message) -> tuple[Any, ...]:
    return _plain(m)


def engine_view(messages: Sequence[Message], is_read_only: Callable[[str], bool] | None = None) -> dict[str, Any]:
    result = repair(messages, is_read_only)
    return {
        "messages": [_view(m) for m in result.messages],
        "origin": result.origin,
        "interrupted": [c.id for c in result.interrupted],
        "records": sorted(
            (str(c.kind), c.input_index, c.output_index, c.span, c.call_id, c.new_id) for c in result.changes
        ),
    }


def _sorted_records(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "records": sorted(view["records"], key=lambda r: tuple(str(x) for x in r))}


READ_ONLY = frozenset({"read_file", "grep"}).__contains__

# Counterexamples found while writing these tests, kept so they are always tried.
X_X = [
    Message("assistant", None, (ToolCall("x", "read_file"), ToolCall("x", "read_file"))),
    Message("tool", "a", tool_call_id="x"),
    Message("assistant", None, (ToolCall("x_1", "bash"),)),
]


@given(histories())
@example(X_X)
@NO_DEADLINE
def test_engine_agrees_with_spec_reading(messages: list[Message]) -> None:
    for read_only in (None, READ_ONLY):
        got = engine_view(messages, read_only)
        want = spec_repair(messages, read_only)
        assert got["messages"] == want["messages"]
        assert got["origin"] == want["origin"]
        assert got["interrupted"] == want["interrupted"]
        assert _sorted_records(got)["records"] == _sorted_records(want)["records"]


# -- the six properties --------------------------------------------------------------------------


@given(histories())
@NO_DEADLINE
def test_valid(messages: list[Message]) -> None:
    assert violations(repair(messages).messages) == []


def _chat_bytes(messages: Sequence[Message]) -> bytes:
    return CHAT.dump(messages, Transcript([], "neutral"))


@given(histories())
@NO_DEADLINE
def test_deterministic(messages: list[Message]) -> None:
    first, second = repair(messages), repair(copy.deepcopy(messages))
    assert _chat_bytes(first.messages) == _chat_bytes(second.messages)
    assert first.changes == second.changes
    assert first.origin == second.origin
    assert first.spans == second.spans
    assert first.interrupted == second.interrupted


@given(histories())
@NO_DEADLINE
def test_idempotent(messages: list[Message]) -> None:
    once = repair(messages)
    twice = repair(once.messages)
    assert twice.changes == []
    assert twice.interrupted == []
    assert twice.messages == once.messages
    assert twice.origin == list(range(len(once.messages)))


@given(histories())
@NO_DEADLINE
def test_idempotent_through_the_chat_format(messages: list[Message]) -> None:
    """A chat file, repaired, written, read back and repaired again: no change, same bytes."""
    transcript = CHAT.load(parse_document(_chat_bytes(messages)))
    once = CHAT.dump(repair(transcript.messages).messages, transcript)
    reread = CHAT.load(parse_document(once))
    again = repair(reread.messages)
    assert again.changes == []
    assert CHAT.dump(again.messages, reread) == once


@given(histories())
@NO_DEADLINE
def test_prefix_stable(messages: list[Message]) -> None:
    """If the message after position k (``messages[k]``, the first one not in the prefix) is a
    non-placeholder assistant message, repairing ``messages[:k]`` gives a prefix of the whole."""
    whole = repair(messages)
    cut_points = [
        k for k, m in enumerate(messages) if m.role == "assistant" and (m.tool_calls or not _only_whitespace(m.content))
    ]
    for k in [*cut_points, len(messages)]:
        head = repair(messages[:k])
        n = len(head.messages)
        assert whole.messages[:n] == head.messages
        assert whole.origin[:n] == head.origin
        assert _chat_bytes(whole.messages[:n]) == _chat_bytes(head.messages)
        assert [c for c in whole.changes if c.input_index < k] == head.changes


@given(st.lists(turns(), min_size=2, max_size=4).map(lambda ts: [m for t in ts for m in t]))
@NO_DEADLINE
def test_prefix_stable_at_every_turn(messages: list[Message]) -> None:
    """The same, over histories made only of turns, so every cut is at an assistant message."""
    whole = repair(messages)
    for k, m in enumerate(messages):
        if m.role == "assistant" and m.tool_calls:
            head = repair(messages[:k])
            assert whole.messages[: len(head.messages)] == head.messages


def _images(messages: Sequence[Message]) -> list[int]:
    return sorted(id(p) for m in messages if isinstance(m.content, list) for p in m.content if isinstance(p, ImagePart))


@given(histories())
@NO_DEADLINE
def test_nothing_lost(messages: list[Message]) -> None:
    result = repair(messages)
    placeholders_in = {c.input_index for c in result.changes if c.kind == "dropped_placeholder"}
    kept = [i for i in range(len(messages)) if i not in placeholders_in]
    assert sorted(o for o in result.origin if o is not None) == kept
    for j, i in enumerate(result.origin):
        if i is None:
            continue
        before, after = messages[i], result.messages[j]
        if before.role == "tool" and after.role == "user":  # a note: the content follows the sentence
            if isinstance(before.content, list):
                assert isinstance(after.content, list)
                assert after.content[1:] == before.content
            elif before.content:
                assert isinstance(after.content, str)
                assert after.content.endswith("\n" + before.content)
        else:
            assert after.content is before.content
            assert after.raw is before.raw
            assert after.role == before.role
    assert _images(result.messages) == _images(messages)
    thinking_in = [
        id(p) for m in messages if isinstance(m.content, list) for p in m.content if isinstance(p, ThinkingPart)
    ]
    thinking_out = [
        id(p) for m in result.messages if isinstance(m.content, list) for p in m.content if isinstance(p, ThinkingPart)
    ]
    assert sorted(thinking_in) == sorted(thinking_out)


@given(histories())
@NO_DEADLINE
def test_pure(messages: list[Message]) -> None:
    before = copy.deepcopy(messages)
    ids_before = [id(m) for m in messages]
    repair(messages, READ_ONLY)
    assert messages == before
    assert [id(m) for m in messages] == ids_before


@given(histories())
@NO_DEADLINE
def test_untouched_messages_are_not_copied(messages: list[Message]) -> None:
    """Only what changes is copied: a message whose neutral fields stay the same is the input object."""
    result = repair(messages)
    for j, i in enumerate(result.origin):
        if i is None:
            continue
        m, original = result.messages[j], messages[i]
        same_ids = [c.id for c in m.tool_calls] == [c.id for c in original.tool_calls]
        if m.role == original.role and same_ids and m.tool_call_id == original.tool_call_id:
            assert m is original


# -- records and origin --------------------------------------------------------------------------


@given(histories())
@NO_DEADLINE
def test_records_listed_by_input_index(messages: list[Message]) -> None:
    indices = [c.input_index for c in repair(messages).changes]
    assert indices == sorted(indices)


@given(histories())
@NO_DEADLINE
def test_origin_consistent_with_messages_and_records(messages: list[Message]) -> None:
    result = repair(messages)
    assert len(result.origin) == len(result.messages)
    synthetic = {c.output_index for c in result.changes if c.kind == "synthetic_interrupt"}
    assert {j for j, o in enumerate(result.origin) if o is None} == synthetic
    for change in result.changes:
        if change.output_index is None:
            assert change.kind == "dropped_placeholder"
            assert result.output_of(change.input_index) is None
            continue
        out = result.messages[change.output_index]
        if change.kind == "synthetic_interrupt":
            assert out.role == "tool" and out.tool_call_id == change.call_id
            assert result.origin[change.output_index] is None
            continue
        assert result.origin[change.output_index] == change.input_index
        assert result.output_of(change.input_index) == change.output_index
        if change.kind == "orphan_note":
            assert out.role == "user" and messages[change.input_index].role == "tool"
        elif change.kind == "moved_result":
            assert out.role == "tool" and out.tool_call_id == change.call_id
        elif change.kind == "renamed_id":
            assert change.new_id in [c.id for c in out.tool_calls]
    for span in result.spans:
        assert result.messages[span.output_start].has_calls
        assert result.origin[span.output_start] == span.input_start
        members = [o for o in result.origin[span.output_start : span.output_stop] if o is not None]
        assert all(span.input_start <= o < span.input_stop for o in members)
    assert [s.index for s in result.spans] == list(range(len(result.spans)))


@given(histories())
@NO_DEADLINE
def test_summaries_are_one_line(messages: list[Message]) -> None:
    for change in repair(messages).changes:
        assert change.summary and "\n" not in change.summary and "\r" not in change.summary


@given(st.lists(st.one_of(placeholders(), image_parts().map(lambda p: Message("tool", [p], tool_call_id="q")))))
@NO_DEADLINE
def test_placeholders_and_image_orphans_only(messages: list[Message]) -> None:
    result = repair(messages)
    assert all(m.role == "user" for m in result.messages)
    assert _images(result.messages) == _images(messages)
