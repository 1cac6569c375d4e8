"""Records of the chat format (JSON objects, one a line of a JSONL file), drawn by Hypothesis:
short texts full of what escapes and splits badly, and call ids from a small pool, so that
repeated and dangling ids are common."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

IDS = ("x", "y", "z", "", "x_1", "call_3_0")

TEXT = st.text(
    alphabet=st.sampled_from(list('ab \n"\\é✓中😀{}')),
    max_size=6,
)


@st.composite
def chat_records(draw: st.DrawFn) -> Any:
    role = draw(st.sampled_from(("user", "assistant", "assistant", "tool", "tool", "system")))
    record: dict[str, Any] = {"role": role, "content": draw(st.one_of(TEXT, st.none()))}
    if role == "assistant" and draw(st.booleans()):
        record["tool_calls"] = [
            {"id": draw(st.sampled_from(IDS)), "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
            for _ in range(draw(st.integers(1, 3)))
        ]
    if role == "tool":
        record["tool_call_id"] = draw(st.sampled_from(IDS))
    return record
