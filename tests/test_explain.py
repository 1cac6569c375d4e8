"""``suture explain``: every error text of the research file, filled with real ids and indices,
is recognised, and the messages it names are found in a transcript that has the problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suture.checks.explain import closest, explain, locate, recognise, resolve
from suture.checks.rules import RULES
from suture.formats import load_file
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart
from suture.sent.numbered import sent_request
from tests.conftest import SAMPLES
from tests.helpers.messages import A, C, S, T, U, thought

# (error text as a provider sends it, history with the problem, rule, neutral indices it names)
TEXTS: list[tuple[str, list[Message], str, list[int]]] = [
    (
        '{"type":"error","error":{"type":"invalid_request_error","message":"messages.2: `tool_use` ids were found '
        "without `tool_result` blocks immediately after: toolu_01Gho1LhNQt7FjqEiiHkrVMK. Each `tool_use` block "
        'must have a corresponding `tool_result` block in the next message."}}',
        [U(), A("on it"), U("go"), A(None, C("toolu_01Gho1LhNQt7FjqEiiHkrVMK")), U("hello?")],
        "A1",
        [3],
    ),
    (
        # wrapped the way a terminal shows it
        "API Error: 400 messages.2: `tool_use` \n    ids were found without `tool_result` blocks immediately after: "
        "toolu_01A, \n    toolu_01B. Each `tool_use` block must have a corresponding `tool_result` block in the \n"
        "    next message.",
        [U(), A(None, C("toolu_01A"), C("toolu_01B")), U("stop")],
        "A1",
        [1],
    ),
    (
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks.",
        [U(), A(None, C("toolu_1")), U("wait"), T("toolu_1")],
        "A1",
        [3],  # the result that does not lead the message the error names
    ),
    (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_09. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
        [U(), A(None, C("toolu_1")), T("toolu_1"), T("toolu_09")],
        "A2",
        [3],
    ),
    (
        "messages.3.content.0: `tool_use` ids must be unique",
        [U(), A(None, C("toolu_1")), T("toolu_1"), A(None, C("toolu_1")), T("toolu_1")],
        "A3",
        [3],
    ),
    (
        "messages.2.content.1: each tool_use must have a single result. Found multiple tool_result blocks with id: "
        "toolu_1",
        [U(), A(None, C("toolu_1")), T("toolu_1"), T("toolu_1")],
        "A4",
        [3],
    ),
    (
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        [U(), A(None, C("functions.read:0")), T("functions.read:0")],
        "A5",
        [1],
    ),
    (
        "messages.2.content.0.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        [U(), A(None, C("functions.read:0")), T("functions.read:0")],
        "A5",
        [2],
    ),
    (
        "`tool_use` blocks can only be in `assistant` messages",
        [U([TextPart("see"), OtherPart({"type": "tool_use"}, "tool_use")]), A("ok")],
        "A6",
        [0],
    ),
    (
        "`tool_result` blocks can only be in `user` messages",
        [U(), A([OtherPart({"type": "tool_result"}, "tool_result")]), U("x")],
        "A6",
        [1],
    ),
    ("messages: text content blocks must be non-empty", [U([TextPart("")]), A("ok")], "A7", [0]),
    ("messages: text content blocks must contain non-whitespace text", [U("hi"), A("  "), U("x")], "A7", [1]),
    (
        "messages.0: all messages must have non-empty content except for the optional final assistant message",
        [U(""), A("ok"), U("go")],
        "A8",
        [0],
    ),
    ("messages: final assistant content cannot end with trailing whitespace", [U(), A("done \n")], "A9", [1]),
    ('messages: first message must use the "user" role', [A("hello"), U("hi")], "A10", [0]),
    (
        'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
        [U(), A("one"), A("two")],
        "A11",
        [2],
    ),
    (
        "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be "
        "thinking or redacted_thinking. Found text.",
        [U(), A([TextPart("hi"), thought()]), U("go")],
        "A12",
        [1],
    ),
    (
        "messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
        "previous turns. To avoid this requirement, disable `thinking`.",
        [U(), A([thought()], C("toolu_1")), T("toolu_1"), U("next"), A(None, C("toolu_2")), T("toolu_2")],
        "A12",
        [4],
    ),
    (
        "messages.1: The final block in an assistant message cannot be `thinking`.",
        [U(), A([thought()])],
        "A12",
        [1],
    ),
    (
        # Edited thinking cannot be seen in the history alone: found by the index the error names.
        "messages.1.content.0: Invalid `signature` in `thinking` block",
        [U(), A([thought(), TextPart("hi")]), U("go")],
        "A12",
        [1],
    ),
    (
        "messages.3.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
        "modified. These blocks must remain as they were in the original response.",
        [U(), A("a"), U("b"), A([TextPart("x"), thought()]), U("c")],
        "A12",
        [3],
    ),
    (
        '{"error":{"message":"An assistant message with \'tool_calls\' must be followed by tool messages responding '
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        'call_ctiGXrgM0r61c6nkf2v7zbKb","type":"invalid_request_error","param":"messages.[1].role","code":null}}',
        [U(), A(None, C("call_ctiGXrgM0r61c6nkf2v7zbKb")), U("x")],
        "O1",
        [1],
    ),
    (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        [U(), A("hi"), T("call_1")],
        "O2",
        [2],
    ),
    (
        "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        [U(), A(None, C("call_1")), T("call_1"), T("")],
        "O3",
        [3],
    ),
    (
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[2] and messages[3].",
        [U(), A(None, C("call_1")), T("call_1"), T("call_1")],
        "O4",
        [3],
    ),
    (
        # OpenHands/OpenHands#7700, through LiteLLM
        "litellm.BadRequestError: OpenAIException - Invalid 'messages[2]'. Image URLs are only allowed for "
        "messages with role 'user', but this message with role 'tool' contains an image URL.",
        [U(), A(None, C("call_1")), T("call_1", [ImagePart({"type": "image_url", "image_url": {"url": "x"}})])],
        "O7",
        [2],
    ),
    (
        # langchain-ai/langchainjs#11419
        "400 Invalid 'messages[1].content': empty array.\nExpected an array with minimum length 1, but got an "
        "empty array instead.",
        [U(), A([]), U("again")],
        "O8",
        [1],
    ),
    (
        "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got "
        "a string with length 46 instead.",
        [U(), A(None, C("chatcmpl-tool-" + "b" * 32)), T("chatcmpl-tool-" + "b" * 32)],
        "O5",
        [1],
    ),
    ("No tool output found for function call call_abc.", [U(), A(None, C("call_abc"))], "R1", [1]),
    (
        "No tool call found for function call output with call_id call_abc.",
        [U(), A("hi"), T("call_abc")],
        "R2",
        [2],
    ),
    (
        "Duplicate item found with id fc_1. Remove duplicate items from your input and try again.",
        [
            U(),
            A(None, C("call_1", raw={"type": "function_call", "id": "fc_1"})),
            T("call_1"),
            A(None, C("call_2", raw={"type": "function_call", "id": "fc_1"})),
            T("call_2"),
        ],
        "R3",
        [3],
    ),
    (
        "Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64, but got a string "
        "with length 70 instead.",
        [U(), A(None, C("c" * 70)), T("c" * 70)],
        "R4",
        [1],
    ),
    (
        "Invalid 'input[1].id': 'msg_1'. Expected an ID that begins with 'fc'.",
        [U(), A(None, C("call_1", raw={"type": "function_call", "id": "msg_1"})), T("call_1")],
        "R5",
        [1],
    ),
    (
        "Item 'fc_2' of type 'function_call' was provided without its required 'reasoning' item: 'rs_2'.",
        [
            U(),
            A([ThinkingPart("plan", {"type": "reasoning", "id": "rs_1"})], C("call_1")),
            T("call_1"),
            A(None, C("call_2", raw={"type": "function_call", "id": "fc_2"})),
            T("call_2"),
        ],
        "R6",
        [3],
    ),
    (
        # DeepSeek's Responses endpoint, with a message item between the call and its output
        "No tool output found for tool call call_00_vHk2R4mNq8sT1wX3yZ5aB7cD",
        [
            U(),
            A(None, C("call_00_vHk2R4mNq8sT1wX3yZ5aB7cD")),
            U("and the lint?"),
            T("call_00_vHk2R4mNq8sT1wX3yZ5aB7cD"),
        ],
        "R7",
        [1],
    ),
    (
        "Missing required parameter: 'input[2].call_id'.",
        [U(), A(None, C("call_1")), T("")],
        "R8",
        [2],
    ),
    (
        "HTTP 400: Upstream request failed: [invalid_request_error] Duplicate function_call_output for call_id "
        "'terminal:0'. Each function_call must have exactly one matching function_call_output",
        [U(), A(None, C("terminal:0")), T("terminal:0"), U("again"), A(None, C("terminal:0")), T("terminal:0")],
        "R9",
        [5],
    ),
    (
        "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
        [U(), A(None, C("toolu_1")), Message("tool", [], tool_call_id="toolu_1", is_error=True)],
        "A13",
        [2],
    ),
    (
        "Please ensure that function response turn comes immediately after a function call turn.",
        [U(), T("call_1")],
        "G1",
        [1],
    ),
    (
        "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        [U(), A("let me look"), A(None, C("call_1")), T("call_1")],
        "G2",
        [2],
    ),
    (
        "Please ensure that the number of function response parts is equal to the number of function call parts of "
        "the function call turn.",
        [U(), A(None, C("call_1"), C("call_2")), T("call_1"), U("x")],
        "G3",
        [1],
    ),
    (
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
        "function call `default_api:read` , position 4.",
        [
            U(),
            A(None, C("call_1", raw={"functionCall": {"name": "read"}, "thoughtSignature": "sig"})),
            T("call_1"),
            A(None, C("call_2", raw={"functionCall": {"name": "read"}})),
            T("call_2"),
        ],
        "G4",
        [3],
    ),
    (
        "[400 Bad Request] * GenerateContentRequest.contents[0].parts: contents.parts must not be empty.",
        [U(""), A("x"), U("y")],
        "G5",
        [0],
    ),
    (
        "Tool call id was call_98660886 but must be a-z, A-Z, 0-9, with a length of 9.",
        [U(), A(None, C("call_98660886")), T("call_98660886")],
        "M1",
        [1, 2],
    ),
    (
        "Not the same number of function calls and responses",
        [U(), A(None, C("abcdefghi"), C("bcdefghij")), T("abcdefghi")],
        "M2",
        [1],
    ),
    (
        "Unexpected role 'user' after role 'tool'",
        [U(), A(None, C("abcdefghi")), T("abcdefghi"), U("next")],
        "M3",
        [3],
    ),
    (
        "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant",
        [U(), A("done")],
        "M4",
        [1],
    ),
    (
        "Duplicate tool call id abcdefghi in tool results",
        [U(), A(None, C("abcdefghi")), T("abcdefghi"), T("abcdefghi")],
        "M5",
        [3],
    ),
    (
        "Unexpected tool call id zzzzzzzzz in tool results",
        [U(), A(None, C("abcdefghi")), T("zzzzzzzzz")],
        "M5",
        [2],
    ),
    (
        "Invalid request: tool call id write:9 is duplicated",
        [U(), A(None, C("write:9")), T("write:9"), A(None, C("write:9")), T("write:9")],
        "K1",
        [3],
    ),
    (
        "Invalid request: the message at position 1 with role 'assistant' must not be empty",
        [U(), A(None), U("again")],
        "K2",
        [1],
    ),
    (
        "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.",
        [U(), A(None, C("tooluse_1")), T("tooluse_1"), T("tooluse_2")],
        "B1",
        [2],
    ),
    (
        "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_2",
        [U(), A(None, C("tooluse_1"), C("tooluse_2")), T("tooluse_1")],
        "B2",
        [1],
    ),
    (
        "ValidationException: A conversation must start with a user message. Try again with a conversation that "
        "starts with a user message.",
        [A("hello"), U("hi")],
        "B3",
        [0],
    ),
    (
        "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
        "between user and assistant roles and try again.",
        [S(), U(), A("one"), A("two")],
        "B3",
        [3],
    ),
    (
        "1 validation error detected: Value 'functions.read:0' at "
        "'messages.2.member.content.1.member.toolUse.toolUseId' failed to satisfy constraint: Member must satisfy "
        "regular expression pattern: [a-zA-Z0-9_-]+",
        [U(), A(None, C("functions.read:0")), T("functions.read:0")],
        "B6",
        [1],
    ),
    (
        "400 Missing `reasoning_content` field in the assistant message at message index 3. For more information, "
        "please refer to https://api-docs.deepseek.com/guides/thinking_mode%23tool-calls",
        [U(), A([thought(None)], C("call_1")), T("call_1"), A(None, C("call_2")), T("call_2")],
        "D1",
        [3],
    ),
    (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. (insufficient tool messages following tool_calls message)",
        [U(), A(None, C("call_1")), U("wait")],
        "O1",
        [1],
    ),
    # A request with no message: the problem is the list's, so it names no message.
    (
        "Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': "
        "'messages: at least one message is required'}}",
        [S()],
        "A14",
        [],
    ),
    (
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        [],
        "O6",
        [],
    ),
    ("* GenerateContentRequest.contents: contents is not specified\n", [S()], "G6", []),
    ("Conversation must have at least one message", [], "M6", []),
]


@pytest.mark.parametrize(
    ("text", "history", "rule", "indices"), TEXTS, ids=[f"{t[2]}-{i}" for i, t in enumerate(TEXTS)]
)
def test_error_text_is_recognised_and_located(text: str, history: list[Message], rule: str, indices: list[int]) -> None:
    found = recognise(text)
    assert found, text
    assert found[0].rule.id == rule
    where = locate(history, found[0])
    assert where.found
    assert where.indices == indices


def test_every_rule_with_a_text_is_covered() -> None:
    from suture.checks import RULES

    covered = {rule for _, _, rule, _ in TEXTS}
    with_text = {r.id for r in RULES.values() if r.patterns}
    assert with_text <= covered
    assert with_text == set(RULES) - {"A1a", "A1b"}  # those share A1's text


def test_ids_and_indices_are_pulled_out() -> None:
    [rec, *_] = recognise(
        "messages.22: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk. Each `tool_use` block must have a "
        "corresponding `tool_result` block in the next message."
    )
    assert rec.rule.id == "A1"
    assert rec.index == 22
    assert rec.ids == ("toolu_01HqfLWiAKQLsniF2fBGF2KD", "toolu_01SJzDkeAZER935cpGFptTNk")
    [o4, *_] = recognise(
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_x', in messages[7] and messages[8]."
    )
    assert (o4.rule.id, o4.ids, o4.index, o4.other_index) == ("O4", ("call_x",), 8, 7)
    [kimi, *_] = recognise("Invalid request: tool call id functions.write:9 is duplicated")
    assert kimi.ids == ("functions.write:9",)


O1_TEXT = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
)


@pytest.mark.parametrize(
    "pasted",
    [
        # As the API answers, and as the Python SDK prints it: the next key is not an id.
        json.dumps(
            {
                "error": {
                    "message": f"{O1_TEXT}call_Mq11, call_2",
                    "type": "invalid_request_error",
                    "param": "messages.[2].role",
                    "code": None,
                }
            }
        ),
        "Error code: 400 - "
        + repr(
            {
                "error": {
                    "message": f"{O1_TEXT}call_Mq11, call_2",
                    "type": "invalid_request_error",
                    "param": "messages.[2].role",
                    "code": None,
                }
            }
        ),
    ],
)
def test_ids_end_where_an_error_pasted_as_json_goes_on(pasted: str) -> None:
    [rec, *_] = recognise(pasted)
    assert rec.rule.id == "O1" and rec.ids == ("call_Mq11", "call_2") and rec.index == 2


def test_what_the_error_names_is_said_in_one_wording() -> None:
    [a1, *_] = recognise(
        "messages.22: `tool_use` ids were found without `tool_result` blocks immediately after: a, b. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message."
    )
    assert a1.named() == "index 22; ids a, b"
    [a2, *_] = recognise(
        "messages.5.content.0: unexpected `tool_use_id` found in `tool_result` blocks: x. Each `tool_result` "
        "block must have a corresponding `tool_use` block in the previous message."
    )
    assert a2.named() == "index 5, block 0; ids x"
    [a8, *_] = recognise(
        "messages.3: all messages must have non-empty content except for the optional final assistant message"
    )
    assert a8.named() == "index 3"
    [kimi, *_] = recognise("Invalid request: tool call id functions.write:9 is duplicated")
    assert kimi.named() == "ids functions.write:9"


def test_reworded_text_is_still_recognised() -> None:
    # Qwen's wording of O1, double quotes and an odd index form.
    [rec, *_] = recognise(
        '<400> InternalError.Algo.InvalidParameter: An assistant message with "tool_calls" must be followed by tool '
        'messages responding to each "tool_call_id". The following tool_call_ids did not have response messages: '
        "message[532].role"
    )
    assert rec.rule.id == "O1"
    [rec, *_] = recognise(
        '<400> InternalError.Algo.InvalidParameter: messages with role "tool" must be a response to a preceeding message with "tool_calls".'
    )
    assert rec.rule.id == "O2"


def test_not_found_when_the_transcript_lacks_the_problem() -> None:
    [rec, *_] = recognise("messages.5.content.0: `tool_use` ids must be unique")
    where = locate([U(), A(None, C("toolu_1")), T("toolu_1")], rec)
    assert not where.found


def test_unrecognised_text_gets_closest_rules() -> None:
    assert recognise("the weather is nice today") == []
    near = [r.id for r in closest("tool_result is missing for a tool_use id")]
    assert near and any(r.startswith("A") for r in near)


# -- through the command line ---------------------------------------------------------------------


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "suture", "explain", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    path = tmp_path / "broken.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "fix the build"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
                    ],
                },
                {"role": "user", "content": "also check the lint"},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
            ]
        )
    )
    return path


A1_TEXT = (
    "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. Each "
    "`tool_use` block must have a corresponding `tool_result` block in the next message."
)


def test_cli_explains_and_shows_the_change(broken: Path) -> None:
    r = _run(str(broken), A1_TEXT)
    assert r.returncode == 0, r.stderr
    assert "Recognised: A1" in r.stdout
    assert "  the error names: index 2; ids call_1\n" in r.stdout
    assert "[3] tool" in r.stdout  # the result after the user's text, in the message the error names
    assert "Repair: fixes it" in r.stdout
    assert "moved_result [3]" in r.stdout


def test_cli_reads_the_error_from_stdin(broken: Path) -> None:
    r = _run(str(broken), "-", stdin=A1_TEXT)
    assert r.returncode == 0, r.stderr
    assert "Recognised: A1" in r.stdout


def test_cli_json(broken: Path) -> None:
    r = _run(str(broken), A1_TEXT, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["rule"] == "A1" and out["found"] is True and out["fixed_by_repair"] is True
    assert [m["index"] for m in out["messages"]] == [3]
    assert {c["kind"] for c in out["changes"]} == {"moved_result"}


def test_cli_says_when_the_repair_does_not_fix_it(tmp_path: Path) -> None:
    path = tmp_path / "ids.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "call_98660886", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_98660886", "content": "ok"},
            ]
        )
    )
    r = _run(str(path), "Tool call id was call_98660886 but must be a-z, A-Z, 0-9, with a length of 9.")
    assert r.returncode == 0, r.stderr
    assert "does not fix this" in r.stdout and "9 letters or digits" in r.stdout


def test_cli_recognised_but_not_in_this_file_exits_1(broken: Path) -> None:
    r = _run(str(broken), "Invalid request: tool call id write:9 is duplicated")
    assert r.returncode == 1
    assert "Recognised: K1" in r.stdout
    assert "not in this file: wrong file, or a different request? The error names id write:9." in r.stdout


def test_cli_recognised_but_not_found_exits_1(broken: Path) -> None:
    # A rule whose text names nothing, and no problem of it in the file.
    r = _run(str(broken), "Invalid request: tool call id is duplicated")
    assert r.returncode == 1, r.stdout
    assert "not found: suture's kimi check finds no K1 problem here" in r.stdout


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        (A1_TEXT.replace("call_1", "call_elsewhere"), "id call_elsewhere"),
        (
            A1_TEXT.replace("messages.2", "messages.57").replace(": call_1", ""),
            "index 57 (this history makes 4 messages)",
        ),
        (A1_TEXT.replace("messages.2", "messages.57"), "index 57"),
    ],
)
def test_cli_an_error_about_another_request_says_so_and_exits_1(broken: Path, text: str, absent: str) -> None:
    r = _run(str(broken), text)
    assert r.returncode == 1, r.stdout
    assert "not in this file: wrong file, or a different request?" in r.stdout
    assert absent in r.stdout
    # It points at no message of this file, and makes no claim about the repair fixing it here.
    assert "[1] assistant" not in r.stdout and "Repair:" not in r.stdout
    out = json.loads(_run(str(broken), text, "--json").stdout)
    assert out["in_file"] is False and out["found"] is False and out["messages"] == []
    assert any(absent in a for a in out["absent"])


def test_cli_never_says_the_repair_does_not_fix_what_it_does(tmp_path: Path) -> None:
    """The error's ids are in the file but the file keeps the rule there (the call is answered):
    no "does not fix this" beside "the repair puts every call's result right after it"."""
    path = tmp_path / "answered.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
            ]
        )
    )
    r = _run(str(path), A1_TEXT.replace("messages.2", "messages.1"))
    assert r.returncode == 0, r.stdout
    assert "does not fix" not in r.stdout
    assert "Repair: nothing to repair here" in r.stdout and "differs from this file" in r.stdout


def test_cli_unrecognised_lists_closest_rules(broken: Path) -> None:
    r = _run(str(broken), "something about a tool_result that went wrong")
    assert r.returncode == 1
    assert "does not recognise" in r.stdout and "Closest rules" in r.stdout


@pytest.mark.parametrize(
    "args",
    [("missing.json", A1_TEXT), ("{broken}", ""), ("{broken}", "-")],
)
def test_cli_unreadable_input_exits_2(broken: Path, tmp_path: Path, args: tuple[str, str]) -> None:
    argv = [a.replace("{broken}", str(broken)) if a != "missing.json" else str(tmp_path / a) for a in args]
    r = _run(*argv, stdin="")
    assert r.returncode == 2
    assert r.stderr.startswith("suture: error:")
    assert "Traceback" not in r.stderr


CLAUDE_CODE_WITH_ERROR = Path(__file__).resolve().parent.parent / "sample_sessions" / "claude-code"


def test_cli_uses_the_api_error_the_session_recorded() -> None:
    session = CLAUDE_CODE_WITH_ERROR / "interrupted-then-api-error.jsonl"
    r = _run(str(session))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("The API error recorded at line ")
    assert "Recognised: A1" in r.stdout and "synthetic_interrupt" in r.stdout
    out = json.loads(_run(str(session), "--json").stdout)
    assert "tool_use` ids were found" in out["error"] and out["found"] is True


@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["human", "json"])
def test_cli_without_error_text_on_a_file_that_records_none_is_a_usage_error(
    broken: Path, tmp_path: Path, json_flag: tuple[str, ...]
) -> None:
    """Nothing to explain is a usage error: one line on stderr, exit 2, nothing on stdout."""
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    for path in (broken, empty):
        before = path.read_bytes()
        r = _run(*json_flag, str(path))
        said = (
            f"{path} records no API error: pass the provider's error text as ERROR or --error, "
            "or '-' to read it from stdin"
        )
        assert r.returncode == 2, r.stdout
        # (with --json, the same line on stdout as JSON too)
        assert r.stdout == (
            json.dumps({"error": said, "exit_code": 2}, separators=(",", ":")) + "\n" if json_flag else ""
        )
        assert r.stderr == f"suture: error: {said}\n"
        assert path.read_bytes() == before


JSON_SAMPLES = sorted(
    p for p in (Path(__file__).resolve().parent.parent / "sample_sessions").rglob("*.json") if p.name != "shape.json"
)


@pytest.mark.parametrize("path", JSON_SAMPLES, ids=lambda p: p.name)
def test_a_line_of_a_json_document_goes_to_the_message_whose_record_holds_it(path: Path) -> None:
    # The line the details' record as written shows for a message ("$[5] (line 10)"): typed as a
    # pointer, it and every other line of that record go to the message (or, where records share
    # a line, the first of them); a line between records to the next one.
    from suture import load_file
    from suture.checks.explain import resolve
    from suture.written import document_lines, written

    messages = load_file(path).messages
    data = path.read_bytes()
    spans = []
    for m in messages:
        [record] = written(data, m.source)
        spans.append((record.line, record.line + record.data.count(b"\n")))
    asked = []

    def document() -> list[tuple[int, int] | None]:
        asked.append(True)
        return document_lines(data, [m.source for m in messages])

    for line in range(1, data.count(b"\n") + 2):
        found = resolve(messages, f"line {line}", document=document)
        holding = [i for i, (first, last) in enumerate(spans) if first <= line <= last]
        later = sorted((first, i) for i, (first, _) in enumerate(spans) if first > line)
        if holding:
            assert (found.indices, found.said) == ([holding[0]], f"line {line}"), line
        elif later:
            assert found.indices == [later[0][1]], line
            assert found.said == f"line {line} holds no message; the next one read is on line {later[0][0]}"
        else:
            assert found.indices == [] and "no message was read from it or after it" in found.said
    assert asked
    # Other pointers do not read the file's lines; without them a line is refused, saying why.
    asked.clear()
    assert resolve(messages, "#0", document=document).indices == [0] and not asked
    assert "the file is one JSON document" in resolve(messages, "line 2").said


SESSION_SAMPLES = sorted(
    p
    for folder in ("claude-code", "codex", "pi", "recorded")
    for p in (SAMPLES / folder).rglob("*.jsonl")
    if p.name != "requests.jsonl"
)


@pytest.mark.parametrize("path", SESSION_SAMPLES, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_goto_a_place_of_what_an_agent_sends_goes_to_a_message_sent_there(path: Path) -> None:
    # A result the agent makes up for a call is traced to the call's message, sent at a place
    # before: going to a user turn goes to a message of that turn, not to the call before it.
    transcript = load_file(str(path))
    request = sent_request(transcript)
    assert request is not None  # a session log: what its agent sends is modelled
    for n, entry in enumerate(request.wire):
        found = resolve(transcript.messages, f"{request.key}.{n}", None, request)
        if not found.indices or not isinstance(entry, dict) or entry.get("role") != "user":
            continue
        roles = [transcript.messages[i].role for i in found.indices]
        if any(role != "assistant" for role in roles):  # (else the place holds only a made-up result)
            assert roles[0] != "assistant", (n, found)


def test_goto_past_the_end_counts_the_new_prompt() -> None:
    transcript = load_file(str(SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"))
    request = sent_request(transcript)
    found = resolve(transcript.messages, "messages.3", "anthropic", request)
    assert found.indices == [2, 3, 4, 1]  # the result, the texts after it, then the call answered here
    beyond = resolve(transcript.messages, "messages.9", "anthropic", request)
    assert beyond.said == "messages.9 (the request has 5, the last the new prompt the agent adds)"


@pytest.mark.parametrize("path", SESSION_SAMPLES, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_goto_a_place_the_agent_fills_itself_says_what_it_sends_there(path: Path) -> None:
    # A place of the request that holds a message the agent adds (its system stand-in, its
    # instructions, the new prompt) is named for what it is, as explain names it: not a bare
    # "nothing at messages.1".
    transcript = load_file(str(path))
    request = sent_request(transcript)
    assert request is not None
    for n, what in request.added.items():
        found = resolve(transcript.messages, f"{request.key}.{n}", None, request)
        if found.indices:  # (a place that also holds messages of the file)
            continue
        assert found.said.endswith(f"({what}, which this file does not hold)"), (n, found.said)


def test_a_short_id_the_error_names_narrows_to_the_call_that_has_it() -> None:
    # "y" is a word of no error but this one: the message with call y, not every message whose
    # problem's words hold the letter.
    transcript = load_file(str(SAMPLES / "chat" / "worked-example.json"))
    text = (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: y"
    )
    (rec,) = [r for r in recognise(text) if r.rule.id == "O1"]
    assert rec.ids == ("y",)
    where = locate(transcript.messages, rec)
    assert where.indices == [1]
    assert all("y" in {c.id for c in transcript.messages[i].tool_calls} for i in where.indices)


@pytest.mark.parametrize(
    "text",
    [
        "messages.1.content.1: Invalid `signature` in `thinking` block",
        "messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
        "modified. These blocks must remain as they were in the original response.",
    ],
)
def test_an_error_no_check_sees_is_not_the_whitespace_block_the_check_finds(text: str) -> None:
    """The check finds A12's whitespace-only block in front of the thinking block; an invalid
    signature is another problem of A12 that no check sees: its answer is A12's own remedy."""
    messages = [U(), A([TextPart("\n\n"), thought()]), U("go")]
    found = explain(messages, text)
    assert found.recognition is not None and found.recognition.unseen
    assert found.found and found.indices == [1] and not found.flagged
    assert found.verdict() == f"Repair: does not fix this kind of problem. What to do: {RULES['A12'].remedy}"


def test_the_texts_no_check_writes_are_told_from_the_ones_it_writes() -> None:
    unseen = {k for k, text in enumerate(RULES["A12"].errors) if recognise(text)[0].unseen}
    assert unseen == set(RULES["A12"].unseen) == {3, 4, 5}
    assert not any(r.unseen for rule in RULES.values() if not rule.unseen for r in recognise(rule.errors[0]))
