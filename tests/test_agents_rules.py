"""The strict mock provider's pairing validator, rule by rule, on hand-made request bodies."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tools.agents.rules import check_anthropic, check_chat, check_gemini, check_responses


def user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def asst(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def use(i: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": i, "name": "Bash", "input": {}}


def res(i: str, **kw: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": "ok", **kw}


def text(t: str = "hi") -> dict[str, Any]:
    return {"type": "text", "text": t}


ANTHROPIC_OK = [
    [user(text())],
    [user(text()), asst(use("a")), user(res("a"))],
    [user(text()), asst(use("a"), use("b")), user(res("b"), res("a"))],
    [user(text()), asst(use("a")), user(res("a"), text("after"))],
    [user(text()), {"role": "system", "content": "env"}, asst(use("a")), user(res("a"))],
    [user(text()), asst(use("a")), user(res("a", is_error=True, content="interrupted"))],
    [{"role": "user", "content": "plain"}, {"role": "assistant", "content": ""}],
    [user(text()), {"role": "system", "content": [], "output_config": {"effort": "medium"}}, asst(text())],
]


@pytest.mark.parametrize("messages", ANTHROPIC_OK)
def test_anthropic_accepts(messages: list[Any]) -> None:
    assert check_anthropic({"messages": messages}) is None


ANTHROPIC_BAD = [
    (
        "A1",
        [user(text()), asst(use("a")), user(text("no result"))],
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: a. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    ),
    ("A1", [user(text()), asst(use("a"), use("b")), user(res("a"))], "immediately after: b."),
    ("A1", [user(text()), asst(use("a"))], "messages.1: `tool_use` ids were found without"),
    (
        "A1a",
        [user(text()), asst(use("a")), user(text("before"), res("a"))],
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks.",
    ),
    ("A1a", [user(text()), asst(use("a"), use("b")), user(res("a"), text(), res("b"))], "Did not find 2"),
    (
        "A2",
        [user(text()), asst(use("a")), user(res("a"), res("zz"))],
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: zz. Each `tool_result` "
        "block must have a corresponding `tool_use` block in the previous message.",
    ),
    ("A2", [user(res("a"))], "messages.0.content.0: unexpected `tool_use_id`"),
    (
        "A3",
        [user(text()), asst(use("a")), user(res("a")), asst(use("a")), user(res("a"))],
        "messages.3.content.0: `tool_use` ids must be unique",
    ),
    (
        "A13",
        [user(text()), asst(use("a")), user(res("a", is_error=True, content=""))],
        "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
    ),
    ("A13", [user(text()), asst(use("a")), user(res("a", is_error=True, content=[]))], "content cannot be empty"),
    ("A7", [user(text(" \n"))], "messages: text content blocks must contain non-whitespace text"),
    ("A8", [user(text()), {"role": "assistant", "content": []}, user(text())], "messages.1: all messages must have"),
    ("A6", [user(text()), asst(res("a"))], "`tool_result` blocks can only be in `user` messages"),
]


@pytest.mark.parametrize(("rule", "messages", "message"), ANTHROPIC_BAD)
def test_anthropic_rejects(rule: str, messages: list[Any], message: str) -> None:
    got = check_anthropic({"messages": messages})
    assert got is not None
    assert got.rule == rule
    assert message in got.message


def call(i: str) -> dict[str, Any]:
    return {"id": i, "type": "function", "function": {"name": "bash", "arguments": "{}"}}


def tool(i: str | None) -> dict[str, Any]:
    m: dict[str, Any] = {"role": "tool", "content": "ok"}
    if i is not None:
        m["tool_call_id"] = i
    return m


CU = {"role": "user", "content": "hi"}


def calls(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [call(i) for i in ids]}


CHAT_OK = [
    [CU],
    [{"role": "system", "content": "s"}, CU, calls("a"), tool("a"), {"role": "assistant", "content": "done"}],
    [CU, calls("a", "b"), tool("b"), tool("a"), CU],
]


@pytest.mark.parametrize("messages", CHAT_OK)
def test_chat_accepts(messages: list[Any]) -> None:
    assert check_chat({"messages": messages}) is None


CHAT_BAD = [
    (
        "O1",
        [CU, calls("a", "b"), tool("a"), CU],
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: b",
    ),
    ("O1", [CU, calls("a")], "did not have response messages: a"),
    ("O1", [CU, calls("a"), CU, tool("a")], "did not have response messages: a"),
    (
        "O2",
        [CU, tool("a")],
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    ),
    (
        "O2",
        [CU, calls("a"), tool("a"), tool("zz")],
        "'tool_call_id' of 'zz' not found in 'tool_calls' of previous message.",
    ),
    (
        "O3",
        [CU, calls("a"), tool(None)],
        "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
    ),
    (
        "O4",
        [CU, calls("a"), tool("a"), tool("a")],
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'a', in messages[2] and messages[3].",
    ),
]


@pytest.mark.parametrize(("rule", "messages", "message"), CHAT_BAD)
def test_chat_rejects(rule: str, messages: list[Any], message: str) -> None:
    got = check_chat({"messages": messages})
    assert got is not None
    assert got.rule == rule
    assert message in got.message


RU = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
RA = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}
RS = {"type": "reasoning", "summary": []}


def fc(i: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": i, "name": "exec_command", "arguments": "{}"}


def out(i: str | None, kind: str = "function_call_output") -> dict[str, Any]:
    o: dict[str, Any] = {"type": kind, "output": "ok"}
    if i is not None:
        o["call_id"] = i
    return o


RESPONSES_OK = [
    [RU],
    [RU, RS, fc("a"), out("a"), RA],
    [RU, fc("a"), fc("b"), out("b"), out("a"), RA],
    [RU, {**fc("a"), "id": "fc_1"}, out("a"), {**fc("b"), "id": "fc_2"}, out("b"), {**RA, "id": "msg_1"}],
    [
        RU,
        {"type": "custom_tool_call", "call_id": "c", "name": "apply_patch", "input": ""},
        out("c", "custom_tool_call_output"),
    ],
]


@pytest.mark.parametrize("items", RESPONSES_OK)
def test_responses_accepts(items: list[Any]) -> None:
    assert check_responses({"input": items}) is None


RESPONSES_BAD = [
    ("R1", [RU, fc("a"), RA], "No tool output found for function call a."),
    ("R2", [RU, out("a"), fc("a")], "No tool call found for function call output with call_id a."),
    ("R2", [RU, fc("a"), out("a"), out("zz")], "No tool call found for function call output with call_id zz."),
    ("R7", [RU, fc("a"), RA, out("a")], "No tool output found for tool call a."),
    ("R7", [RU, fc("a"), RS, out("a")], "No tool output found for tool call a."),
    ("R8", [RU, fc("a"), out(None)], "Missing required parameter: 'input[2].call_id'."),
    (
        "R9",
        [RU, fc("a"), out("a"), RA, fc("a"), out("a")],
        "Duplicate function_call_output for call_id 'a'. "
        "Each function_call must have exactly one matching function_call_output",
    ),
    (
        "R3",
        [RU, {**fc("a"), "id": "fc_1"}, out("a"), {**fc("b"), "id": "fc_1"}, out("b")],
        "Duplicate item found with id fc_1. Remove duplicate items from your input and try again.",
    ),
    (
        "R3",
        [RU, {**RA, "id": "msg_1"}, {**RA, "id": "msg_1"}],
        "Duplicate item found with id msg_1. Remove duplicate items from your input and try again.",
    ),
]


@pytest.mark.parametrize(("rule", "items", "message"), RESPONSES_BAD)
def test_responses_rejects(rule: str, items: list[Any], message: str) -> None:
    got = check_responses({"input": items})
    assert got is not None
    assert got.rule == rule
    assert got.message == message


@pytest.mark.parametrize(
    "messages",
    [
        [user(text()), asst(use("a")), user(text("no result"))],
        [user(text()), asst(use("a"), use("b")), user(res("a"))],
        [user(text()), asst(use("a"))],
        [user(text()), asst(use("a")), user(res("a")), asst(use("b")), user(text("no result"))],
    ],
    ids=["no-result", "one-missing", "at-the-end", "second-turn"],
)
def test_the_mock_numbers_a_call_without_its_result_as_suture_s_check_does(messages: list[Any]) -> None:
    """The mock answers as the provider does, and so does the check: the two give one messages.N
    (the message after the calls, Mirascope/mirascope#2503; the calls' own at the end)."""
    from suture.checks import check
    from suture.formats import load_bytes

    mock = check_anthropic({"messages": messages})
    assert mock is not None and mock.rule == "A1"
    transcript = load_bytes(orjson.dumps({"model": "m", "max_tokens": 1, "messages": messages}))
    (found,) = [v for v in check(transcript.messages, "anthropic") if v.rule == "A1"]
    assert mock.message.split(":")[0] == found.where


GU = {"role": "user", "parts": [{"text": "hi"}]}
GM = {"role": "model", "parts": [{"text": "ok"}]}


def gcall(n: int = 1) -> dict[str, Any]:
    return {"role": "model", "parts": [{"functionCall": {"name": "bash", "args": {}}}] * n}


def gresponse(n: int = 1) -> dict[str, Any]:
    return {"role": "user", "parts": [{"functionResponse": {"name": "bash", "response": {"output": "x"}}}] * n}


@pytest.mark.parametrize(
    "contents",
    [[GU], [GU, GM, GU], [GU, gcall(2), gresponse(2), GM, GU], [GU, gcall(), gresponse(), gcall(), gresponse(), GU]],
)
def test_gemini_accepts(contents: list[Any]) -> None:
    assert check_gemini({"contents": contents}) is None


GEMINI_BAD = [
    ("G5", [GU, {"role": "model", "parts": []}, GU], "contents.parts must not be empty."),
    (
        "G1",
        [GU, gcall(), GU],
        "Please ensure that function response turn comes immediately after a function call turn.",
    ),
    (
        "G1",
        [GU, gresponse(), GU],
        "Please ensure that function response turn comes immediately after a function call turn.",
    ),
    (
        "G2",
        [GU, GM, gcall(), gresponse()],
        "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
    ),
    (
        "G3",
        [GU, gcall(2), gresponse(1), GU],
        "Please ensure that the number of function response parts is equal to the number of function call parts "
        "of the function call turn.",
    ),
]


@pytest.mark.parametrize(("rule", "contents", "message"), GEMINI_BAD)
def test_gemini_rejects(rule: str, contents: list[Any], message: str) -> None:
    got = check_gemini({"contents": contents})
    assert got is not None and (got.rule, got.message) == (rule, message)
