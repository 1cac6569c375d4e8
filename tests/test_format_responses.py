"""OpenAI Responses input items: detection, load, dump, round trip and repair."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suture.formats import CERTAIN, PLAUSIBLE, detect, dump, load_bytes, load_file
from suture.formats.responses import ADAPTER
from suture.io import InputError, parse_document
from suture.model import Message, TextPart, ThinkingPart, ToolCall, Transcript, text_of
from suture.repair import ChangeKind, repair
from suture.validity import violations
from tests.helpers.documents import assert_every_record_kept, exercise_near_valid, json_values
from tests.strategies import histories

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "responses"
CLEAN = SAMPLES / "clean-request.json"
BROKEN = SAMPLES / "broken-interrupted.json"


def _bytes(value: Any) -> bytes:
    return orjson.dumps(value)


def _load(value: Any) -> Transcript:
    return load_bytes(_bytes(value), "responses")


def fc(call_id: str, name: str = "shell", **extra: Any) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}", **extra}


def out(call_id: str, output: Any = "ok", kind: str = "function_call_output") -> dict[str, Any]:
    return {"type": kind, "call_id": call_id, "output": output}


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def reasoning(n: int) -> dict[str, Any]:
    return {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": f"gAAA{n}"}


# -- detection ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_samples_are_detected_as_responses(path: Path) -> None:
    detection = detect(parse_document(path.read_bytes()))
    assert detection.adapter.name == "responses"
    assert detection.score == CERTAIN


def test_plain_role_content_message_stays_with_chat() -> None:
    # {"role": "user", "content": "hi"} is valid Responses input too, but says nothing about it.
    doc = parse_document(_bytes([{"role": "user", "content": "hi"}]))
    assert ADAPTER.sniff(doc) == PLAUSIBLE
    assert detect(doc).adapter.name == "chat"
    assert "responses" in detect(doc).others


def test_a_typed_item_decides_for_responses() -> None:
    doc = parse_document(_bytes([{"role": "user", "content": "hi"}, fc("c1"), out("c1")]))
    assert detect(doc).adapter.name == "responses"


def test_request_body_with_input_is_certain() -> None:
    doc = parse_document(_bytes({"model": "gpt-5", "input": [{"role": "user", "content": "hi"}]}))
    assert ADAPTER.sniff(doc) == CERTAIN


@pytest.mark.parametrize(
    "value",
    [
        [{"role": "assistant", "content": None, "tool_calls": []}],  # chat
        [{"role": "tool", "tool_call_id": "c1", "content": "x"}],  # chat
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],  # chat / Anthropic parts
        [{"role": "user", "parts": [{"text": "hi"}]}],  # Gemini
        {"model": "claude", "messages": [{"role": "user", "content": "hi"}]},
        [1, 2],
    ],
)
def test_other_formats_are_not_responses(value: Any) -> None:
    assert ADAPTER.sniff(parse_document(_bytes(value))) == 0


# -- load -----------------------------------------------------------------------------------------


def test_clean_sample_loads_with_index_paths() -> None:
    t = load_file(CLEAN)
    assert t.format == "responses"
    roles = [m.role for m in t.messages]
    assert roles == ["developer", "user", "assistant", "tool", "tool", "assistant", "tool", "assistant", "user"]
    parallel = t.messages[2]
    assert [c.id for c in parallel.tool_calls] == ["call_7Hq2LmN4pR8sT1vX", "call_9Kd3MnP5qS2uV6wY"]
    assert [c.name for c in parallel.tool_calls] == ["read_file", "run_tests"]
    assert parallel.tool_calls[0].arguments == '{"path":"shop/cart.py"}'
    assert str(parallel.source) == "input[2..4]"
    assert isinstance(parallel.content, list) and isinstance(parallel.content[0], ThinkingPart)
    assert str(t.messages[3].source) == "input[5]"
    assert t.messages[3].tool_call_id == "call_7Hq2LmN4pR8sT1vX"
    custom = t.messages[5]
    assert custom.tool_calls[0].name == "apply_patch"
    assert custom.tool_calls[0].arguments.startswith("*** Begin Patch")
    assert "multiply price by quantity" in text_of(custom.content)
    image = t.messages[8].content
    assert isinstance(image, list) and image[1].type == "image" and image[1].media_type == "image/png"
    assert repair(t.messages).changes == []
    assert violations(t.messages) == []


def test_array_items_are_pointed_at_with_dollar() -> None:
    t = _load([user("hi"), fc("c1"), out("c1")])
    assert [str(m.source) for m in t.messages] == ["$[0]", "$[1]", "$[2]"]


def test_run_groups_reasoning_text_and_calls_in_order() -> None:
    items = [user("go"), reasoning(1), assistant("looking"), fc("a"), reasoning(2), fc("b"), out("a"), out("b")]
    t = _load(items)
    run = t.messages[1]
    assert run.role == "assistant"
    assert [c.id for c in run.tool_calls] == ["a", "b"]
    assert isinstance(run.content, list)
    assert [p.type for p in run.content] == ["thinking", "text", "thinking"]
    assert run.raw == items[1:6]


@pytest.mark.parametrize(
    ("call", "result", "name"),
    [
        (
            {"type": "custom_tool_call", "call_id": "k", "name": "apply_patch", "input": "diff"},
            "custom_tool_call_output",
            "apply_patch",
        ),
        (
            {
                "type": "local_shell_call",
                "call_id": "k",
                "id": "lsh_1",
                "action": {"type": "exec", "command": ["ls"]},
                "status": "completed",
            },
            "function_call_output",
            "local_shell",
        ),
        ({"type": "shell_call", "call_id": "k", "action": {"commands": ["ls"]}}, "shell_call_output", "shell"),
        (
            {"type": "apply_patch_call", "call_id": "k", "operation": {"type": "create_file"}},
            "apply_patch_call_output",
            "apply_patch",
        ),
    ],
)
def test_other_call_kinds_pair_by_call_id(call: dict[str, Any], result: str, name: str) -> None:
    t = _load([user("go"), call, out("k", kind=result)])
    assert t.messages[1].tool_calls[0].name == name
    assert t.messages[2].role == "tool" and t.messages[2].tool_call_id == "k"
    assert repair(t.messages).changes == []


def test_synthetic_result_has_the_output_type_of_its_call_kind() -> None:
    custom = {"type": "custom_tool_call", "call_id": "k", "name": "apply_patch", "input": "diff"}
    shell = {"type": "local_shell_call", "call_id": "s", "action": {"type": "exec"}}
    t = _load([user("go"), custom, shell])
    items = orjson.loads(dump(repair(t.messages).messages, t))
    assert [i["type"] for i in items[3:]] == ["custom_tool_call_output", "function_call_output"]
    assert [i["call_id"] for i in items[3:]] == ["k", "s"]


def test_server_side_items_are_part_of_the_run_and_need_no_result() -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}}
    mcp = {
        "type": "mcp_call",
        "id": "mcp_1",
        "name": "lookup",
        "arguments": "{}",
        "server_label": "docs",
        "output": "x",
    }
    t = _load([user("find it"), search, mcp, assistant("found")])
    assert len(t.messages) == 2
    assert t.messages[1].tool_calls == ()
    assert [p.type for p in t.messages[1].content or []] == ["other", "other", "text"]
    assert repair(t.messages).changes == []


def test_item_reference_and_unknown_items_are_kept() -> None:
    items = [user("go"), {"type": "item_reference", "id": "msg_1"}, {"type": "brand_new_item", "x": [1]}]
    t = _load(items)
    assert [m.role for m in t.messages] == ["user", "item_reference", "brand_new_item"]
    assert orjson.loads(dump(t.messages, t)) == items


def test_input_as_a_plain_string() -> None:
    body = {"model": "gpt-5", "input": "hello"}
    t = _load(body)
    assert [(m.role, m.content) for m in t.messages] == [("user", "hello")]
    assert orjson.loads(dump(repair(t.messages).messages, t)) == body


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([user("hi"), {"type": "function_call", "call_id": 7, "name": "x"}], r"\$\[1\]\.call_id: must be a string"),
        ([{"type": "message", "content": "x"}], r"\$\[0\]: message has no role"),
        ([{"type": "message", "role": "user", "content": 5}], "."),
    ],
)
def test_malformed_items_are_named(value: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        _load(value)


# -- dump and round trip --------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_round_trip_gives_the_same_json_value_and_key_order(path: Path) -> None:
    t = load_file(path)
    data = dump(t.messages, t)
    original = orjson.loads(path.read_bytes())
    assert orjson.loads(data) == original
    # Same key order too: compare the serialisations, not just the values.
    assert orjson.dumps(orjson.loads(data)) == orjson.dumps(original)


def test_compact_input_is_written_compact_and_body_keys_keep_their_order() -> None:
    body = {"model": "gpt-5", "input": [user("hi")], "store": False, "tools": []}
    t = _load(body)
    data = dump(t.messages, t)
    assert data == orjson.dumps(body) + b"\n"


# -- repair ---------------------------------------------------------------------------------------


def test_broken_sample_repairs_with_reasoning_before_its_calls() -> None:
    t = load_file(BROKEN)
    result = repair(t.messages)
    kinds = sorted(str(c.kind) for c in result.changes)
    assert kinds == ["moved_result", "orphan_note", "synthetic_interrupt", "synthetic_interrupt"]
    items = orjson.loads(dump(result.messages, t))
    types = [(i["type"], i.get("role")) for i in items]
    assert types == [
        ("message", "user"),
        ("reasoning", None),
        ("function_call", None),
        ("function_call", None),
        ("function_call_output", None),
        ("function_call_output", None),
        ("message", "user"),
        ("reasoning", None),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "user"),
        ("message", "assistant"),
    ]
    original = orjson.loads(BROKEN.read_bytes())
    # Every reasoning item is followed by the item that followed it in the file.
    for i, item in enumerate(items):
        if item["type"] == "reasoning":
            j = original.index(item)
            assert items[i + 1] == original[j + 1]
    assert items[5]["output"].startswith("Interrupted before shell returned a result.")
    assert items[9]["call_id"] == "call_Lp3wE5rT7yU9iO1a"
    assert items[10]["content"][0]["text"].startswith("A result for tool call call_Xr5tB7nM9qW1eR3y")
    again = _load(items)
    assert violations(again.messages) == []
    assert repair(again.messages).changes == []


def test_renamed_call_changes_only_its_call_id() -> None:
    items = [user("a"), fc("dup", id="fc_1"), out("dup"), fc("dup", id="fc_2"), out("dup")]
    t = _load(items)
    result = repair(t.messages)
    assert [c.kind for c in result.changes] == [ChangeKind.RENAMED_ID]
    written = orjson.loads(dump(result.messages, t))
    assert written[3] == {**items[3], "call_id": "dup_1"}
    assert written[4] == {**items[4], "call_id": "dup_1"}
    assert written[:3] == items[:3]


def test_orphan_output_before_any_call_becomes_a_user_message_item() -> None:
    t = _load([out("ghost", [{"type": "input_text", "text": "late"}]), user("hi")])
    items = orjson.loads(dump(repair(t.messages).messages, t))
    assert items[0]["type"] == "message" and items[0]["role"] == "user"
    assert [p["text"] for p in items[0]["content"]] == [
        "A result for tool call ghost arrived outside its turn and is kept here as a note:",
        "late",
    ]


# -- property: neutral histories written as Responses items and read back ------------------------

_ids = st.text(alphabet="abcdefghijk0123456789_", min_size=1, max_size=8)
_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)


@st.composite
def expressible_histories(draw: st.DrawFn) -> list[Message]:
    """Histories Responses items can say: no two assistant messages in a row (items of the model's
    side that follow each other are one turn), string arguments, one id per call."""
    messages: list[Message] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["user", "system", "text", "calls"]))
        if kind in ("user", "system"):
            messages.append(Message(kind if kind == "user" else "developer", draw(_texts)))
            continue
        if messages and messages[-1].role == "assistant":
            messages.append(Message("user", draw(_texts)))
        if kind == "text":
            messages.append(Message("assistant", [TextPart(draw(_texts))]))
            continue
        ids = draw(st.lists(_ids.filter(lambda i: i not in used), min_size=1, max_size=3, unique=True))
        used.update(ids)
        calls = tuple(ToolCall(i, draw(st.sampled_from(["read", "bash"])), '{"a": 1}') for i in ids)
        text = draw(st.one_of(st.none(), _texts))
        messages.append(Message("assistant", [TextPart(text)] if text else None, calls))
        for i in draw(st.permutations(ids)):
            messages.append(Message("tool", draw(_texts), tool_call_id=i))
    return messages


def _essence(m: Message) -> tuple[Any, ...]:
    return (m.role, text_of(m.content), [(c.id, c.name, c.arguments) for c in m.tool_calls], m.tool_call_id)


@settings(max_examples=200, deadline=None)
@given(expressible_histories())
def test_dump_then_load_gives_the_history_back(messages: list[Message]) -> None:
    data = ADAPTER.dump(messages, Transcript([], "chat"))
    back = load_bytes(data, "responses").messages
    assert [_essence(m) for m in back] == [_essence(m) for m in messages]


@settings(max_examples=150, deadline=None)
@given(histories())
def test_any_repaired_history_written_fresh_reads_back_valid(messages: list[Message]) -> None:
    repaired = repair(messages).messages
    data = ADAPTER.dump(repaired, Transcript([], "chat"))
    back = load_bytes(data, "responses").messages
    assert violations(back) == []
    assert [c.id for m in back for c in m.tool_calls] == [c.id for m in repaired for c in m.tool_calls]


# -- near-valid input: one thing broken in a real-looking sample -----------------------------------


def test_a_loader_that_drops_a_record_is_caught() -> None:
    doc = parse_document(CLEAN.read_bytes())
    t = ADAPTER.load(doc)
    assert_every_record_kept(doc, t)
    dropped = Transcript([m for m in t.messages if m.role != "developer"], t.format, meta=t.meta)
    with pytest.raises(AssertionError, match="neither history nor a load problem"):
        assert_every_record_kept(doc, dropped)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(SAMPLES.iterdir())), st.data(), json_values, st.booleans())
def test_near_valid_items_load_or_say_why(path: Path, data: st.DataObject, value: Any, drop: bool) -> None:
    exercise_near_valid(path, "responses", data, value, drop)


# -- the command line, as a person runs it ---------------------------------------------------------

_BROKEN_SAMPLES = [
    ("responses", "broken-interrupted.json", "responses"),
    ("codex", "broken-resumed.jsonl", "codex"),  # a session log is written back as one
    ("gemini", "broken-no-ids.json", "gemini"),
    ("vercel", "broken-restarted-ids.jsonl", "vercel"),
]


@pytest.mark.parametrize(("folder", "name", "written_as"), _BROKEN_SAMPLES)
def test_suture_repair_writes_a_valid_file_and_leaves_the_input_alone(
    tmp_path: Path, folder: str, name: str, written_as: str
) -> None:
    source = SAMPLES.parent / folder / name
    before = source.read_bytes()
    target = tmp_path / "repaired.out"
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(source), "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("suture: ") and "change" in done.stderr
    assert source.read_bytes() == before
    again = load_bytes(target.read_bytes())
    assert again.format == written_as
    assert violations(again.messages) == []


def test_a_conversion_that_would_lose_reasoning_says_so_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(BROKEN), "--to", "chat"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "chat cannot express this history" in done.stderr
