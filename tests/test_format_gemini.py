"""Google Gemini contents: detection, load, ids from position, dump, round trip and repair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suture.formats import CERTAIN, detect, dump, load_bytes, load_file
from suture.formats.gemini import ADAPTER, derived_id
from suture.io import InputError, parse_document
from suture.model import Message, ToolCall, Transcript, text_of
from suture.repair import ChangeKind, repair
from suture.validity import violations
from tests.helpers.documents import exercise_near_valid, json_values
from tests.strategies import histories

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "gemini"


def _load(value: Any) -> Transcript:
    return load_bytes(orjson.dumps(value), "gemini")


def call(name: str, cid: str | None = None, **args: Any) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "args": args}
    if cid:
        function["id"] = cid
    return {"functionCall": function}


def response(name: str, output: Any = "ok", cid: str | None = None) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "response": {"output": output}}
    if cid:
        function["id"] = cid
    return {"functionResponse": function}


def user(*parts: Any) -> dict[str, Any]:
    return {"role": "user", "parts": [p if isinstance(p, dict) else {"text": p} for p in parts]}


def model(*parts: Any) -> dict[str, Any]:
    return {"role": "model", "parts": [p if isinstance(p, dict) else {"text": p} for p in parts]}


# -- detection ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_samples_are_detected_as_gemini(path: Path) -> None:
    detection = detect(parse_document(path.read_bytes()))
    assert detection.adapter.name == "gemini"
    assert detection.score == CERTAIN


@pytest.mark.parametrize(
    "value",
    [
        [{"role": "user", "content": "hi"}],
        {"messages": [{"role": "user", "content": "hi"}]},
        [{"type": "message", "role": "user", "content": "hi"}],
        [{"role": "user", "parts": [{"text": "hi"}], "content": "hi"}],
    ],
)
def test_other_formats_are_not_gemini(value: Any) -> None:
    assert ADAPTER.sniff(parse_document(orjson.dumps(value))) == 0


# -- load -----------------------------------------------------------------------------------------


def test_request_body_loads_with_thoughts_images_and_position_ids() -> None:
    t = load_file(SAMPLES / "clean-request.json")
    system, *rest = t.messages
    assert system.role == "system" and str(system.source) == "systemInstruction"
    assert text_of(system.content).startswith("You are a travel assistant.")
    t.messages = rest
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "tool", "assistant", "user", "assistant"]
    turn = t.messages[1]
    assert [c.id for c in turn.tool_calls] == [derived_id(1, 1), derived_id(1, 2)] == ["call_c1_p1", "call_c1_p2"]
    assert turn.tool_calls[0].arguments == {"from": "LIS", "to": "OSL", "date": "2027-03-14"}
    assert [p.type for p in turn.content or []] == ["thinking"]
    assert [m.tool_call_id for m in t.messages[2:4]] == ["call_c1_p1", "call_c1_p2"]
    assert [str(m.source) for m in t.messages[2:4]] == ["contents[2].parts[0]", "contents[2].parts[1]"]
    assert t.messages[3].name == "get_weather" and text_of(t.messages[3].content) == "Snow showers, -3 to 1 °C"
    image = t.messages[5].content
    assert isinstance(image, list) and image[1].type == "image" and image[1].media_type == "image/png"
    assert repair(t.messages).changes == []
    assert violations(t.messages) == []


def test_system_messages_of_another_format_go_to_system_instruction() -> None:
    messages = [Message("system", "be brief"), Message("system", "use metric"), Message("user", "hi")]
    data = orjson.loads(ADAPTER.dump(messages, Transcript([], "chat")))
    assert data == {
        "systemInstruction": {"parts": [{"text": "be brief\n\nuse metric"}]},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    }
    back = load_bytes(orjson.dumps(data), "gemini").messages
    assert [(m.role, text_of(m.content)) for m in back] == [("system", "be brief\n\nuse metric"), ("user", "hi")]


def test_id_less_responses_pair_by_order_and_name() -> None:
    t = _load(
        [
            user("go"),
            model(call("read", path="a"), call("grep", q="x"), call("read", path="b")),
            user(response("grep"), response("read", "B?"), response("read", "second")),
        ]
    )
    ids = [c.id for c in t.messages[1].tool_calls]
    assert [m.tool_call_id for m in t.messages[2:]] == [ids[1], ids[0], ids[2]]


def test_a_nameless_call_pairs_with_the_response_written_for_it() -> None:
    # Interrupted, a call with no name gets a response named "": read back, the two still pair.
    nameless = {"functionCall": {"name": None, "args": {}}}
    t = _load([user("go"), model(nameless)])
    result = repair(t.messages)
    written = orjson.loads(dump(result.messages, t))
    assert written[2]["parts"][0]["functionResponse"]["name"] == ""
    again = load_bytes(orjson.dumps(written), "gemini")
    assert again.messages[2].tool_call_id == again.messages[1].tool_calls[0].id
    assert violations(again.messages) == []


def test_ids_are_used_where_present() -> None:
    t = _load([model(call("read", "id-1"), call("read")), user(response("read", cid="id-1"), response("read"))])
    assert [c.id for c in t.messages[0].tool_calls] == ["id-1", "call_c0_p1"]
    assert [m.tool_call_id for m in t.messages[1:]] == ["id-1", "call_c0_p1"]


def test_a_response_with_no_matching_call_has_no_id() -> None:
    t = _load([model(call("read")), user(response("write"))])
    assert t.messages[1].tool_call_id == ""
    assert t.messages[1].name == "write"


def test_error_responses_are_flagged() -> None:
    t = _load([model(call("read")), user({"functionResponse": {"name": "read", "response": {"error": "denied"}}})])
    assert t.messages[1].is_error is True
    assert text_of(t.messages[1].content) == "denied"


def test_user_content_is_split_at_its_responses() -> None:
    t = _load([model(call("a"), call("b")), user("before", response("a"), "between", response("b"))])
    assert [(m.role, text_of(m.content)) for m in t.messages[1:]] == [
        ("user", "before"),
        ("tool", "ok"),
        ("user", "between"),
        ("tool", "ok"),
    ]
    assert all(m.raw is t.messages[1].raw for m in t.messages[1:])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([{"role": "user", "parts": [{"text": "x"}]}, {"role": "model", "parts": "x"}], "must be a list"),
        ([model({"functionCall": {"name": 3}})], r"contents\[0\]\.parts\[0\]\.functionCall\.name: must be a string"),
        ([model({"functionCall": "read"})], r"contents\[0\]\.parts\[0\]\.functionCall: must be an object"),
    ],
)
def test_malformed_contents_are_named(value: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        _load(value)


# -- dump and round trip --------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_round_trip_gives_the_same_json_value_and_key_order(path: Path) -> None:
    t = load_file(path)
    data = dump(t.messages, t)
    original = orjson.loads(path.read_bytes())
    assert orjson.loads(data) == original
    assert orjson.dumps(orjson.loads(data)) == orjson.dumps(original)


def test_thought_signatures_are_written_back_exactly() -> None:
    t = load_file(SAMPLES / "broken-interrupted.json")
    data = orjson.loads(dump(repair(t.messages).messages, t))
    signatures = [p["thoughtSignature"] for c in data for p in c["parts"] if "thoughtSignature" in p]
    original = orjson.loads((SAMPLES / "broken-interrupted.json").read_bytes())
    assert signatures == [p["thoughtSignature"] for c in original for p in c["parts"] if "thoughtSignature" in p]


def test_untouched_separate_answer_contents_stay_separate() -> None:
    value = [model(call("a"), call("b")), user(response("a")), user(response("b"))]
    t = _load(value)
    assert orjson.loads(dump(t.messages, t)) == value


# -- repair ---------------------------------------------------------------------------------------


def test_broken_sample_with_ids() -> None:
    t = load_file(SAMPLES / "broken-interrupted.json")
    result = repair(t.messages)
    assert sorted(str(c.kind) for c in result.changes) == ["orphan_note", "synthetic_interrupt", "synthetic_interrupt"]
    data = orjson.loads(dump(result.messages, t))
    assert [c["role"] for c in data] == ["user", "model", "user", "model", "user", "model", "user"]
    answers = data[2]["parts"]
    # One content answers the first model turn: its real response, the made-up one (with the
    # call's id and name), then the text the user typed.
    assert [list(p) for p in answers] == [["functionResponse"], ["functionResponse"], ["text"]]
    made_up = answers[1]["functionResponse"]
    assert made_up["id"] == "5e0a9d3b-7c41-4b2e-8f6a-1d9c3b7e5a20" and made_up["name"] == "list_dir"
    assert made_up["response"]["output"].startswith("Interrupted before list_dir returned a result.")
    # The id-less call gets an id-less made-up response, paired by name as Gemini does.
    assert data[4]["parts"] == [
        {
            "functionResponse": {
                "name": "run_command",
                "response": {
                    "output": "Interrupted before run_command returned a result. It may have partly run: "
                    "check its effects before running it again."
                },
            }
        }
    ]
    assert data[6]["parts"][0]["text"].startswith("A result for tool call 5e0a9d3b")
    again = _load(data)
    assert violations(again.messages) == []
    assert repair(again.messages).changes == []


def test_broken_sample_without_ids_repairs_by_name() -> None:
    t = load_file(SAMPLES / "broken-no-ids.json")
    result = repair(t.messages)
    assert [(c.kind, c.call_id) for c in result.changes] == [
        (ChangeKind.SYNTHETIC_INTERRUPT, "call_c1_p1"),
        (ChangeKind.SYNTHETIC_INTERRUPT, "call_c3_p0"),
        (ChangeKind.ORPHAN_NOTE, ""),
    ]
    data = orjson.loads(dump(result.messages, t))
    # No made-up id reaches the file: the responses pair by order and name.
    assert "call_c" not in orjson.dumps(data).decode()
    assert [len(c["parts"]) for c in data] == [1, 2, 2, 1, 1, 2, 1]
    again = _load(data)
    assert violations(again.messages) == []
    assert repair(again.messages).changes == []


def test_results_split_over_contents_are_merged_when_repair_moves_them() -> None:
    value = [model(call("a", "A"), call("b", "B")), user(response("b", cid="B"), "steer"), user(response("a", cid="A"))]
    t = _load(value)
    result = repair(t.messages)
    assert {c.kind for c in result.changes} == {ChangeKind.MOVED_RESULT}
    data = orjson.loads(dump(result.messages, t))
    assert len(data) == 2
    assert [next(iter(p)) for p in data[1]["parts"]] == ["functionResponse", "functionResponse", "text"]
    assert [p["functionResponse"]["id"] for p in data[1]["parts"][:2]] == ["A", "B"]


def test_renamed_call_writes_the_new_id_into_call_and_response() -> None:
    # The first call's own id happens to be the id the second, id-less call gets from its place.
    value = [
        model(call("a", "call_c2_p0")),
        user(response("a", cid="call_c2_p0")),
        model(call("a")),
        user(response("a")),
    ]
    t = _load(value)
    result = repair(t.messages)
    assert [(c.kind, c.new_id) for c in result.changes] == [(ChangeKind.RENAMED_ID, "call_c2_p0_1")]
    data = orjson.loads(dump(result.messages, t))
    assert data[2]["parts"][0]["functionCall"]["id"] == "call_c2_p0_1"
    assert data[3]["parts"][0]["functionResponse"]["id"] == "call_c2_p0_1"
    assert data[:2] == value[:2]


# -- property: neutral histories written as Gemini contents and read back ------------------------

_ids = st.text(alphabet="abcdefghijk0123456789-", min_size=1, max_size=8)
_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)


@st.composite
def expressible_histories(draw: st.DrawFn) -> list[Message]:
    """Histories Gemini contents can say: user and model turns (no system role: that is
    ``systemInstruction``), object arguments, a name on every call."""
    messages: list[Message] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["user", "text", "calls"]))
        if kind == "user":
            messages.append(Message("user", draw(_texts)))
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
    back = load_bytes(data, "gemini").messages
    assert [_essence(m) for m in back] == [_essence(m) for m in messages]


@settings(max_examples=150, deadline=None)
@given(histories())
def test_any_repaired_history_written_fresh_reads_back_valid(messages: list[Message]) -> None:
    repaired = repair(messages).messages
    data = ADAPTER.dump(repaired, Transcript([], "chat"))
    back = load_bytes(data, "gemini").messages
    assert violations(back) == []
    assert [c.id for m in back for c in m.tool_calls] == [c.id for m in repaired for c in m.tool_calls]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(SAMPLES.iterdir())), st.data(), json_values, st.booleans())
def test_near_valid_samples_load_or_say_why(path: Path, data: st.DataObject, value: Any, drop: bool) -> None:
    exercise_near_valid(path, "gemini", data, value, drop)


# -- numbering -------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["response first", "text first"])
def test_a_content_of_responses_and_text_is_one_content_where_the_checks_point(order: str) -> None:
    """A content holding a functionResponse part and a text part is read as a result and a user
    message, and written back as one content: the checks count it as one, so every contents[N]
    after it is the file's own."""
    from suture.checks import check

    answer = response("ls", "a b", "c1")
    mixed = user(answer, "only the old ones") if order == "response first" else user("only the old ones", answer)
    contents = [user("go"), model(call("ls", "c1")), mixed, model(call("rm", "c2")), model("done")]
    t = _load(contents)
    assert [m.role for m in t.messages] == (
        ["user", "assistant", "tool", "user", "assistant", "assistant"]
        if order == "response first"
        else ["user", "assistant", "user", "tool", "assistant", "assistant"]
    )
    assert orjson.loads(dump(t.messages, t)) == contents
    found = [v for v in check(t.messages, "gemini") if v.rule == "G1"]
    assert [(v.where, v.problem) for v in found] == [
        ("contents[4]", "the function call turn at contents[3] is not followed by its function responses")
    ]
    assert t.messages[found[0].index].source is not None
    assert str(t.messages[found[0].index].source) == "contents[3]"


