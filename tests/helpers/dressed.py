"""Generated histories whose messages carry the records some checker reads (Responses item ids,
Gemini signatures, DeepSeek reasoning, Mistral's prefix, an assistant message read from
Responses items), for the tests of the checks."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from suture.model import Message, ThinkingPart, ToolCall
from tests.strategies import histories

__all__ = ["dressed_histories"]

_ITEM_IDS = ("fc_1", "fc_2", "rs_1", "msg_1", "x_1", "")


@st.composite
def _dressed_call(draw: st.DrawFn, call: ToolCall) -> ToolCall:
    kind = draw(st.sampled_from(("none", "responses", "gemini", "gemini-signed")))
    if kind == "responses":
        raw: Any = {"type": "function_call", "id": draw(st.sampled_from(_ITEM_IDS)), "call_id": call.id}
    elif kind == "gemini":
        raw = {"functionCall": {"name": call.name or "f"}}
    elif kind == "gemini-signed":
        raw = {"functionCall": {"name": call.name or "f"}, "thoughtSignature": "sig"}
    else:
        return call
    return ToolCall(call.id, call.name, call.arguments, raw)


@st.composite
def _dressed(draw: st.DrawFn, m: Message) -> Message:
    """``m``, perhaps with a record of the kind some checker reads."""
    if m.role == "assistant":
        calls = tuple(draw(_dressed_call(c)) for c in m.tool_calls)
        content = m.content
        if isinstance(content, list) and draw(st.booleans()):
            content = [
                ThinkingPart(p.text, {"type": "reasoning", "id": draw(st.sampled_from(_ITEM_IDS))}, signature="s")
                if isinstance(p, ThinkingPart)
                else p
                for p in content
            ]
        raw: Any = draw(st.sampled_from((None, "reasoning", "prefix", "items", "items-after")) if calls else st.none())
        if raw == "reasoning":
            raw = {"reasoning_content": "thought"}
        elif raw == "prefix":
            raw = {"prefix": True}
        elif raw in ("items", "items-after") and all(isinstance(c.raw, dict) for c in calls):
            listed: list[Any] = []
            if draw(st.booleans()):
                listed.append({"type": "reasoning", "id": draw(st.sampled_from(_ITEM_IDS))})
            listed += [c.raw for c in calls]
            if raw == "items-after":
                listed.append({"type": "message", "id": draw(st.sampled_from(_ITEM_IDS))})
            raw = listed
        elif not isinstance(raw, dict):
            raw = None
        return Message("assistant", content, calls, raw=raw)
    if m.role == "user" and draw(st.booleans()):
        return Message("user", m.content, raw={"type": "message", "id": draw(st.sampled_from(_ITEM_IDS))})
    return m


@st.composite
def dressed_histories(draw: st.DrawFn) -> list[Message]:
    return [draw(_dressed(m)) for m in draw(histories(max_turns=7))]
