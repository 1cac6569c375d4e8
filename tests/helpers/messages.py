"""Histories built by hand, a message a call: ``U`` user, ``S`` system, ``A`` assistant (with
its calls ``C``), ``T`` a tool result, ``thought`` a signed thinking part."""

from __future__ import annotations

from typing import Any

from suture.model import Content, Message, ThinkingPart, ToolCall


def U(content: Content = "go") -> Message:
    return Message("user", content)


def S(content: str = "be brief") -> Message:
    return Message("system", content)


def A(content: Content = None, *calls: ToolCall) -> Message:
    return Message("assistant", content, tuple(calls))


def C(call_id: str, name: str = "read", raw: Any = None) -> ToolCall:
    return ToolCall(call_id, name, "{}", raw)


def T(call_id: str, content: Content = "ok") -> Message:
    return Message("tool", content, tool_call_id=call_id)


SIGNED = {"type": "thinking", "thinking": "hmm", "signature": "EqQBsig"}


def thought(raw: Any = SIGNED) -> ThinkingPart:
    return ThinkingPart("hmm", raw)
