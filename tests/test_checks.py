"""Provider checks (``suture.checks``): for every rule of the rule table, a minimal history that
breaks it, the violation found (provider's index, neutral index, the provider's text), whether
the repair fixes it, and a history that does not break it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from suture.checks import PROVIDERS, RULES, check, resolve, verdict, verdicts
from suture.checks.resume import Checks
from suture.io import InputError
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart
from suture.repair import repair
from tests.helpers.messages import A, C, S, T, U, thought

_IMAGE = ImagePart({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}, "image/png")

# One history every provider accepts: 9-character ids (Mistral), a user message last, roles in
# the order Mistral allows, results right after their call, no empty text.
CLEAN = [S(), U("fix the build"), A(None, C("abcdefghi", "read")), T("abcdefghi", "ok"), A("done"), U("thanks")]


@dataclass
class Case:
    provider: str
    rule: str
    broken: list[Message]
    index: int
    error: str
    where: str
    fixed: bool
    clean: list[Message] = field(default_factory=list)
    exact: bool = True


CASES: list[Case] = [
    # -- Anthropic -----------------------------------------------------------------------------
    Case(
        "anthropic",
        "A1",
        [U(), A(None, C("toolu_1")), U("next")],
        1,
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        "messages.2",
        True,
        [U(), A(None, C("toolu_1")), T("toolu_1"), U("next")],
    ),
    Case(
        "anthropic",
        "A1a",
        [S(), U(), A(None, C("toolu_1")), U("wait"), T("toolu_1")],
        4,  # the result after the user's text, in the message the error names
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages "
        "following `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
        "messages.2",
        True,
        [S(), U(), A(None, C("toolu_1")), T("toolu_1"), U("wait")],
    ),
    Case(
        "anthropic",
        "A1b",
        [
            Message(
                "assistant",
                [TextPart("I will check the weather.")],
                (C("call_1", "get_weather"),),
                raw={
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}},
                        {"type": "text", "text": "I will check the weather."},
                    ],
                },
            ),
            T("call_1"),
            U("Use that result to answer briefly."),
        ],
        0,
        # The recorded 400 (anomalyco/opencode recording): the same text as A1, at messages.1.
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        "messages.0.content.1",
        False,
        [A([TextPart("I will check the weather.")], C("call_1", "get_weather")), T("call_1"), U("Use that.")],
    ),
    Case(
        "anthropic",
        "A2",
        [U(), A(None, C("toolu_1")), T("toolu_1"), T("toolu_9")],
        3,
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
        "messages.2.content.1",
        True,
        [U(), A(None, C("toolu_1")), T("toolu_1")],
    ),
    Case(
        "anthropic",
        "A3",
        [U(), A(None, C("toolu_1")), T("toolu_1"), A(None, C("toolu_1")), T("toolu_1")],
        3,
        "messages.3.content.0: `tool_use` ids must be unique",
        "messages.3.content.0",
        True,
        [U(), A(None, C("toolu_1")), T("toolu_1"), A(None, C("toolu_2")), T("toolu_2")],
    ),
    Case(
        "anthropic",
        "A4",
        [U(), A(None, C("toolu_1")), T("toolu_1"), T("toolu_1")],
        3,
        "messages.2.content.1: each tool_use must have a single result. Found multiple tool_result blocks with "
        "id: toolu_1",
        "messages.2.content.1",
        True,
        [U(), A(None, C("toolu_1")), T("toolu_1")],
    ),
    Case(
        "anthropic",
        "A5",
        [U(), A(None, C("functions.read:0")), T("functions.read:0")],
        1,
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        "messages.1.content.0",
        False,
        [U(), A(None, C("functions-read-0")), T("functions-read-0")],
    ),
    Case(
        "anthropic",
        "A5",
        [U(), A(None, C("")), T("")],
        1,
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        "messages.1.content.0",
        True,
        [U(), A(None, C("call_1_0")), T("call_1_0")],
    ),
    Case(
        "anthropic",
        "A6",
        [U([TextPart("see"), OtherPart({"type": "tool_use", "id": "toolu_1"}, "tool_use")]), A("ok")],
        0,
        "`tool_use` blocks can only be in `assistant` messages",
        "messages.0.content.1",
        False,
        [U([TextPart("see")]), A("ok")],
    ),
    Case(
        "anthropic",
        "A7",
        [U([TextPart("hi"), TextPart("  ")]), A("ok")],
        0,
        "messages: text content blocks must contain non-whitespace text",
        "messages.0.content.1",
        False,
        [U([TextPart("hi")]), A("ok")],
    ),
    Case(
        "anthropic",
        "A7",
        [U("hi"), A([TextPart("")]), U("again")],
        1,
        "messages: text content blocks must be non-empty",
        "messages.1.content.0",
        True,
        [U("hi"), A("ok"), U("again")],
    ),
    Case(
        "anthropic",
        "A8",
        [U(""), A("ok"), U("go")],
        0,
        "messages.0: all messages must have non-empty content except for the optional final assistant message",
        "messages.0",
        False,
        [U("hello"), A("ok"), U("go"), A(None)],
    ),
    Case(
        "anthropic",
        "A8",
        [U("a"), A(None), U("b")],
        1,
        "messages.1: all messages must have non-empty content except for the optional final assistant message",
        "messages.1",
        True,
        [U("a"), A("b"), U("c")],
    ),
    Case(
        "anthropic",
        "A9",
        [U(), A("The answer is 4.  ")],
        1,
        "messages: final assistant content cannot end with trailing whitespace",
        "messages.1.content.0",
        False,
        [U(), A("The answer is 4.")],
    ),
    Case(
        "anthropic",
        "A12",
        [U(), A([TextPart("hi"), thought()]), U("go on")],
        1,
        "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be "
        "thinking or redacted_thinking. Found text.",
        "messages.1.content.0",
        False,
        [U(), A([thought(), TextPart("hi")]), U("go on")],
    ),
    Case(
        "anthropic",
        "A12",
        [U(), A([thought()], C("toolu_1")), T("toolu_1"), U("next"), A(None, C("toolu_2")), T("toolu_2")],
        4,
        "messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
        "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
        "messages.3.content.0",
        False,
        [U(), A([thought()], C("toolu_1")), T("toolu_1"), U("next"), A([thought()], C("toolu_2")), T("toolu_2")],
    ),
    Case(
        "anthropic",
        "A12",
        [U(), A([thought()])],
        1,
        "messages.1: The final block in an assistant message cannot be `thinking`.",
        "messages.1",
        False,
        [U(), A([thought(), TextPart("hi")])],
    ),
    Case(
        "anthropic",
        "A12",
        [U(), A([thought(None), TextPart("hi")]), U("go")],
        1,
        "messages.1.content.0.thinking.signature: Field required",
        "messages.1.content.0",
        False,
        [U(), A([thought(), TextPart("hi")]), U("go")],
    ),
    Case(
        "anthropic",
        "A13",
        [U(), A(None, C("toolu_1")), Message("tool", "", tool_call_id="toolu_1", is_error=True)],
        2,
        "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
        "messages.2.content.0",
        False,
        [U(), A(None, C("toolu_1")), Message("tool", "timed out after 30 s", tool_call_id="toolu_1", is_error=True)],
    ),
    # A request with no message: a problem of the list itself (index LIST, -1), which the
    # repair cannot fix. A system prompt alone is no message for Anthropic: it goes in ``system``.
    Case(
        "anthropic",
        "A14",
        [S()],
        -1,
        "messages: at least one message is required",
        "messages",
        False,
        [S(), U()],
    ),
    # -- OpenAI Chat -------------------------------------------------------------------------------
    Case(
        "openai-chat",
        "O1",
        [U(), A(None, C("call_1")), U("wait")],
        1,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_1 "
        "(param: messages.[1].role)",
        "messages[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1"), U("wait")],
    ),
    Case(
        "openai-chat",
        "O2",
        [U(), T("call_9")],
        1,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
        "'tool_calls'. (param: messages.[1].role)",
        "messages[1]",
        True,
        [U(), A(None, C("call_9")), T("call_9")],
    ),
    Case(
        "openai-chat",
        "O2",
        [U(), A(None, C("call_1")), T("call_1"), T("call_9")],
        3,
        "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
        "messages[3]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-chat",
        "O3",
        [U(), A(None, C("call_1")), T("call_1"), T("")],
        3,
        "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        "messages[3]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-chat",
        "O3",
        [U(), A(None, C("")), U("x")],
        1,
        "Missing required parameter: 'messages[1].tool_calls[0].id'.",
        "messages[1].tool_calls[0].id",
        True,
        [U(), A(None, C("call_1")), T("call_1"), U("x")],
    ),
    Case(
        "openai-chat",
        "O4",
        [U(), A(None, C("call_1")), T("call_1"), T("call_1")],
        3,
        "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[2] and messages[3].",
        "messages[3]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-chat",
        "O5",
        [U(), A(None, C("chatcmpl-tool-" + "a" * 32)), T("chatcmpl-tool-" + "a" * 32)],
        1,
        "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, "
        "but got a string with length 46 instead.",
        "messages[1].tool_calls[0].id",
        False,
        [U(), A(None, C("chatcmpl-tool-" + "a" * 26)), T("chatcmpl-tool-" + "a" * 26)],
    ),
    # An empty list is rejected; a system message alone is a request OpenAI takes (the clean case).
    Case(
        "openai-chat",
        "O6",
        [],
        -1,
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        "messages",
        False,
        [S()],
    ),
    Case(
        "openai-chat",
        "O7",
        [U(), A(None, C("call_1", "screenshot")), T("call_1", [_IMAGE])],
        2,
        "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with "
        "role 'tool' contains an image URL.",
        "messages[2]",
        False,
        [U(), A(None, C("call_1", "screenshot")), T("call_1", "taken"), U([_IMAGE])],
    ),
    Case(
        "openai-chat",
        "O7",
        [U("draw a cat"), A([_IMAGE]), U("describe it")],
        1,
        "Invalid 'messages[1]'. Image URLs are only allowed for messages with role 'user', but this message with "
        "role 'assistant' contains an image URL.",
        "messages[1]",
        False,
        [U([_IMAGE]), A("a cat"), U("describe it")],
    ),
    # An assistant message with nothing in it: the repair drops it. (A message of another format
    # that only makes calls is written with content null: the clean case.)
    Case(
        "openai-chat",
        "O8",
        [U(), A([]), U("again")],
        1,
        "Invalid 'messages[1].content': empty array. Expected an array with minimum length 1, but got an empty "
        "array instead.",
        "messages[1].content",
        True,
        [U(), A([], C("call_1")), T("call_1"), U("again")],
    ),
    # -- OpenAI Responses --------------------------------------------------------------------------------
    Case(
        "openai-responses",
        "R1",
        [U(), A(None, C("call_1"))],
        1,
        "No tool output found for function call call_1.",
        "input[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-responses",
        "R2",
        [U(), A("hi"), T("call_9")],
        2,
        "No tool call found for function call output with call_id call_9.",
        "input[2]",
        True,
        [U(), A("hi")],
    ),
    Case(
        "openai-responses",
        "R3",
        [
            U(),
            A(None, C("call_1", raw={"type": "function_call", "id": "fc_1", "call_id": "call_1"})),
            T("call_1"),
            A(None, C("call_2", raw={"type": "function_call", "id": "fc_1", "call_id": "call_2"})),
            T("call_2"),
        ],
        3,
        "Duplicate item found with id fc_1. Remove duplicate items from your input and try again.",
        "input[3]",
        False,
        [
            U(),
            A(None, C("call_1", raw={"type": "function_call", "id": "fc_1", "call_id": "call_1"})),
            T("call_1"),
            A(None, C("call_2", raw={"type": "function_call", "id": "fc_2", "call_id": "call_2"})),
            T("call_2"),
        ],
    ),
    Case(
        "openai-responses",
        "R4",
        [U(), A(None, C("c" * 70)), T("c" * 70)],
        1,
        "Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64, but got a string "
        "with length 70 instead.",
        "input[1]",
        False,
        [U(), A(None, C("c" * 64)), T("c" * 64)],
    ),
    Case(
        "openai-responses",
        "R8",
        [U(), A(None, C("")), T("call_1")],
        1,
        "Missing required parameter: 'input[1].call_id'.",
        "input[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-responses",
        "R8",
        [U(), A(None, C("call_1")), T("")],
        2,
        "Missing required parameter: 'input[2].call_id'.",
        "input[2]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-responses-strict",
        "R7",
        [U(), A(None, C("call_1")), U("also check the lint"), T("call_1")],
        1,
        "No tool output found for tool call call_1",
        "input[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1"), U("also check the lint")],
    ),
    Case(
        "openai-responses-strict",
        "R9",
        [U(), A(None, C("call_1")), T("call_1"), T("call_1", "again")],
        3,
        "Duplicate function_call_output for call_id 'call_1'. Each function_call must have exactly one "
        "matching function_call_output",
        "input[3]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "openai-responses",
        "R5",
        [U(), A(None, C("call_1", raw={"type": "function_call", "id": "msg_1", "call_id": "call_1"})), T("call_1")],
        1,
        "Invalid 'input[1].id': 'msg_1'. Expected an ID that begins with 'fc'.",
        "input[1]",
        False,
        [U(), A(None, C("call_1", raw={"type": "function_call", "id": "fc_1", "call_id": "call_1"})), T("call_1")],
    ),
    Case(
        "openai-responses",
        "R6",
        [U(), A([ThinkingPart("plan", {"type": "reasoning", "id": "rs_1"})]), U("go")],
        1,
        "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
        "input[1]",
        False,
        [U(), A([ThinkingPart("plan", {"type": "reasoning", "id": "rs_1"}), TextPart("done")]), U("go")],
    ),
    # -- Gemini ---------------------------------------------------------------------------------------
    Case(
        "gemini",
        "G1",
        [U(), T("call_1")],
        1,
        "Please ensure that function response turn comes immediately after a function call turn.",
        "contents[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
    Case(
        "gemini",
        "G1",
        [U(), A(None, C("call_1")), U("wait")],
        1,
        "Please ensure that function response turn comes immediately after a function call turn.",
        "contents[2]",
        True,
        [U(), A(None, C("call_1")), T("call_1"), U("wait")],
    ),
    Case(
        "gemini",
        "G2",
        [U(), A("let me look"), A(None, C("call_1")), T("call_1")],
        2,
        "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        "contents[2]",
        False,
        [U(), A("let me look", C("call_1")), T("call_1")],
    ),
    Case(
        "gemini",
        "G3",
        [U(), A(None, C("call_1"), C("call_2")), T("call_1"), U("x")],
        1,
        "Please ensure that the number of function response parts is equal to the number of function call parts "
        "of the function call turn.",
        "contents[2]",
        True,
        [U(), A(None, C("call_1"), C("call_2")), T("call_1"), T("call_2"), U("x")],
    ),
    Case(
        "gemini",
        "G4",
        [
            U(),
            A(None, C("call_1", raw={"functionCall": {"name": "read"}, "thoughtSignature": "sig"})),
            T("call_1"),
            A(None, C("call_2", raw={"functionCall": {"name": "read"}})),
            T("call_2"),
        ],
        3,
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
        "function call `default_api:read` , position 4. Please refer to "
        "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
        "contents[3]",
        False,
        [
            U(),
            A(None, C("call_1", raw={"functionCall": {"name": "read"}, "thoughtSignature": "sig"})),
            T("call_1"),
            A(None, C("call_2", raw={"functionCall": {"name": "read"}, "thoughtSignature": "sig2"})),
            T("call_2"),
        ],
    ),
    Case(
        "gemini",
        "G5",
        [U(""), A("x"), U("y")],
        0,
        "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.",
        "contents[0]",
        False,
        [U("hello"), A("x"), U("y")],
    ),
    Case(
        "gemini",
        "G6",
        [S()],  # the system prompt goes in systemInstruction: contents is empty
        -1,
        "* GenerateContentRequest.contents: contents is not specified",
        "contents",
        False,
        [S(), U()],
    ),
    # -- Mistral -------------------------------------------------------------------------------------------
    Case(
        "mistral",
        "M1",
        [U(), A(None, C("call_98660886")), T("call_98660886")],
        1,
        "Tool call id was call_98660886 but must be a-z, A-Z, 0-9, with a length of 9.",
        "messages[1]",
        False,
        [U(), A(None, C("abcdefghi")), T("abcdefghi")],
    ),
    Case(
        "mistral",
        "M2",
        [U(), A(None, C("abcdefghi"), C("bcdefghij")), T("abcdefghi")],
        1,
        "Not the same number of function calls and responses",
        "messages[1]",
        True,
        [U(), A(None, C("abcdefghi"), C("bcdefghij")), T("abcdefghi"), T("bcdefghij")],
    ),
    Case(
        "mistral",
        "M3",
        [U(), A(None, C("abcdefghi")), T("abcdefghi"), U("next")],
        3,
        "Unexpected role 'user' after role 'tool'",
        "messages[3]",
        False,
        [U(), A(None, C("abcdefghi")), T("abcdefghi"), A("ok"), U("next")],
    ),
    Case(
        "mistral",
        "M4",
        [U(), A("done")],
        1,
        "Expected last role User or Tool (or Assistant with prefix or continue_final_message set to True) for "
        "serving but got assistant",
        "messages[1]",
        False,
        [U(), A("done"), U("thanks")],
    ),
    Case(
        "mistral",
        "M5",
        [U(), A(None, C("abcdefghi")), T("abcdefghi"), T("abcdefghi")],
        3,
        "Duplicate tool call id abcdefghi in tool results",
        "messages[3]",
        True,
        [U(), A(None, C("abcdefghi")), T("abcdefghi")],
    ),
    Case(
        "mistral",
        "M5",
        [U(), A(None, C("abcdefghi")), T("zzzzzzzzz")],
        2,
        "Unexpected tool call id zzzzzzzzz in tool results",
        "messages[2]",
        True,
        [U(), A(None, C("abcdefghi")), T("abcdefghi")],
    ),
    Case(
        "mistral",
        "M5",
        [U(), A(None, C("abcdefghi"), C("abcdefghi")), T("abcdefghi"), T("abcdefghi")],
        1,
        "Duplicate tool call id abcdefghi in assistant message",
        "messages[1]",
        True,
        [U(), A(None, C("abcdefghi"), C("bcdefghij")), T("abcdefghi"), T("bcdefghij")],
    ),
    # The validator rejects an empty list; one system message passes it (the clean case).
    Case("mistral", "M6", [], -1, "Conversation must have at least one message", "messages", False, [S()]),
    # -- Kimi ---------------------------------------------------------------------------------------------
    Case(
        "kimi",
        "K1",
        [U(), A(None, C("write:9")), T("write:9"), A(None, C("write:9")), T("write:9")],
        3,
        "Invalid request: tool call id write:9 is duplicated",
        "messages[3]",
        True,
        [U(), A(None, C("write:9")), T("write:9"), A(None, C("write:10")), T("write:10")],
    ),
    Case(
        "kimi",
        "K2",
        [U(), A(None), U("again")],
        1,
        "Invalid request: the message at position 1 with role 'assistant' must not be empty",
        "messages[1]",
        True,
        [U(), A("hi"), U("again")],
    ),
    Case(
        "kimi",
        "O1",
        [U(), A(None, C("search:0")), U("and?")],
        1,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: search:0 "
        "(param: messages.[1].role)",
        "messages[1]",
        True,
        [U(), A(None, C("search:0")), T("search:0"), U("and?")],
    ),
    # -- Bedrock ----------------------------------------------------------------------------------------------
    Case(
        "bedrock",
        "B1",
        [U(), A(None, C("tooluse_1")), T("tooluse_1"), T("tooluse_2")],
        2,
        "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.",
        "messages.2.content",
        True,
        [U(), A(None, C("tooluse_1")), T("tooluse_1")],
    ),
    Case(
        "bedrock",
        "B2",
        [U(), A(None, C("tooluse_1"), C("tooluse_2")), T("tooluse_1")],
        1,
        "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_2",
        "messages.2.content",
        True,
        [U(), A(None, C("tooluse_1"), C("tooluse_2")), T("tooluse_1"), T("tooluse_2")],
    ),
    Case(
        "bedrock",
        "B3",
        [S(), A("hello"), U("hi")],
        1,
        "A conversation must start with a user message. Try again with a conversation that starts with a user message.",
        "messages.0",
        False,
        [S(), U("hi"), A("hello")],
    ),
    Case(
        "bedrock",
        "B3",
        [U(), A("one"), A("two")],
        2,
        "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
        "between user and assistant roles and try again.",
        "messages.2",
        False,
        [U(), A("one two")],
    ),
    Case(
        "bedrock",
        "B6",
        [U(), A(None, C("functions.read:0")), T("functions.read:0")],
        1,
        "Value 'functions.read:0' at 'messages.2.member.content.1.member.toolUse.toolUseId' failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
        "messages.1.content.0",
        False,
        [U(), A(None, C("functions_read_0")), T("functions_read_0")],
    ),
    # -- DeepSeek ----------------------------------------------------------------------------------------------
    Case(
        "deepseek",
        "D1",
        [U(), A([thought(None)], C("call_1")), T("call_1"), A(None, C("call_2")), T("call_2")],
        3,
        "Missing `reasoning_content` field in the assistant message at message index 3. For more information, "
        "please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
        "messages[3]",
        False,
        [
            U(),
            A([thought(None)], C("call_1")),
            T("call_1"),
            Message("assistant", None, (C("call_2"),), raw={"role": "assistant", "reasoning_content": ""}),
            T("call_2"),
        ],
    ),
    Case(
        "deepseek",
        "O1",
        [U(), A(None, C("call_1")), U("wait")],
        1,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. (insufficient tool messages following tool_calls message)",
        "messages[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1"), U("wait")],
    ),
    Case(
        "deepseek",
        "O2",
        [U(), T("call_1")],
        1,
        "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
        "messages[1]",
        True,
        [U(), A(None, C("call_1")), T("call_1")],
    ),
]


def _case_id(case: Case) -> str:
    return f"{case.provider}-{case.rule}-{case.where}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_rule_is_found_with_the_providers_text(case: Case) -> None:
    found = [v for v in check(case.broken, case.provider) if v.rule == case.rule and v.where == case.where]
    assert found, [f"{v.rule} {v.where} {v.error}" for v in check(case.broken, case.provider)]
    v = found[0]
    assert v.provider == case.provider
    assert v.index == case.index
    assert v.error == case.error
    assert v.fixed is case.fixed
    assert v.remedy
    assert v.problem


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_clean_history_does_not_break_the_rule(case: Case) -> None:
    assert case.clean
    assert [v.error for v in check(case.clean, case.provider) if v.rule == case.rule] == []


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_repair_removes_exactly_the_problems_it_is_meant_to_fix(case: Case) -> None:
    result = verdict(case.broken, case.provider)
    after = {v.rule for v in result.after}
    if case.fixed:
        assert case.rule not in after
    matching = [v for v in result.before if v.rule == case.rule and v.where == case.where]
    assert matching and matching[0].fixed is case.fixed


def test_thinking_left_out_of_a_later_step_of_the_same_tool_turn_is_not_flagged() -> None:
    # With interleaved thinking a model may skip thinking in a later step of one tool turn.
    history = [U(), A([thought()], C("toolu_1")), T("toolu_1"), A(None, C("toolu_2")), T("toolu_2")]
    assert check(history, "anthropic") == []


def test_every_rule_of_the_table_has_a_case() -> None:
    checked = {c.rule for c in CASES}
    # A10 and A11 are older Anthropic wordings of what Bedrock now enforces as B3.
    assert set(RULES) - checked == {"A10", "A11"}
    assert RULES["A10"].members == ("B3",) and RULES["A11"].members == ("B3",)


def test_every_rule_cites_a_source_and_providers() -> None:
    for r in RULES.values():
        assert r.source and r.providers and r.errors and r.remedy
        assert set(r.providers) <= set(PROVIDERS)
        assert r.fixed in ("yes", "no", "some")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_clean_history_passes_every_provider(provider: str) -> None:
    assert check(CLEAN, provider) == []
    v = verdict(CLEAN, provider)
    assert v.counts == (0, 0)
    assert v.summary() == f"{provider}: no problems"


def test_anthropic_indices_count_wire_messages_not_neutral_ones() -> None:
    # A system prompt is not a message; two results and the user text after them are one message.
    history = [
        S(),
        U("start"),
        A(None, C("toolu_a"), C("toolu_b")),
        T("toolu_a"),
        T("toolu_b"),
        U("and the tests"),
        A(None, C("toolu_c")),
        U("hurry"),
    ]
    [v] = check(history, "anthropic")
    assert v.rule == "A1"
    assert v.index == 6  # the neutral message
    # messages: 0 "start", 1 the two calls, 2 both results and "and the tests", 3 the call, 4 "hurry"
    assert v.wire_index == 4  # the message that should hold the result
    assert v.error.startswith(
        "messages.4: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_c."
    )
    assert v.related == (7,)


def test_anthropic_duplicate_ids_are_checked_across_the_whole_request() -> None:
    history = [
        U(),
        A(None, C("toolu_1")),
        T("toolu_1"),
        U("more"),
        A("ok"),
        U("again"),
        A(None, C("toolu_1")),
        T("toolu_1"),
    ]
    rules = [(v.rule, v.index, v.related) for v in check(history, "anthropic")]
    assert rules == [("A3", 6, (1,))]


def test_mistral_duplicate_ids_are_only_checked_within_one_assistant_message() -> None:
    history = [U(), A(None, C("abcdefghi")), T("abcdefghi"), A(None, C("abcdefghi")), T("abcdefghi"), U("ok")]
    assert [v.rule for v in check(history, "mistral")] == ["M3"]
    assert [v.rule for v in check(history, "kimi")] == ["K1"]


def test_openai_duplicate_results_are_checked_across_the_request() -> None:
    history = [U(), A(None, C("call_1")), T("call_1"), A("ok"), U("again"), A(None, C("call_1")), T("call_1")]
    [v] = [v for v in check(history, "openai-chat") if v.rule == "O4"]
    assert v.index == 6 and v.related == (2,)


def test_mistral_first_message_quirk_is_not_claimed_as_fixed() -> None:
    # The validator skips the first message, so results for its calls are "unexpected".
    history = [A(None, C("abcdefghi")), T("abcdefghi"), U("next")]
    [m5] = [v for v in check(history, "mistral") if v.rule == "M5"]
    assert not m5.fixed and "first message" in m5.remedy


def test_verdict_counts_and_summary() -> None:
    broken = [U(), A(None, C("toolu_1")), U("next"), T("toolu_9")]
    v = verdict(broken, "anthropic")
    assert v.counts == (len(v.before), 0)
    assert v.counts[0] >= 2
    assert v.summary() == f"anthropic: {v.counts[0]} problems → 0 after repair"
    assert all(x.fixed for x in v.before)


def test_verdicts_share_one_repair() -> None:
    broken = [U(), A(None, C("toolu_1")), U("next")]
    result = repair(broken)
    found = verdicts(broken, repaired=result)
    assert list(found) == list(PROVIDERS)
    assert all(v.repair is result for v in found.values())


def test_verdict_marks_fixed_by_what_the_repair_did() -> None:
    # A bad id on a result that has no call: the rule says "rename it", but repair turns the
    # result into a note, so the problem is gone and the verdict says so.
    history = [U(), A("hi"), T("bad.id"), U("x")]
    [static] = [v for v in check(history, "anthropic") if v.rule == "A5"]
    assert static.fixed  # no call has that id: it becomes a note
    history = [U(), A(None, C("bad.id")), T("bad.id"), U("x")]
    v = verdict(history, "anthropic")
    assert [(x.rule, x.fixed) for x in v.before] == [("A5", False), ("A5", False)]
    assert [x.rule for x in v.after] == ["A5", "A5"]


def test_a_problem_of_the_requests_end_is_fixed_only_where_the_repaired_request_ends_well() -> None:
    # The repair drops the whitespace reply at the end; the request still ends with an assistant
    # message, so Mistral's M4 is not fixed (it was said to be: its message was gone).
    history = [U(), A("hello"), A(" ")]
    v = verdict(history, "mistral")
    assert [(x.rule, x.index, x.fixed) for x in v.before] == [("M4", 2, False)]
    assert [(x.rule, x.index) for x in v.after] == [("M4", 1)]
    assert "fixed" not in v.before[0].remedy and "prefix" in v.before[0].remedy
    # Where dropping it leaves a user message at the end, it is fixed, and the remedy says how.
    [fixed] = verdict([U(), A(" ")], "mistral").before
    assert (fixed.rule, fixed.fixed) == ("M4", True) and "drops the empty assistant message" in fixed.remedy
    [ends_with_calls] = [x for x in verdict([U(), A(None, C("abcdefghi"))], "mistral").before if x.rule == "M4"]
    assert ends_with_calls.fixed


def test_a_problem_of_the_requests_start_is_looked_for_where_it_starts_after_repair() -> None:
    v = verdict([A(" "), A("hello"), U("x")], "bedrock")
    start = [x for x in v.before if x.rule == "B3" and x.where == "messages.0"]
    assert [(x.index, x.fixed) for x in start] == [(0, False)]
    assert any(x.rule == "B3" and x.where == "messages.0" for x in v.after)
    [gone] = [x for x in verdict([A(" "), U("x")], "bedrock").before if x.rule == "B3"]
    assert gone.fixed


@pytest.mark.parametrize("resumed", [False, True], ids=["full", "resumed"])
def test_two_assistant_messages_in_a_row_are_fixed_where_the_one_left_starts_the_conversation(resumed: bool) -> None:
    # Bedrock's B3 is two problems: a conversation that starts with an assistant message, and two
    # assistant messages in a row. The repair drops the empty first message: the two in a row are
    # gone, though the one left, at the same repaired message, now starts the conversation.
    history = [A(" "), A("hello"), U("x")]
    result = repair(history)
    v = Checks(["bedrock"]).verdicts(history, result)["bedrock"] if resumed else verdict(history, "bedrock", result)
    assert [(x.where, x.problem, x.fixed) for x in v.before] == [
        ("messages.0", "the conversation starts with an assistant message", False),
        ("messages.1", "two assistant messages in a row (messages.0 and messages.1)", True),
    ]
    assert v.before[1].remedy == RULES["B3"].fix
    assert [(x.index, x.problem) for x in v.after] == [(0, "the conversation starts with an assistant message")]
    # Where two assistant messages stay in a row, that one is not fixed.
    kept = verdict([U(), A("hello"), A("again")], "bedrock")
    assert [(x.rule, x.fixed) for x in kept.before] == [("B3", False)]


def test_an_empty_content_list_read_from_a_chat_record_is_sent_as_it_was() -> None:
    # A record read with content [] beside its calls is written back as read: OpenAI answers 400
    # (langchain-ai/langchainjs#11416), and the repair does not drop a message that makes calls.
    kept = Message("assistant", [], (C("call_1"),), raw={"role": "assistant", "content": [], "tool_calls": []})
    v = verdict([U(), kept, T("call_1")], "openai-chat")
    assert [(x.rule, x.index, x.fixed) for x in v.before] == [("O8", 1, False)]
    assert [x.rule for x in v.after] == ["O8"]
    # No report says a user message's empty list is rejected: not flagged.
    assert check([U(""), U([])], "openai-chat") == []


def test_violation_json_has_every_field() -> None:
    [v] = check([U(), A(None, C("toolu_1")), U("next")], "anthropic")
    out = v.to_json()
    assert out["rule"] == "A1" and out["index"] == 1 and out["where"] == "messages.2"
    assert out["fixed_by_repair"] is True and out["call_id"] == "toolu_1" and out["related"] == [2]


def test_resolve_names() -> None:
    assert resolve(["all"]) == PROVIDERS
    assert resolve(["kimi,anthropic", "anthropic"]) == ("anthropic", "kimi")
    assert resolve([" Gemini "]) == ("gemini",)
    with pytest.raises(InputError, match="unknown provider 'openai'"):
        resolve(["openai"])
    with pytest.raises(InputError):
        check([], "nope")


# The providers whose rejection of a request with no message has a cited text (the rule table's
# A14, O6, G6, M6); the others' answer to one is not known, so nothing is said of it.
EMPTY_RULE = {"anthropic": "A14", "openai-chat": "O6", "gemini": "G6", "mistral": "M6"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_empty_history_is_one_problem_of_the_list_or_none(provider: str) -> None:
    rule = EMPTY_RULE.get(provider)
    found = check([], provider)
    assert [(v.rule, v.index, v.wire_index) for v in found] == ([(rule, -1, None)] if rule else [])
    v = verdict([], provider)
    # Nothing to repair: the repaired history is as empty, and still rejected.
    assert v.counts == ((1, 1) if rule else (0, 0))
    assert not any(x.fixed for x in v.before)
    if rule:
        assert v.before[0].remedy == RULES[rule].remedy
        assert v.before[0].to_json()["index"] is None


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_system_prompts_alone_are_no_message_where_they_go_apart(provider: str) -> None:
    [v] = check([S(), S("and this")], provider)
    assert v.rule == EMPTY_RULE[provider] and v.index == -1
    assert "only system prompts" in v.problem
    assert check([S(), U()], provider) == []


@pytest.mark.parametrize("provider", ["openai-chat", "mistral"])
def test_a_system_message_alone_is_a_request_where_it_is_a_message(provider: str) -> None:
    assert [v.rule for v in check([S()], provider)] == []


def test_a_repair_that_drops_the_only_message_leaves_an_empty_request() -> None:
    # The placeholder is the only message: the repair drops it (rule 1), and what it leaves has
    # none to send, which the after list says.
    v = verdict([A("  ")], "openai-chat")
    assert [(x.rule, x.index) for x in v.after] == [("O6", -1)]


def test_checks_do_not_mutate_their_input() -> None:
    history = [U(), A(None, C("toolu_1")), U("next"), T("toolu_9")]
    before = [(m.role, m.content, m.tool_calls, m.tool_call_id) for m in history]
    verdicts(history)
    assert [(m.role, m.content, m.tool_calls, m.tool_call_id) for m in history] == before


def test_checks_and_explain_do_not_import_textual(tmp_path: Any) -> None:
    from tests.helpers.imports import probe

    assert probe("import suture.checks, suture.checks.explain") == []
    sample = tmp_path / "h.json"
    sample.write_text('[{"role": "user", "content": "hi"}]')
    body = f"""
