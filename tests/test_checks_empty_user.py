"""A user message with an empty content array, in every request format suture reads.

Providers' answers (/work/shared/research/provider-rules.md): Anthropic A8 "messages.{N}: all
messages must have non-empty content except for the optional final assistant message" (any
role but a final assistant), Gemini G5 "contents.parts must not be empty." (any role). No other
provider has a collected error for an empty user message (Moonshot's K2 is about assistant
messages; OpenAI Chat answered 200 to an empty content list, openai/openai-python#1812), so no
other provider's check reports one. The repair contract passes a user message through untouched
(SPEC.md, rule 1 drops only assistant placeholders; "Nothing else changes"), so the problem is
never said to be fixed by repair, and it stays after repair.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suture.checks import PROVIDERS, verdicts
from suture.checks.rules import RULES
from suture.formats import load_bytes
from suture.model import Message
from suture.repair import repair
from tests.helpers.messages import U
from tests.strategies import histories

REJECTING = {"anthropic": "A8", "gemini": "G5"}

# Each request format with an empty user message first, then a reply and a prompt.
FILES: dict[str, Any] = {
    "messages": {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "system": "be brief",
        "messages": [
            {"role": "user", "content": []},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
        ],
    },
    "chat": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": []},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "go"},
    ],
    "responses": {
        "input": [
            {"type": "message", "role": "user", "content": []},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        ]
    },
    "gemini": {
        "contents": [
            {"role": "user", "parts": []},
            {"role": "model", "parts": [{"text": "ok"}]},
            {"role": "user", "parts": [{"text": "go"}]},
        ]
    },
}


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_an_empty_user_message_is_rejected_by_anthropic_and_gemini_and_not_fixed_by_repair(fmt: str) -> None:
    transcript = load_bytes(orjson.dumps(FILES[fmt]))
    assert transcript.format == fmt
    (empty,) = [i for i, m in enumerate(transcript.messages) if m.role == "user" and m.content == []]
    found = verdicts(transcript.messages)
    for provider in PROVIDERS:
        before = [v for v in found[provider].before if v.index == empty]
        rule = REJECTING.get(provider)
        if rule is None:
            assert before == [], provider  # no collected error for it: no rule
            continue
        assert [(v.rule, v.fixed) for v in before] == [(rule, False)], provider
        assert before[0].remedy == RULES[rule].remedy  # what a person must do: the repair does not
        after = found[provider].after
        assert [v.rule for v in after if v.rule == rule] == [rule], provider  # still there after repair


@settings(max_examples=80, deadline=None)
@given(histories(), st.data())
def test_the_repair_keeps_an_empty_user_message_and_never_says_it_fixed_it(
    messages: list[Message], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(messages)))
    history = [*messages[:at], U([]), *messages[at:]]
    result = repair(history)
    assert result.output_of(at) is not None  # passed through, not dropped
    assert result.messages[result.output_of(at)] == history[at]
    found = verdicts(history, list(REJECTING), repaired=result)
    for provider, rule in REJECTING.items():
        for v in found[provider].before:
            if v.rule == rule and v.index == at:
                assert not v.fixed, (provider, v)
