"""The strict mock provider's pairing validator, one function per wire format.

Written from the provider rules (rule ids as in the research table: A1 … A13 for Anthropic
Messages, O1 … O4 for OpenAI Chat Completions, R1 … R9 for OpenAI Responses, G1 … G5 for Google
Gemini), independently of
suture's own checks: the recorded corpus is ground truth for suture, so the two must not share code.

Each validator takes a request body (already parsed JSON) and returns the first violation found,
scanning the history in order as the provider does, or ``None`` when the body would be accepted.
The error texts are the providers' own (with ids and indexes filled in).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Violation:
    """One rejected request: the rule broken and the provider's error message."""

    rule: str
    message: str


def _blocks(content: Any) -> list[Any]:
    """A message's content as a list of blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return content
    return []


def _btype(block: Any) -> str:
    return str(block.get("type", "")) if isinstance(block, dict) else ""


def _empty_result_content(content: Any) -> bool:
    return content is None or content == "" or content == []


def check_anthropic(body: Any) -> Violation | None:
    """Anthropic Messages: A1 (results right after), A1a (results lead the user message),
    A2 (orphan result), A3 (unique ids), A6 (blocks in their role), A7 (no blank text),
    A8 (no empty message), A13 (an error result has content). ``system`` messages inside
    ``messages`` (a Claude Code beta) are not judged."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return Violation("request", "messages: Field required")
    seen_ids: set[str] = set()
    last = len(messages) - 1
    for n, msg in enumerate(messages):
        if not isinstance(msg, dict):
            return Violation("request", f"messages.{n}: Input should be a valid dictionary")
        role = msg.get("role")
        if role == "system":
            # Claude Code sends `system` messages inside `messages` under a beta (its environment
            # context; an empty one carrying `output_config`). No rule in the research covers
            # them, so they are not judged; they still count in the message indexes.
            continue
        content = msg.get("content")
        blocks = _blocks(content)
        if (content == "" or content == []) and not (n == last and role == "assistant"):
            return Violation(
                "A8",
                f"messages.{n}: all messages must have non-empty content except for the optional final assistant message",
            )
        for m, block in enumerate(blocks):
            kind = _btype(block)
            if kind == "text" and not str(block.get("text", "")).strip():
                return Violation("A7", "messages: text content blocks must contain non-whitespace text")
            if kind == "tool_use":
                if role != "assistant":
                    return Violation(
                        "A6", f"messages.{n}.content.{m}: `tool_use` blocks can only be in `assistant` messages"
                    )
                tid = str(block.get("id", ""))
                if tid in seen_ids:
                    return Violation("A3", f"messages.{n}.content.{m}: `tool_use` ids must be unique")
                seen_ids.add(tid)
            if kind == "tool_result":
                if role != "user":
                    return Violation(
                        "A6", f"messages.{n}.content.{m}: `tool_result` blocks can only be in `user` messages"
                    )
                if block.get("is_error") is True and _empty_result_content(block.get("content")):
                    return Violation(
                        "A13", f"messages.{n}.content.{m}.tool_result: content cannot be empty if `is_error` is true"
                    )
        if role == "user":
            prev = messages[n - 1] if n > 0 and isinstance(messages[n - 1], dict) else None
            prev_ids = (
                {str(b.get("id", "")) for b in _blocks(prev.get("content")) if _btype(b) == "tool_use"}
                if prev is not None and prev.get("role") == "assistant"
                else set()
            )
            for m, block in enumerate(blocks):
                if _btype(block) == "tool_result" and str(block.get("tool_use_id", "")) not in prev_ids:
                    return Violation(
                        "A2",
                        f"messages.{n}.content.{m}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id', '')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message.",
                    )
        if role == "assistant":
            ids = [str(b.get("id", "")) for b in blocks if _btype(b) == "tool_use"]
            if not ids:
                continue
            nxt = messages[n + 1] if n < last and isinstance(messages[n + 1], dict) else None
            nxt_blocks = _blocks(nxt.get("content")) if nxt is not None and nxt.get("role") == "user" else []
            answered = {str(b.get("tool_use_id", "")) for b in nxt_blocks if _btype(b) == "tool_result"}
            missing = [i for i in ids if i not in answered]
            if missing:
                # N is the message after the calls, where their results were looked for (the
                # calls' own message where none follows): a real 400 for [user, assistant with
                # tool_use, user with text] says messages.2 (Mirascope/mirascope#2503, with its
                # request id), as suture's own check numbers it (suture.checks.anthropic).
                return Violation(
                    "A1",
                    f"messages.{n if nxt is None else n + 1}: `tool_use` ids were found without `tool_result` "
                    "blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    "in the next message.",
                )
            lead = 0
            for b in nxt_blocks:
                if _btype(b) != "tool_result":
                    break
                lead += 1
            if lead < sum(1 for b in nxt_blocks if _btype(b) == "tool_result"):
                return Violation(
                    "A1a",
                    f"messages.{n + 1}: Did not find {len(ids)} `tool_result` block(s) at the beginning of this "
                    "message. Messages following `tool_use` blocks must begin with a matching number of "
                    "`tool_result` blocks.",
                )
    return None


