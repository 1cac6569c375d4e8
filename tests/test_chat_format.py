"""The OpenAI Chat Completions adapter (``chat``): the three shapes, loading, dumping, round trips."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from suture.formats import detect, load_bytes
from suture.formats.chat import ADAPTER as CHAT
from suture.io import InputError, parse_document
from suture.model import ImagePart, Message, OtherPart, TextPart, Transcript
from suture.repair import interrupted_text, repair
from tests.strategies import NO_DEADLINE, histories

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

CLEAN: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a careful coding agent."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "The login page looks broken, see the screenshot."},
            {"type": "image_url", "image_url": {"url": PNG, "detail": "low"}},
        ],
        "name": "dana",
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "app.css"}'},
            },
            {"id": "call_a2", "type": "function", "function": {"name": "grep", "arguments": "{not json"}},
        ],
        "reasoning_content": "Look at the stylesheet first.",
    },
    {"role": "tool", "tool_call_id": "call_a1", "content": ".login { display: nonee; }"},
    {"role": "tool", "tool_call_id": "call_a2", "content": [{"type": "text", "text": "app.css:1"}]},
    {"role": "assistant", "content": "Typo in `display`: fixed.", "refusal": None},
]

BODY: dict[str, Any] = {
    "model": "gpt-4.1",
    "temperature": 0,
    "messages": CLEAN,
    "tools": [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}],
    "tool_choice": "auto",
}


def load(value: Any) -> Transcript:
    return load_bytes(orjson.dumps(value))


def dump_value(messages: list[Message], transcript: Transcript) -> Any:
    return orjson.loads(CHAT.dump(messages, transcript))


def jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


# -- the three shapes ----------------------------------------------------------------------------


def test_array_round_trip() -> None:
    transcript = load(CLEAN)
    assert transcript.format == "chat"
    assert transcript.meta["shape"] == "array"
    assert [m.role for m in transcript.messages] == [r["role"] for r in CLEAN]
    assert dump_value(transcript.messages, transcript) == CLEAN


def test_body_round_trip_keeps_other_keys_and_their_order() -> None:
    transcript = load(BODY)
    assert transcript.meta["shape"] == "body"
    out = dump_value(transcript.messages, transcript)
    assert out == BODY
    assert list(out) == list(BODY)


def test_body_messages_key_keeps_its_place_after_a_repair() -> None:
    body = {"model": "m", "messages": [*CLEAN[:3], CLEAN[5]], "stream": False}
    transcript = load(body)
    result = repair(transcript.messages)
    out = dump_value(result.messages, transcript)
    assert list(out) == ["model", "messages", "stream"]
    assert out["model"] == "m" and out["stream"] is False
    assert len(out["messages"]) == 6


def test_jsonl_round_trip() -> None:
    transcript = load_bytes(jsonl(CLEAN))
    assert transcript.meta["shape"] == "jsonl"
    assert [m.source.line if m.source else None for m in transcript.messages] == [1, 2, 3, 4, 5, 6]
    data = CHAT.dump(transcript.messages, transcript)
    assert [orjson.loads(line) for line in data.splitlines()] == CLEAN
    assert data.endswith(b"\n")


def test_pretty_and_compact_follow_the_input() -> None:
    pretty = load_bytes(orjson.dumps(CLEAN, option=orjson.OPT_INDENT_2))
    compact = load_bytes(orjson.dumps(CLEAN))
    assert b"\n  " in CHAT.dump(pretty.messages, pretty)
    assert CHAT.dump(compact.messages, compact).count(b"\n") == 1


def test_sources_point_into_the_file() -> None:
    assert [str(m.source) for m in load(CLEAN).messages][:2] == ["$[0]", "$[1]"]
    assert str(load(BODY).messages[3].source) == "messages[3]"


def test_detected_for_certain_when_calls_are_present() -> None:
    assert detect(parse_document(orjson.dumps(CLEAN))).adapter.name == "chat"


# -- fields --------------------------------------------------------------------------------------


def test_calls_results_and_arguments_as_given() -> None:
    messages = load(CLEAN).messages
    calls = messages[2].tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_a1", "read_file", '{"path": "app.css"}'),
        ("call_a2", "grep", "{not json"),
    ]
    assert messages[3].tool_call_id == "call_a1"
    assert messages[3].is_result


def test_arguments_that_are_not_a_string_are_kept_too() -> None:
    records = [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": [1]}}}]}]
    transcript = load(records)
    assert transcript.messages[0].tool_calls[0].arguments == {"a": [1]}
    assert dump_value(transcript.messages, transcript) == records


def test_missing_ids_and_names() -> None:
    records = [
        {"role": "assistant", "tool_calls": [{"type": "function", "function": {"arguments": "{}"}}]},
        {"role": "tool", "content": "out"},
    ]
    messages = load(records).messages
    assert (messages[0].tool_calls[0].id, messages[0].tool_calls[0].name) == ("", None)
    assert messages[1].tool_call_id == ""


def test_image_url_parts() -> None:
    records = [
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": PNG}},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            ],
        }
    ]
    transcript = load(records)
    content = transcript.messages[0].content
    assert isinstance(content, list)
    first, second, third = content
    assert isinstance(first, ImagePart) and first.media_type == "image/png" and first.size == len(PNG.split(",", 1)[1])
    assert isinstance(second, ImagePart) and second.media_type is None
    assert isinstance(third, OtherPart) and third.kind == "input_audio"
    assert dump_value(transcript.messages, transcript) == records


def test_image_in_an_orphan_survives_as_a_note() -> None:
    records = [
        {"role": "user", "content": "hi"},
        {
            "role": "tool",
            "tool_call_id": "gone",
            "content": [{"type": "text", "text": "shot"}, {"type": "image_url", "image_url": {"url": PNG}}],
        },
    ]
    transcript = load(records)
    out = dump_value(repair(transcript.messages).messages, transcript)
    assert out[1] == {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "A result for tool call gone arrived outside its turn and is kept here as a note:",
            },
            {"type": "text", "text": "shot"},
            {"type": "image_url", "image_url": {"url": PNG}},
        ],
    }


def test_text_parts_are_text() -> None:
    content = load(CLEAN).messages[4].content
    assert isinstance(content, list) and isinstance(content[0], TextPart) and content[0].text == "app.css:1"


# -- a repair changes only what its records say ---------------------------------------------------


def test_repaired_output_differs_only_where_records_say() -> None:
    records: list[dict[str, Any]] = [
        {"role": "user", "content": "fix the build", "name": "dev"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "read_file", "arguments": "{}"}, "extra": 1},
                {"id": "y", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}},
            ],
        },
        {"role": "user", "content": "also lint"},
        {"role": "tool", "tool_call_id": "y", "content": "2 failed", "name": "run_tests"},
        {"role": "assistant", "content": ""},
        {"role": "tool", "tool_call_id": "x", "content": "<contents>"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
        },
        {"role": "assistant", "content": "done"},
        {"role": "tool", "tool_call_id": "z", "content": "late"},
    ]
    check_differs_only_where_records_say(records)


@given(histories())
@NO_DEADLINE
def test_repaired_output_differs_only_where_records_say_for_any_history(messages: list[Message]) -> None:
    check_differs_only_where_records_say(orjson.loads(CHAT.dump(messages, Transcript([], "neutral"))))


def check_differs_only_where_records_say(records: list[dict[str, Any]]) -> None:
    transcript = CHAT.load(parse_document(orjson.dumps(records)))
    result = repair(transcript.messages)
    out = dump_value(result.messages, transcript)
    notes = {c.output_index for c in result.changes if c.kind == "orphan_note"}
    synthetic = {c.output_index for c in result.changes if c.kind == "synthetic_interrupt"}
    renamed = {(c.input_index, c.call_id, c.new_id) for c in result.changes if c.kind == "renamed_id"}
    for j, record in enumerate(out):
        i = result.origin[j]
        if i is None:
            assert j in synthetic
            assert set(record) == {"role", "tool_call_id", "content"}
            assert record["role"] == "tool"
            continue
        original = records[i]
        if j in notes:
            assert set(record) == {"role", "content"} and record["role"] == "user"
            continue
        if original.get("role") == "tool":
            assert {k: v for k, v in record.items() if k != "tool_call_id"} == {
                k: v for k, v in original.items() if k != "tool_call_id"
            }
            continue
        if original.get("tool_calls"):
            assert {k: v for k, v in record.items() if k != "tool_calls"} == {
                k: v for k, v in original.items() if k != "tool_calls"
            }
            for call_in, call_out in zip(original["tool_calls"], record["tool_calls"], strict=True):
                assert {k: v for k, v in call_in.items() if k != "id"} == {
                    k: v for k, v in call_out.items() if k != "id"
                }
                if call_in.get("id") != call_out["id"]:
                    assert (i, call_in.get("id") or "", call_out["id"]) in renamed
            continue
        assert record == original
    # Every renamed call shows up renamed, and a paired result carries its call's final id.
    for j, m in enumerate(result.messages):
        if m.role == "tool" and j not in synthetic:
            assert out[j]["tool_call_id"] == m.tool_call_id


def test_untouched_records_are_written_back_as_read() -> None:
    transcript = load(CLEAN)
    result = repair(transcript.messages)
    assert result.changes == []
    assert [m.raw for m in result.messages] == CLEAN
    assert all(m is r for m, r in zip(result.messages, transcript.messages, strict=True))


def test_synthetic_result_written_exactly() -> None:
    records = [{"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "bash"}}]}]
    transcript = load(records)
    out = dump_value(repair(transcript.messages).messages, transcript)
    assert out[1] == {"role": "tool", "tool_call_id": "c", "content": interrupted_text("bash", False)}


# -- bad input: one clear line with a pointer ----------------------------------------------------

GOOD_CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "f"}}]}


@pytest.mark.parametrize(
    ("records", "pointer", "words"),
    [
        ([{"role": "user", "content": 5}], "$[0].content", "got a number"),
        ([{"role": "user", "content": {"text": "hi"}}], "$[0].content", "got an object"),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": {"a": 1}}], "$[1].tool_calls", "list"),
        (
            [{"role": "assistant", "tool_calls": [{"id": 3, "function": {"name": "f"}}]}],
            "$[0].tool_calls[0].id",
            "got a number",
        ),
        ([GOOD_CALL, {"role": "tool", "tool_call_id": 7, "content": "x"}], "$[1].tool_call_id", "got a number"),
        ([GOOD_CALL, {"content": "no role"}], "$[1]", "no role"),
        ([GOOD_CALL, {"role": None, "content": "null role"}], "$[1]", "no role"),
        ([{"role": "user", "content": "a"}, {"role": 3, "content": "x"}], "$[1]", "role"),
        ([GOOD_CALL, "a string"], "$[1]", "must be an object"),
        (
            [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": 5}}]}],
            "$[0].tool_calls[0].function.name",
            "string",
        ),
        ([{"role": "assistant", "tool_calls": ["c"]}], "$[0].tool_calls[0]", "must be an object"),
    ],
    ids=[
        "content-number",
        "content-object",
        "tool_calls-object",
        "call-id-integer",
        "tool_call_id-integer",
        "role-missing",
        "role-null",
        "role-number",
        "message-not-object",
        "name-number",
        "call-not-object",
    ],
)
def test_wrong_types_are_input_errors_with_a_pointer(records: list[Any], pointer: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        load(records)
    message = str(caught.value)
    assert message.startswith(pointer + ":") or f"{pointer}:" in message, message
    assert words in message
    assert "\n" not in message


def test_a_lone_message_without_a_role_is_named() -> None:
    with pytest.raises(InputError) as caught:
        load([{"content": "hi"}])
    assert "$[0]" in str(caught.value) and "role" in str(caught.value)


def test_pointer_in_a_body_and_in_jsonl() -> None:
    with pytest.raises(InputError, match=r"messages\[1\]\.content"):
        load({"model": "m", "messages": [GOOD_CALL, {"role": "tool", "tool_call_id": "c", "content": 1.5}]})
    with pytest.raises(InputError, match=r"line 2\.tool_calls"):
        load_bytes(jsonl([{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": "c"}]))


@pytest.mark.parametrize(
    "record",
    [
        {"role": "assistant", "content": None, "refusal": "I can't help with deleting production data."},
        {"role": "assistant", "content": None, "function_call": {"name": "read_file", "arguments": "{}"}},
        {"role": "assistant", "content": "", "audio": {"id": "audio_abc123"}},
        {"role": "assistant", "content": " ", "reasoning_content": "The user wants a summary."},
    ],
    ids=["refusal", "legacy-function-call", "audio", "reasoning"],
)
def test_an_assistant_message_that_said_something_outside_content_is_no_placeholder(record: dict[str, Any]) -> None:
    records = [{"role": "user", "content": "hi"}, record]
    transcript = load(records)
    result = repair(transcript.messages)
    assert result.changes == []
    assert dump_value(result.messages, transcript) == records


def test_a_real_placeholder_is_still_dropped() -> None:
    records = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "refusal": None}]
    transcript = load(records)
    result = repair(transcript.messages)
    assert [c.kind for c in result.changes] == ["dropped_placeholder"]
    assert dump_value(result.messages, transcript) == records[:1]


def test_missing_and_null_call_ids_are_written_back_as_read() -> None:
    records = [
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "a"}}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": None, "function": {"name": "b"}}]},
    ]
    transcript = load(records)
    assert dump_value(transcript.messages, transcript) == records
    out = dump_value(repair(transcript.messages).messages, transcript)
    assert [c["id"] for c in out[0]["tool_calls"]] == ["call_0_0"]
    assert {k: v for k, v in out[0]["tool_calls"][0].items() if k != "id"} == records[0]["tool_calls"][0]


def test_a_part_whose_type_is_not_a_string_is_kept() -> None:
    # Found by fuzzing: a list as a part's "type" once broke detection.
    records = [{"role": "user", "content": [{"type": []}, {"type": 3}, "bare string"]}]
    transcript = load(records)
    content = transcript.messages[0].content
    assert isinstance(content, list) and all(isinstance(p, OtherPart) for p in content)
    assert dump_value(transcript.messages, transcript) == records


# -- round trips over generated chat records -----------------------------------------------------

_KEYS = st.sampled_from(("name", "x_extra", "metadata", "refusal", "annotations", "audio"))
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
_IDS = st.sampled_from(("", "a", "b", "a_1", "call_1_0"))
_PART = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=6)),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u}}, st.sampled_from((PNG, "https://x/a.png"))),
    st.builds(lambda d: {"type": "input_audio", "input_audio": {"data": d, "format": "wav"}}, st.text(max_size=4)),
)
_CONTENT = st.one_of(st.none(), st.text(max_size=10), st.lists(_PART, max_size=3))


def _call_record(call_id: str, name: str, arguments: str, omit_id: bool) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if not omit_id:
        call = {"id": call_id, **call}
    return call


_CALL = st.builds(
    _call_record, _IDS, st.sampled_from(("read_file", "bash")), st.sampled_from(("{}", "{bad", "")), st.booleans()
)


def _with_extras(record: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    return {**record, **{k: v for k, v in extras.items() if k not in record}}


_EXTRAS = st.dictionaries(_KEYS, _VALUES, max_size=2)
CHAT_RECORDS = st.one_of(
    st.builds(
        lambda r, c, e: _with_extras({"role": r, "content": c}, e),
        st.sampled_from(("user", "system", "developer", "assistant")),
        _CONTENT,
        _EXTRAS,
    ),
    st.builds(
        lambda c, calls, e: _with_extras({"role": "assistant", "content": c, "tool_calls": calls}, e),
        _CONTENT,
        st.lists(_CALL, min_size=1, max_size=3),
        _EXTRAS,
    ),
    st.builds(
        lambda i, c, e: _with_extras({"role": "tool", "tool_call_id": i, "content": c}, e),
        _IDS,
        st.one_of(st.text(max_size=10), st.lists(_PART, max_size=2)),
        _EXTRAS,
    ),
)


@given(st.lists(CHAT_RECORDS, max_size=10), st.sampled_from(("array", "body", "jsonl")))
@NO_DEADLINE
def test_any_chat_file_round_trips_and_repairs_only_what_records_say(records: list[Any], shape: str) -> None:
    if shape == "jsonl" and records:
        data = jsonl(records)
    elif shape == "body":
        data = orjson.dumps({"model": "m", "messages": records, "tools": []})
    else:
        data = orjson.dumps(records)
    transcript = CHAT.load(parse_document(data))
    out = CHAT.dump(transcript.messages, transcript)
    if shape == "jsonl" and records:
        assert [orjson.loads(line) for line in out.splitlines()] == records
    else:
        assert orjson.loads(out) == orjson.loads(data)
    if shape == "array":
        check_differs_only_where_records_say(records)
