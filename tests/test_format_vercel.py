"""Vercel AI SDK ModelMessage lists: detection, load, dump, round trip and repair (v5 and v4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suture.formats import CERTAIN, PLAUSIBLE, detect, dump, load_bytes, load_file
from suture.formats.vercel import ADAPTER
from suture.io import InputError, parse_document
from suture.model import Message, ToolCall, Transcript, text_of
from suture.repair import ChangeKind, repair
from suture.validity import violations
from tests.helpers.documents import exercise_near_valid, json_values
from tests.strategies import histories

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "vercel"


def _load(value: Any) -> Transcript:
    return load_bytes(orjson.dumps(value), "vercel")


def tc(cid: str, name: str = "weather", **extra: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {"city": "Paris"}, **extra}


def tr(cid: str, value: Any = "ok", name: str = "weather") -> dict[str, Any]:
    return {"type": "tool-result", "toolCallId": cid, "toolName": name, "output": {"type": "text", "value": value}}


def _original(path: Path) -> Any:
    doc = parse_document(path.read_bytes())
    return doc.value if doc.kind == "json" else [v for _, v in doc.records]


# -- detection ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_samples_are_detected_as_vercel(path: Path) -> None:
    detection = detect(parse_document(path.read_bytes()))
    assert detection.adapter.name == "vercel"
    assert detection.score == CERTAIN


def test_plain_role_content_message_stays_with_chat() -> None:
    doc = parse_document(orjson.dumps([{"role": "user", "content": "hi"}]))
    assert ADAPTER.sniff(doc) == PLAUSIBLE
    assert detect(doc).adapter.name == "chat"


def test_ai_sdk_image_parts_decide_for_vercel() -> None:
    value = [{"role": "user", "content": [{"type": "image", "image": "AAAA", "mediaType": "image/png"}]}]
    assert detect(parse_document(orjson.dumps(value))).adapter.name == "vercel"


@pytest.mark.parametrize(
    "value",
    [
        [{"role": "assistant", "content": None, "tool_calls": []}],
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
        [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}],
        [{"role": "toolResult", "toolCallId": "t", "content": []}],
        [{"role": "user", "parts": [{"text": "hi"}]}],
    ],
)
def test_other_formats_are_not_vercel(value: Any) -> None:
    assert ADAPTER.sniff(parse_document(orjson.dumps(value))) == 0


# -- load -----------------------------------------------------------------------------------------


def test_v5_sample_loads() -> None:
    t = load_file(SAMPLES / "clean-v5.json")
    assert [m.role for m in t.messages] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = t.messages[2]
    assert [c.id for c in turn.tool_calls] == ["call_WqN3vR8tYp2LmK5x", "call_Hb6sJ1dFz9QeU4cA"]
    assert turn.tool_calls[1].arguments == {"accountId": "acct_5521", "month": "2026-10"}
    assert [p.type for p in turn.content or []] == ["thinking", "text"]
    assert [str(m.source) for m in t.messages[3:5]] == ["$[3].content[0]", "$[3].content[1]"]
    assert [m.name for m in t.messages[3:5]] == ["getInvoice", "getUsage"]
    assert text_of(t.messages[4].content).startswith("compute: 3,104 vCPU-hours")
    image = t.messages[1].content
    assert isinstance(image, list) and image[1].type == "image" and image[1].media_type == "image/png"
    assert repair(t.messages).changes == []
    assert violations(t.messages) == []


def test_jsonl_sources_are_line_numbers() -> None:
    t = load_file(SAMPLES / "broken-restarted-ids.jsonl")
    assert [str(m.source) for m in t.messages][:5] == ["line 1", "line 2", "line 3", "line 4", "line 5, content[0]"]


def test_v4_args_and_result() -> None:
    t = load_file(SAMPLES / "broken-v4-missing-result.json")
    assert t.messages[1].tool_calls[0].arguments == {"city": "Paris"}
    assert text_of(t.messages[2].content) == '{"temperature":21,"conditions":"sunny"}'


def test_provider_executed_calls_are_not_waiting_for_a_result() -> None:
    search = tc("ws_1", "web_search", providerExecuted=True)
    done = {**tr("ws_1", "results", "web_search"), "providerExecuted": True}
    t = _load([{"role": "user", "content": "find"}, {"role": "assistant", "content": [search, done]}])
    assert t.messages[1].tool_calls == ()
    assert repair(t.messages).changes == []


def test_error_outputs_are_flagged() -> None:
    t = _load(
        [
            {"role": "assistant", "content": [tc("a")]},
            {"role": "tool", "content": [{**tr("a"), "output": {"type": "error-text", "value": "boom"}}]},
        ]
    )
    assert t.messages[1].is_error is True and text_of(t.messages[1].content) == "boom"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": 5}]}], r"content\[0\]\.toolCallId"),
        ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "a", "toolName": 1}]}], "toolName"),
    ],
)
def test_malformed_parts_are_named(value: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        _load(value)


# -- dump and round trip --------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_round_trip_gives_the_same_json_value_and_key_order(path: Path) -> None:
    t = load_file(path)
    data = dump(t.messages, t)
    again = parse_document(data)
    value = again.value if again.kind == "json" else [v for _, v in again.records]
    assert again.kind == parse_document(path.read_bytes()).kind
    assert value == _original(path)
    assert orjson.dumps(value) == orjson.dumps(_original(path))


def test_jsonl_is_written_back_byte_for_byte() -> None:
    path = SAMPLES / "broken-restarted-ids.jsonl"
    t = load_file(path)
    assert dump(t.messages, t) == path.read_bytes()


# -- repair ---------------------------------------------------------------------------------------


def test_broken_jsonl_sample_repairs() -> None:
    t = load_file(SAMPLES / "broken-restarted-ids.jsonl")
    result = repair(t.messages)
    assert sorted(str(c.kind) for c in result.changes) == [
        "dropped_placeholder",
        "moved_result",
        "orphan_note",
        "renamed_id",
        "synthetic_interrupt",
    ]
    lines = [orjson.loads(line) for line in dump(result.messages, t).splitlines()]
    assert [m["role"] for m in lines] == ["system", "user", "assistant", "tool", "user", "assistant", "tool", "user"]
    # One tool message answers both calls of the first turn, in call order.
    assert [p["toolCallId"] for p in lines[3]["content"]] == [
        "toolu_01Fq8ZsK3mWnYt7RbV2cXh4L",
        "toolu_01Mx5PvD9kQsLr3TfW8aNe6J",
    ]
    assert lines[3]["content"][0]["output"]["value"].startswith("Interrupted before readFile returned a result.")
    assert lines[5]["content"][0]["toolCallId"] == "toolu_01Fq8ZsK3mWnYt7RbV2cXh4L_1"
    assert lines[6]["content"] == [
        {
            **_original(SAMPLES / "broken-restarted-ids.jsonl")[7]["content"][0],
            "toolCallId": "toolu_01Fq8ZsK3mWnYt7RbV2cXh4L_1",
        }
    ]
    note = lines[7]["content"]
    assert note[0] == {
        "type": "text",
        "text": "A result for tool call toolu_01Zz0QwE1rTy2UiO3pAs4DfG arrived outside its turn and is kept here as a note:",
    }
    assert note[1]["text"].startswith('{\n  "dependencies"')
    again = load_bytes(dump(result.messages, t), "vercel")
    assert violations(again.messages) == []
    assert repair(again.messages).changes == []


def test_v4_made_up_result_uses_the_v4_shape() -> None:
    t = load_file(SAMPLES / "broken-v4-missing-result.json")
    result = repair(t.messages)
    assert [c.kind for c in result.changes] == [ChangeKind.SYNTHETIC_INTERRUPT]
    data = orjson.loads(dump(result.messages, t))
    made_up = data[2]["content"][1]
    assert made_up["toolCallId"] == "call_9dXe4K" and made_up["toolName"] == "weather"
    assert made_up["result"].startswith("Interrupted before weather returned a result.")
    assert "output" not in made_up
    assert data[2]["content"][0] == _original(SAMPLES / "broken-v4-missing-result.json")[2]["content"][0]


def test_v5_made_up_result_is_a_text_output() -> None:
    t = _load([{"role": "assistant", "content": [tc("a")]}, {"role": "user", "content": "next"}])
    data = orjson.loads(dump(repair(t.messages).messages, t))
    assert data[1] == {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "a",
                "toolName": "weather",
                "output": {
                    "type": "text",
                    "value": "Interrupted before weather returned a result. It may have partly run: "
                    "check its effects before running it again.",
                },
            }
        ],
    }


# -- property: neutral histories written as ModelMessages and read back --------------------------

_ids = st.text(alphabet="abcdefghijk0123456789_", min_size=1, max_size=8)
_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)


@st.composite
def expressible_histories(draw: st.DrawFn) -> list[Message]:
    """Histories ModelMessages can say: any order of system, user and assistant messages, calls
    with object arguments, results with names."""
    messages: list[Message] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["user", "system", "text", "calls"]))
        if kind in ("user", "system"):
            messages.append(Message(kind, draw(_texts)))
        elif kind == "text":
            messages.append(Message("assistant", draw(_texts)))
        else:
            ids = draw(st.lists(_ids.filter(lambda i: i not in used), min_size=1, max_size=3, unique=True))
            used.update(ids)
            calls = tuple(ToolCall(i, draw(st.sampled_from(["read", "bash"])), {"n": 1}) for i in ids)
            messages.append(Message("assistant", draw(st.one_of(st.none(), _texts)), calls))
            names = {c.id: c.name for c in calls}
            for i in draw(st.permutations(ids)):
                messages.append(Message("tool", draw(_texts), tool_call_id=i, name=names[i]))
    return messages


def _essence(m: Message) -> tuple[Any, ...]:
    return (m.role, text_of(m.content), [(c.id, c.name, c.arguments) for c in m.tool_calls], m.tool_call_id, m.name)


@settings(max_examples=200, deadline=None)
@given(expressible_histories())
def test_dump_then_load_gives_the_history_back(messages: list[Message]) -> None:
    data = ADAPTER.dump(messages, Transcript([], "chat"))
    back = load_bytes(data, "vercel").messages
    assert [_essence(m) for m in back] == [_essence(m) for m in messages]


@settings(max_examples=150, deadline=None)
@given(histories())
def test_any_repaired_history_written_fresh_reads_back_valid(messages: list[Message]) -> None:
    repaired = repair(messages).messages
    data = ADAPTER.dump(repaired, Transcript([], "chat"))
    back = load_bytes(data, "vercel").messages
    assert violations(back) == []
    assert [c.id for m in back for c in m.tool_calls] == [c.id for m in repaired for c in m.tool_calls]


def test_extend_at_every_line_equals_a_full_load() -> None:
    path = SAMPLES / "broken-restarted-ids.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    whole = ADAPTER.load(parse_document(path.read_bytes()))
    for cut in range(1, len(lines)):
        before = ADAPTER.load(parse_document(b"".join(lines[:cut])))
        step = ADAPTER.extend(before, parse_document(path.read_bytes()), cut)
        assert step is not None
        after, changed = step
        assert after.messages == whole.messages and after.meta == whole.meta
        assert changed == len(before.messages)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(SAMPLES.iterdir())), st.data(), json_values, st.booleans())
def test_near_valid_samples_load_or_say_why(path: Path, data: st.DataObject, value: Any, drop: bool) -> None:
    exercise_near_valid(path, "vercel", data, value, drop)