def _g4(messages: list[Message], repaired: bool = False) -> list[tuple[str, str]]:
    from suture.checks import check

    return [(v.rule, v.where) for v in check(messages, "gemini", repaired=repaired) if v.rule == "G4"]


def test_calls_from_another_format_are_written_with_the_placeholder_signature() -> None:
    chat = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "tool", "tool_call_id": "c1", "content": "dup"},
    ]  # fmt: skip
    result = repair(load_bytes(orjson.dumps(chat), "chat").messages)
    data = orjson.loads(dump(result.messages, Transcript([], "chat"), "gemini"))
    calls = [p for c in data for p in c["parts"] if "functionCall" in p]
    # Gemini 3 validates the first call of each step: only that one is given the placeholder,
    # the value Gemini documents for calls it did not generate.
    assert [p.get("thoughtSignature") for p in calls] == ["skip_thought_signature_validator", None]
    back = load_bytes(orjson.dumps(data), "gemini").messages
    # What the repair says of the request it writes is what a check of the written file says.
    assert _g4(list(result.messages), repaired=True) == _g4(back) == []


def test_a_gemini_files_own_calls_get_no_placeholder() -> None:
    contents = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [call("read", "a")]},
        {"role": "user", "parts": [response("read", cid="a")]},
    ]
    t = _load(contents)
    assert orjson.loads(dump(t.messages, t)) == contents


@settings(max_examples=150, deadline=None)
@given(histories())
def test_written_fresh_the_signature_verdict_is_the_one_the_repair_gave(messages: list[Message]) -> None:
    repaired = list(repair(messages).messages)
    back = load_bytes(ADAPTER.dump(repaired, Transcript([], "chat")), "gemini").messages
    assert _g4(back) == _g4(repaired, repaired=True)
