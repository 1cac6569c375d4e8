"""Anthropic Messages: detection, load, dump, round trip, repair, conversion, properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suture
from suture.checks import check
from suture.formats import CERTAIN, LIKELY, detect, dump, get, load_bytes
from suture.formats import essences as _essences
from suture.io import InputError, parse_document
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart, ToolCall, Transcript
from suture.repair import ChangeKind, interrupted_text, note_text, repair
from tests.helpers.documents import break_at, key_paths
from tests.strategies import histories

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "messages"
CLEAN = SAMPLES / "clean-request.json"
BROKEN = SAMPLES / "interrupted-and-restarted.json"
ADAPTER = get("messages")
TEXT = {"type": "text", "text": "a note"}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "out"}


def ordered(value: Any) -> str:
    """The JSON text of a value with keys in their order: equal only for the same keys, same order."""
    return json.dumps(value, ensure_ascii=False)


def essences(messages: list[Message]) -> list[dict[str, Any]]:
    return [e for _, e in _essences(messages)]


def load_value(value: Any) -> Transcript:
    return load_bytes(orjson.dumps(value))


# -- detection -------------------------------------------------------------------------------


def test_samples_are_detected_for_certain() -> None:
    for path in SAMPLES.iterdir():
        found = detect(parse_document(path.read_bytes()))
        assert found.adapter.name == "messages", path
        assert found.score == CERTAIN


def test_a_body_with_a_top_level_system_is_anthropic_even_without_blocks() -> None:
    body = {"model": "claude-sonnet-4-5", "system": "be brief", "messages": [{"role": "user", "content": "hi"}]}
    found = detect(parse_document(orjson.dumps(body)))
    assert found.adapter.name == "messages"
    assert found.score == LIKELY


def test_a_plain_history_is_not_an_error_and_names_the_alternatives() -> None:
    found = detect(parse_document(b'[{"role": "user", "content": "hi"}]'))
    assert found.adapter.name == "chat"
    assert "messages" in found.others


@pytest.mark.parametrize(
    "record",
    [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "f"}}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]},
        {"role": "system", "content": "a system role inside messages is not Anthropic's"},
        {"role": "model", "parts": [{"text": "hi"}]},
    ],
)
def test_foreign_records_rule_messages_out(record: dict[str, Any]) -> None:
    assert ADAPTER.sniff(parse_document(orjson.dumps([{"role": "user", "content": "hi"}, record]))) == 0


# -- load ------------------------------------------------------------------------------------


def test_load_splits_results_out_of_user_messages_in_order() -> None:
    t = suture.load_file(CLEAN)
    assert [m.role for m in t.messages] == ["system", "user", "assistant", "tool", "tool", "assistant", "user"]
    system, _, call, first, second, reply, _ = t.messages
    assert system.source is not None and system.source.pointer == "system"
    assert [c.id for c in call.tool_calls] == ["toolu_01Vb3Hq8mWcZkJ2xR7aP4sLd", "toolu_01K9dTfQ2yNvX6eBw3uHgM8r"]
    assert call.tool_calls[0].arguments == {"path": "templates/login.html"}
    assert str(first.source) == "messages[2].content[0]"
    assert str(second.source) == "messages[2].content[1]"
    assert first.tool_call_id == call.tool_calls[0].id
    assert isinstance(second.content, list) and isinstance(second.content[1], ImagePart)
    assert second.content[1].media_type == "image/png" and second.content[1].data
    thinking = call.content[0] if isinstance(call.content, list) else None
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature == "EqQBCkgIBRABGAIiQHnPeZ4iKk0Q6x8lJ2cXrRk1x7FhU8m9yW3i"
    assert isinstance(reply.content, list) and isinstance(reply.content[0], OtherPart)
    assert reply.content[0].kind == "redacted_thinking"


def test_a_user_message_keeps_its_written_order() -> None:
    """``[text, tool_result]`` is what Anthropic rejects (A1a): it reads as the text, then the
    result, never silently reordered into the valid ``[tool_result, text]``."""
    t = suture.load_file(BROKEN)
    roles = [(m.role, str(m.source)) for m in t.messages]
    assert roles[2:4] == [("user", "$[2]"), ("tool", "$[2].content[1]")]
    assert t.messages[2].content == [
        TextPart("stop, use tox instead", {"type": "text", "text": "stop, use tox instead"})
    ]
    assert t.messages[-1].is_error is True
    assert "A1a" in {v.rule for v in check(t.messages, "anthropic")}
    # The repair puts the results first (one made up for the call with none); written back, that
    # record holds its blocks with the results leading.
    result = repair(t.messages)
    moved = [c for c in result.changes if c.kind is ChangeKind.MOVED_RESULT]
    assert [c.input_index for c in moved] == [3]
    record = orjson.loads(dump(result.messages, t))[2]
    assert [b["type"] for b in record["content"]] == ["tool_result", "tool_result", "text"]
    assert "A1a" not in {v.rule for v in check(result.messages, "anthropic")}


@pytest.mark.parametrize(
    "content",
    [
        [TEXT, RESULT],
        [RESULT, TEXT],
        [TEXT, RESULT, TEXT],
        [RESULT, TEXT, RESULT],
        [RESULT, RESULT, TEXT],
    ],
    ids=["text-result", "result-text", "text-result-text", "result-text-result", "results-text"],
)
def test_a_record_read_in_pieces_is_written_back_as_it_was(content: list[dict[str, object]]) -> None:
    value = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
        {"role": "user", "content": content, "extra": 1},
    ]
    t = load_bytes(orjson.dumps(value))
    kinds = [("tool" if b["type"] == "tool_result" else "user") for b in content]
    pieces = [k for n, k in enumerate(kinds) if n == 0 or k == "tool" or kinds[n - 1] != k]
    assert [m.role for m in t.messages[2:]] == pieces
    assert orjson.loads(dump(t.messages, t)) == value


def test_jsonl_messages_have_line_sources() -> None:
    lines = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]},
    ]
    data = b"".join(orjson.dumps(r) + b"\n" for r in lines)
    t = load_bytes(data)
    assert t.format == "messages"
    assert [str(m.source) for m in t.messages] == ["line 1", "line 2", "line 3, content[0]"]
    assert dump(t.messages, t) == data


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": 5}]}], "$[0].content[0].tool_use_id"),
        ([{"role": "assistant", "content": [{"type": "tool_use", "id": ["x"]}]}], "$[0].content[0].id"),
        ([{"role": "user", "content": [{"type": "tool_result", "is_error": "yes"}]}], "is_error"),
        ([{"role": "user", "content": 42}, {"role": "assistant", "content": [{"type": "thinking"}]}], "$[0].content"),
        ({"system": 7, "messages": []}, "system"),
        ([{"content": "no role"}, {"role": "user", "content": [{"type": "tool_result"}]}], "$[0]: message has no role"),
    ],
)
def test_malformed_records_are_named(value: Any, words: str) -> None:
    with pytest.raises(InputError) as info:
        load_bytes(orjson.dumps(value), "messages")
    assert words in str(info.value)
    assert "\n" not in str(info.value)


# -- dump and round trip ---------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_round_trip_keeps_the_json_value_keys_and_order(path: Path) -> None:
    t = suture.load_file(path)
    back = orjson.loads(dump(t.messages, t))
    assert ordered(back) == ordered(orjson.loads(path.read_bytes()))


def test_clean_sample_needs_no_repair_and_dumps_unchanged() -> None:
    t = suture.load_file(CLEAN)
    result = repair(t.messages)
    assert result.changes == []
    assert ordered(orjson.loads(dump(result.messages, t))) == ordered(orjson.loads(CLEAN.read_bytes()))


def test_results_and_the_rest_of_a_split_record_join_again_in_another_key_order() -> None:
    record = {
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}, {"type": "text", "text": "go"}]
    }
    record["role"] = "user"
    value = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
        record,
    ]
    t = load_value(value)
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "user"]
    assert ordered(orjson.loads(dump(t.messages, t))) == ordered(value)


# -- repair ----------------------------------------------------------------------------------


def test_repair_of_the_broken_sample_changes_only_what_its_records_say() -> None:
    original = orjson.loads(BROKEN.read_bytes())
    t = suture.load_file(BROKEN)
    result = repair(t.messages)
    kinds = [(c.kind, c.input_index) for c in result.changes]
    # The result written after the person's text moves before it (Anthropic's rule A1a).
    assert kinds == [
        (ChangeKind.SYNTHETIC_INTERRUPT, 1),
        (ChangeKind.MOVED_RESULT, 3),
        (ChangeKind.RENAMED_ID, 4),
        (ChangeKind.ORPHAN_NOTE, 7),
    ]
    out = orjson.loads(dump(result.messages, t))
    first_call, second_call = "toolu_01A2b3C4d5E6f7G8h9J0kLmN", "toolu_01P9q8R7s6T5u4V3w2X1yZaB"
    # Untouched records are written back as they were.
    assert out[0] == original[0] and out[1] == original[1] and out[5] == original[5]
    # Results lead the user message after the assistant: the synthetic one first (call order),
    # then the real one, then the person's text that had come before them.
    assert out[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": first_call, "content": interrupted_text("bash", False)},
            {"type": "tool_result", "tool_use_id": second_call, "content": "[tool:pytest]\naddopts = -ra"},
            {"type": "text", "text": "stop, use tox instead"},
        ],
    }
    # The restarted id is renamed in the call and in its result, nothing else.
    renamed = f"{first_call}_1"
    assert out[3] == {**original[3], "content": [{**original[3]["content"][0], "id": renamed}]}
    assert out[4] == {"role": "user", "content": [{**original[4]["content"][0], "tool_use_id": renamed}]}
    # The late result is a note in user text.
    assert out[6] == {"role": "user", "content": f"{note_text('toolu_01ZzYyXxWwVvUuTtSsRrQqPp')}\nprocess killed"}
    assert len(out) == 7
    again = load_value(out)
    assert repair(again.messages).changes == []


def test_thinking_blocks_stay_byte_exact_through_repair() -> None:
    t = suture.load_file(CLEAN)
    messages = list(t.messages)
    # Break the history: drop the results, so repair has to add synthetic ones.
    del messages[3:5]
    out = orjson.loads(dump(repair(messages).messages, t))
    source = orjson.loads(CLEAN.read_bytes())["messages"]
    assert out["messages"][1]["content"][0] == source[1]["content"][0]
    assert out["messages"][3]["content"][0] == source[3]["content"][0]
    assert [b["type"] for b in out["messages"][2]["content"]] == ["tool_result", "tool_result"]


# -- conversion ------------------------------------------------------------------------------


def test_chat_converts_to_messages_with_results_in_one_user_message() -> None:
    chat = Path(__file__).resolve().parent.parent / "sample_sessions" / "chat" / "worked-example.json"
    t = suture.load_file(chat)
    result = repair(t.messages)
    out = orjson.loads(dump(result.messages, t, to="messages"))
    assert [r["role"] for r in out] == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert [b["type"] for b in out[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert out[1]["content"][0] == {"type": "tool_use", "id": "x", "name": "read_file", "input": {"path": "Makefile"}}
    back = load_value(out)
    assert back.format == "messages"
    assert repair(back.messages).changes == []


def test_chat_system_messages_become_the_top_level_system() -> None:
    t = load_value([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    assert t.format == "chat"
    assert orjson.loads(dump(t.messages, t, to="messages")) == {
        "system": "be brief",
        "messages": [{"role": "user", "content": "hi"}],
    }


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ([Message("user", "hi"), Message("system", "late")], "a system message after the conversation"),
        ([Message("assistant", [ThinkingPart("hmm")])], "thinking without a signature"),
        ([Message("assistant", None, (ToolCall("c", "f", "{oops"),))], "not valid JSON"),
        ([Message("user", [OtherPart({"type": "input_audio"}, "input_audio")])], "a input_audio part"),
    ],
)
def test_what_anthropic_cannot_express_is_an_input_error(messages: list[Message], words: str) -> None:
    with pytest.raises(InputError) as info:
        dump(messages, Transcript(messages, "chat"), to="messages")
    assert words in str(info.value)


def test_converting_to_a_format_that_drops_thinking_says_so() -> None:
    t = suture.load_file(CLEAN)
    with pytest.raises(InputError) as info:
        dump(t.messages, t, to="chat")
    message = str(info.value)
    assert message.startswith("chat cannot express this history: message 2 (assistant, messages[1])")
    assert message.endswith("would write its thinking as text")


@pytest.mark.parametrize("said", ["", "\n\n"])
def test_thinking_before_no_text_is_not_called_a_join(said: str) -> None:
    # The thinking written as text starts with what the message said (nothing, or two line
    # breaks as Claude Code writes them): that is no sign the next message was read into it.
    thought = Message("assistant", [ThinkingPart("plan it", signature="sig"), TextPart(said)])
    messages = [Message("user", "hi"), thought, Message("user", "go on")]
    with pytest.raises(InputError) as info:
        dump(messages, Transcript(messages, "messages"), to="chat")
    assert str(info.value).endswith("message 1 (assistant) would write its thinking as text")


def test_a_message_read_into_the_one_before_is_called_a_join() -> None:
    # Two assistant messages in a row are read back from Responses items as one.
    messages = [Message("user", "hi"), Message("assistant", "one"), Message("assistant", "two")]
    with pytest.raises(InputError) as info:
        dump(messages, Transcript(messages, "chat"), to="responses")
    assert "message 1 (assistant) would be joined with the message after it" in str(info.value)


# -- properties ------------------------------------------------------------------------------

_IDS = ("toolu_01", "toolu_02", "x", "", "x_1")
_text = st.sampled_from(("fix it", "2 failed", "é ✓ 中", " ", "done"))
_parts = st.one_of(
    st.builds(TextPart, _text),
    st.builds(
        lambda d: ImagePart({"type": "image", "data": d, "media_type": "image/png"}, "image/png"), st.just("AAAA")
    ),
)
_signed = st.builds(lambda t: ThinkingPart(t, signature="EqQBsig"), _text)
_content = st.one_of(_text, st.lists(_parts, min_size=1, max_size=3))
_calls = st.lists(
    st.builds(ToolCall, st.sampled_from(_IDS), st.sampled_from(("read", "bash")), st.just({"path": "a"})),
    min_size=1,
    max_size=3,
).map(tuple)
_expressible = st.one_of(
    st.builds(lambda c: Message("user", c), _content),
    st.builds(lambda c: Message("assistant", c), _content),
    st.builds(
        lambda th, c, calls: Message("assistant", [*th, *c], calls),
        st.lists(_signed, max_size=1),
        st.lists(_parts, max_size=2),
        _calls,
    ),
    st.builds(
        lambda i, c, e: Message("tool", c, tool_call_id=i, is_error=e), st.sampled_from(_IDS), _content, st.booleans()
    ),
)
_history = st.tuples(
    st.lists(st.builds(lambda c: Message("system", c), _text), max_size=2), st.lists(_expressible, max_size=12)
)

PROPS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(_history)
def test_expressible_histories_come_back_from_a_dump(parts: tuple[list[Message], list[Message]]) -> None:
    messages = [*parts[0], *parts[1]]
    data = ADAPTER.dump(messages, Transcript(messages, "neutral"))
    back = ADAPTER.load(parse_document(data))
    assert essences(back.messages) == essences(messages)
    # And the dump of what came back is the same bytes: the records are now its own.
    assert ADAPTER.dump(back.messages, back) == data


@PROPS
@given(histories())
def test_any_history_either_comes_back_or_says_what_it_cannot_express(messages: list[Message]) -> None:
    try:
        data = dump(messages, Transcript(messages, "chat"), to="messages")
    except InputError as e:
        assert "cannot express" in str(e)
        return
    back = ADAPTER.load(parse_document(data))
    assert essences(back.messages) == essences(messages)


@PROPS
@given(histories())
def test_repaired_histories_dump_to_valid_anthropic_order(messages: list[Message]) -> None:
    repaired = repair(messages).messages
    try:
        data = ADAPTER.dump(repaired, Transcript(repaired, "chat"))
    except InputError:
        return
    records = orjson.loads(data)
    records = records["messages"] if isinstance(records, dict) else records
    for i, record in enumerate(records):
        if record["role"] != "assistant" or not isinstance(record["content"], list):
            continue
        ids = [b["id"] for b in record["content"] if b.get("type") == "tool_use"]
        if not ids:
            continue
        nxt = records[i + 1]["content"]
        kinds = [b.get("type") for b in nxt]
        # Provider rule A1/A1a: every call's result is in the next message, as its leading blocks.
        assert kinds[: len(ids)] == ["tool_result"] * len(ids)
        assert "tool_result" not in kinds[len(ids) :]
        assert [b["tool_use_id"] for b in nxt[: len(ids)]] == ids


# -- near-valid files: one thing broken anywhere loads or says why, and what loads writes back ----

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(("type", "id", "text", "content")), inner, max_size=3)
    ),
    max_leaves=8,
)


_CLEAN_VALUE = orjson.loads(CLEAN.read_bytes())
_CLEAN_PATHS = [p for p in key_paths(_CLEAN_VALUE) if p]


@PROPS
@given(st.sampled_from(_CLEAN_PATHS), _json, st.booleans())
def test_near_valid_requests_load_or_say_why(path: tuple[Any, ...], value: Any, drop: bool) -> None:
    doc = orjson.loads(orjson.dumps(_CLEAN_VALUE))
    break_at(doc, path, value, drop)
    try:
        t = load_bytes(orjson.dumps(doc), "messages")
    except InputError as e:
        assert "\n" not in str(e)
        return
    result = repair(t.messages)
    data = dump(result.messages, t)
    again = load_bytes(data, "messages")
    assert essences(again.messages) == essences(result.messages)


def _at(message: Message) -> int:
    """The index of the file's message a neutral message was read from (``$[3]``, ``$[3].content[1]``)."""
    assert message.source is not None and message.source.pointer is not None
    return int(message.source.pointer.split("[", 1)[1].split("]", 1)[0])


@pytest.mark.parametrize("text_first", [True, False])
def test_anthropic_counts_a_user_message_with_text_before_its_results_once(text_first: bool) -> None:
    """A user message whose text comes before its results is one message of the file, as
    Anthropic counts it: the messages after it keep the file's own numbers in messages.N."""
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    text = {"type": "text", "text": "and also"}
    body = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [text, result] if text_first else [result, text]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "ok"}]},
    ]
    transcript = load_value({"model": "m", "max_tokens": 1, "messages": body})
    found = {v.rule: v for v in check(transcript.messages, "anthropic")}
    for rule, at in (("A3", 3), ("A2", 4)):
        v = found[rule]
        assert (v.wire_index, _at(transcript.messages[v.index])) == (at, at), v
        assert v.where.startswith(f"messages.{at}.")
    assert ("A1a" in found) == text_first  # results after text in one message: they must lead it
