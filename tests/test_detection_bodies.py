"""Telling an Anthropic Messages request from an OpenAI Chat one when every message is a plain
string: the request body's own keys, and the keys of its messages, decide; a history that reads
the same in both stays with the first format in order, and says so."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from suture.checks import check
from suture.formats import detect, load_bytes
from suture.io import parse_document

PLAIN = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
    {"role": "user", "content": "go"},
]


def _detected(value: Any) -> tuple[str, tuple[str, ...]]:
    found = detect(parse_document(orjson.dumps(value)))
    return found.adapter.name, found.others


@pytest.mark.parametrize(
    "extra",
    [
        {"system": "be brief"},
        {"stop_sequences": ["END"]},
        {"anthropic_version": "bedrock-2023-05-31"},
        {"tools": [{"name": "ls", "description": "list", "input_schema": {"type": "object"}}]},
    ],
)
def test_a_body_with_a_key_only_anthropic_takes_reads_as_messages(extra: dict[str, Any]) -> None:
    name, others = _detected({"model": "claude-sonnet-4-5", "max_tokens": 64, **extra, "messages": PLAIN})
    assert name == "messages"
    assert "chat" not in others


@pytest.mark.parametrize(
    "extra",
    [
        {"max_completion_tokens": 64},
        {"n": 1},
        {"response_format": {"type": "json_object"}},
        {"stop": ["END"]},
        {"tools": [{"type": "function", "function": {"name": "ls", "parameters": {}}}]},
    ],
)
def test_a_body_with_a_key_only_openai_chat_takes_reads_as_chat_alone(extra: dict[str, Any]) -> None:
    name, others = _detected({"model": "gpt-4o", **extra, "messages": PLAIN})
    assert name == "chat"
    assert "messages" not in others


def test_a_message_with_a_name_is_chat_not_anthropic() -> None:
    # Anthropic's messages hold role and content only; OpenAI Chat's may name their author.
    named = [{"role": "user", "content": "hi", "name": "ada"}, *PLAIN[1:]]
    name, others = _detected(named)
    assert name == "chat"
    assert "messages" not in others


def test_a_body_the_two_read_alike_keeps_chat_and_says_messages_fits_too() -> None:
    # max_tokens is in both APIs (required by Anthropic, accepted by OpenAI Chat): it tells nothing.
    name, others = _detected({"model": "m", "max_tokens": 64, "messages": PLAIN})
    assert name == "chat"
    assert "messages" in others


def test_an_empty_user_message_of_an_anthropic_body_is_judged_by_anthropic() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "stop_sequences": ["END"],
        "messages": [{"role": "user", "content": []}, *PLAIN[1:]],
    }
    transcript = load_bytes(orjson.dumps(body))
    assert transcript.format == "messages"
    assert [v.rule for v in check(transcript.messages, "anthropic")] == ["A8"]


def test_a_top_level_system_still_decides_against_keys_of_openai_chat() -> None:
    name, _ = _detected({"model": "m", "system": "be brief", "n": 1, "messages": PLAIN})
    assert name == "messages"


def test_keys_of_both_apis_but_system_tell_nothing() -> None:
    name, others = _detected({"model": "m", "stop_sequences": ["END"], "n": 1, "messages": PLAIN})
    assert name == "chat"
    assert "messages" in others


_CHAT_WITH_CALLS = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
]


@pytest.mark.parametrize("extra", [{"top_k": 40}, {"thinking": {"type": "enabled"}}, {"stop_sequences": ["x"]}])
def test_records_only_chat_writes_are_chat_whatever_else_the_body_holds(extra: dict[str, Any]) -> None:
    """OpenAI-compatible chat servers take top_k and thinking too; and a key of Anthropic's beside
    records only chat writes (tool_calls, tool_call_id) does not make them Anthropic's."""
    assert _detected({"model": "m", **extra, "messages": _CHAT_WITH_CALLS})[0] == "chat"


def test_top_k_alone_tells_nothing() -> None:
    body = {
        "model": "m",
        "top_k": 40,
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
    }
    assert _detected(body)[0] == "chat"