from suture.cli import main
for argv in (["check", {str(sample)!r}, "--provider", "all"], ["explain", {str(sample)!r}, "contents.parts must not be empty"]):
    try:
        main(argv)
    except SystemExit:
        pass
"""
    assert probe(body) == []


def test_responses_indices_follow_the_items_a_run_was_read_from() -> None:
    # A Responses run read from a file keeps its items as raw: reasoning before each call.
    items = [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "a", "arguments": "{}"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "b", "arguments": "{}"},
    ]
    run = Message(
        "assistant",
        [ThinkingPart("", items[0]), ThinkingPart("", items[2])],
        (C("call_1", "a", items[1]), C("call_2", "b", items[3])),
        raw=items,
    )
    [v] = check([U(), run, T("call_2")], "openai-responses")
    assert (v.rule, v.where, v.call_id) == ("R1", "input[2]", "call_1")
    # Without the list, suture lays the message out as reasoning, reasoning, call, call.
    flat = Message("assistant", run.content, run.tool_calls)
    [v] = check([U(), flat, T("call_2")], "openai-responses")
    assert (v.where, v.call_id) == ("input[3]", "call_1")


def test_gemini_signatures_are_asked_for_where_the_written_request_lacks_one() -> None:
    native = {"functionCall": {"name": "read", "args": {}}}
    gemini_2 = [U(), A(None, C("call_1", raw=native)), T("call_1")]
    assert [v.rule for v in check(gemini_2, "gemini")] == []
    # suture writes a call from another format with Gemini's placeholder signature: no G4.
    from_chat = [U(), A(None, C("call_1")), T("call_1")]
    assert check(from_chat, "gemini") == []
    # A history that holds one shows signatures matter: a Gemini call without one is asked for.
    mixed = [U(), A(None, C("call_1", raw=native)), T("call_1"), A(None, C("call_2")), T("call_2")]
    [v] = check(mixed, "gemini")
    assert (v.rule, v.where, v.fixed) == ("G4", "contents[1]", False)
    assert "position 2." in v.error  # contents counted from 1, as Gemini reports it
    # Only the current turn (after the last user text) is checked.
    assert check([*mixed, A("done"), U("next")], "gemini") == []


def test_a_result_in_an_assistant_message_is_said_once_as_a_block_of_the_wrong_role() -> None:
    # After a tool_use in the same assistant message, a tool_result block is A6's (tool_result
    # blocks only in user messages), not also "text follows a tool_use block" (A1b); an image
    # there is A1b's, named as what it is.
    import orjson

    from suture.formats import load_bytes

    def found(late: dict[str, Any]) -> list[tuple[str, str]]:
        use = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
        body = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [use, late]}]}
        transcript = load_bytes(orjson.dumps(body), format="messages")
        return [(v.rule, v.problem) for v in check(transcript.messages, "anthropic")]

    result = found({"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"})
    assert [rule for rule, _ in result] == ["A1", "A6"]
    assert result[1][1] == "a tool_result block in an assistant message"
    image = found({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
    assert ("A1b", "an image block follows a tool_use block in the same assistant message (block 1)") in image