def check_chat(body: Any) -> Violation | None:
    """OpenAI Chat Completions: O1 (every call answered by the tool messages right after),
    O2 (a tool message answers a call of the message before), O3 (tool_call_id present),
    O4 (one answer per id)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return Violation("request", "Missing required parameter: 'messages'.")
    answered_at: dict[str, int] = {}
    open_ids: list[str] = []
    expecting: set[str] = set()
    for n, msg in enumerate(messages):
        if not isinstance(msg, dict):
            return Violation("request", f"Invalid type for 'messages[{n}]': expected an object.")
        role = msg.get("role")
        if role == "tool":
            if "tool_call_id" not in msg or msg.get("tool_call_id") in (None, ""):
                return Violation(
                    "O3", "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."
                )
            tid = str(msg["tool_call_id"])
            if not expecting:
                return Violation(
                    "O2",
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                )
            if tid in answered_at:
                return Violation(
                    "O4",
                    f"Invalid parameter: Duplicate value for 'tool_call_id' of '{tid}', in messages[{answered_at[tid]}] and messages[{n}].",
                )
            if tid not in expecting:
                return Violation(
                    "O2", f"Invalid parameter: 'tool_call_id' of '{tid}' not found in 'tool_calls' of previous message."
                )
            answered_at[tid] = n
            open_ids = [i for i in open_ids if i != tid]
            continue
        if open_ids:
            return Violation(
                "O1",
                f"An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(open_ids)}",
            )
        expecting = set()
        if role == "assistant":
            calls = msg.get("tool_calls")
            if isinstance(calls, list) and calls:
                open_ids = [str(c.get("id", "")) if isinstance(c, dict) else "" for c in calls]
                expecting = set(open_ids)
    if open_ids:
        return Violation(
            "O1",
            f"An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(open_ids)}",
        )
    return None


#: Responses call item types and the output type that answers each.
RESPONSES_CALLS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "local_shell_call_output",
}
RESPONSES_OUTPUTS = {v: k for k, v in RESPONSES_CALLS.items()}


def check_responses(body: Any) -> Violation | None:
    """OpenAI Responses, strict as a Responses-compatible server: R3 (no item id twice), R8 (an
    output has a call_id), R2 (an output answers an earlier call), R9 (one output per call), R1
    (every call has an output), R7 (nothing but calls and outputs between a call and its output)."""
    items = body.get("input") if isinstance(body, dict) else None
    if isinstance(items, str):
        return None
    if not isinstance(items, list):
        return Violation("request", "Missing required parameter: 'input'.")
    calls: dict[str, int] = {}
    outputs: dict[str, int] = {}
    ids: set[str] = set()
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            return Violation("request", f"Invalid type for 'input[{n}]': expected an object.")
        if item.get("id") not in (None, ""):
            if str(item["id"]) in ids:
                # R3, OpenAI's words (vercel/ai#7883): an input item id given twice.
                return Violation(
                    "R3",
                    f"Duplicate item found with id {item['id']}. Remove duplicate items from your input and try again.",
                )
            ids.add(str(item["id"]))
        kind = str(item.get("type", "message"))
        if kind in RESPONSES_OUTPUTS:
            cid = item.get("call_id")
            if cid in (None, ""):
                return Violation("R8", f"Missing required parameter: 'input[{n}].call_id'.")
            if str(cid) not in calls:
                return Violation("R2", f"No tool call found for function call output with call_id {cid}.")
            if str(cid) in outputs:
                # R9, a strict Responses server's words (NousResearch/hermes-agent#102629,
                # mnfst/llm-gateway#2858): a call_id answered twice in one input.
                return Violation(
                    "R9",
                    f"Duplicate function_call_output for call_id '{cid}'. "
                    "Each function_call must have exactly one matching function_call_output",
                )
            outputs[str(cid)] = n
        elif kind in RESPONSES_CALLS:
            calls.setdefault(str(item.get("call_id", "")), n)
    for cid in calls:
        if cid not in outputs:
            return Violation("R1", f"No tool output found for function call {cid}.")
    for cid, at in calls.items():
        for item in items[at + 1 : outputs[cid]]:
            kind = str(item.get("type", "message"))
            if kind not in RESPONSES_CALLS and kind not in RESPONSES_OUTPUTS:
                return Violation("R7", f"No tool output found for tool call {cid}.")
    return None


G1 = "Please ensure that function response turn comes immediately after a function call turn."
G2 = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
G3 = (
    "Please ensure that the number of function response parts is equal to the number of function call "
    "parts of the function call turn."
)


def _parts(content: Any, key: str) -> list[Any]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [p for p in parts or [] if isinstance(p, dict) and key in p]


def check_gemini(body: Any) -> Violation | None:
    """Google Gemini ``generateContent``: G5 (no content without parts), G2 (a function call turn
    follows a user turn or a function response turn), G1 (a function response turn comes right
    after a function call turn, and a call turn is followed by one: a request ends with the
    prompt, so a call turn last is left alone), G3 (as many responses as calls). G4 (Gemini 3's
    thought signatures) is not judged: the mock's model is no Gemini 3."""
    contents = body.get("contents") if isinstance(body, dict) else None
    if not isinstance(contents, list):
        return Violation("request", "* GenerateContentRequest.contents: contents is not specified")
    for n, content in enumerate(contents):
        if not isinstance(content, dict) or not content.get("parts"):
            return Violation("G5", "contents.parts must not be empty.")  # vercel/ai#3775
        before = contents[n - 1] if n else None
        calls = _parts(content, "functionCall")
        responses = _parts(content, "functionResponse")
        if responses and not _parts(before, "functionCall"):
            return Violation("G1", G1)  # GoogleCloudPlatform/generative-ai#368
        if calls and not (isinstance(before, dict) and before.get("role", "user") == "user"):
            return Violation("G2", G2)  # gemini-cli#11814
        if calls and n + 1 < len(contents):
            answers = _parts(contents[n + 1], "functionResponse")
            if not answers:
                return Violation("G1", G1)
            if len(answers) != len(calls):
                return Violation("G3", G3)  # gemini-cli#4217
    return None


CHECKS = {
    "anthropic": check_anthropic,
    "openai-chat": check_chat,
    "openai-responses": check_responses,
    "gemini": check_gemini,
}
