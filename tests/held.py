"""Whether a history the agent sent holds every message of another (the repaired history of the
session before it was written back): for the write-back tests, recorded and live."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from msgspec.structs import replace

from suture.formats import get
from suture.io import Document
from suture.model import Message, TextPart, Transcript, text_of
from suture.sent import Sent

WIRE_FORMATS = {"anthropic": "messages", "openai-responses": "responses", "openai-chat": "chat", "gemini": "gemini"}
"""The suture format of each provider's request history."""
KEYS = {"responses": "input", "gemini": "contents"}
"""The body key of the request history, where it is not ``messages``."""


def history_of(provider: str, body: dict[str, Any]) -> list[Message]:
    """The neutral messages of a request body's history: its ``system`` and ``developer``
    messages left out (the agent's prompt and context, not history; a recorded body has the
    system prompt replaced by its hash)."""
    fmt = WIRE_FORMATS[provider]
    key = KEYS.get(fmt, "messages")
    history = [m for m in body.get(key) or [] if not (isinstance(m, dict) and m.get("role") in ("system", "developer"))]
    return get(fmt).load(Document("json", value=history)).messages


def _texts(m: Message) -> list[str]:
    if isinstance(m.content, str):
        return [m.content] if m.content.strip() else []
    return [p.text for p in m.content or [] if isinstance(p, TextPart) and p.text.strip()]


def missing(expected: Sequence[Message], sent: Sequence[Message], ids: Mapping[str, str] | None = None) -> list[str]:
    """What of ``expected`` ``sent`` does not hold (empty: it holds all of it): every call (by
    id), every result (by the call it answers, and its text), every text of every message (in a
    message of the same side: the model's, or the user's and the tools'). The agent's own
    ``system`` and ``developer`` messages are not history (:func:`history_of` leaves them out).
    ``ids``: the ids the written file gives calls of ``expected`` in place of theirs
    (``suture.writeback.Written.ids``)."""
    expected = [m for m in expected if m.role not in ("system", "developer")]
    if ids:
        expected = [
            replace(
                m,
                tool_calls=tuple(replace(c, id=ids.get(c.id, c.id)) for c in m.tool_calls),
                tool_call_id=ids.get(m.tool_call_id, m.tool_call_id),
            )
            for m in expected
        ]
    calls = {c.id for m in sent for c in m.tool_calls}
    results = {m.tool_call_id: m for m in sent if m.role == "tool"}
    model = "\n".join(t for m in sent if m.role == "assistant" for t in _texts(m))
    others = "\n".join(text_of(m.content) for m in sent if m.role != "assistant")
    out: list[str] = []
    for k, m in enumerate(expected):
        for call in m.tool_calls:
            if call.id not in calls:
                out.append(f"message {k}: call {call.id}")
        if m.role == "tool":
            found = results.get(m.tool_call_id)
            if found is None:
                out.append(f"message {k}: the result for {m.tool_call_id}")
                continue
            for text in _texts(m):
                if text not in text_of(found.content):
                    out.append(f"message {k}: the text of the result for {m.tool_call_id}")
            continue
        pool = model if m.role == "assistant" else others
        for text in _texts(m):
            if text not in pool:
                out.append(f"message {k} ({m.role}): {text[:60]!r}")
    return out


def sent_ids(transcript: Transcript, sent: Sent, ids: Mapping[str, str] | None = None) -> dict[str, str]:
    """``ids`` (final id -> the id the file gives that call) carried on to the id the agent sends
    the call under, where that is not the file's (pi sends OpenAI Responses the part of a call's
    id before ``|``, and Gemini no id at all, which suture's reading of the request makes up):
    each sent message's calls and result paired in order with those of the file's message it
    comes from (``Sent.origin``)."""
    file_to_sent: dict[str, str] = {}
    for j, m in enumerate(sent.messages):
        i = sent.origin[j] if j < len(sent.origin) else None
        if i is None:
            continue
        written = transcript.messages[i]
        for a, b in zip(written.tool_calls, m.tool_calls, strict=False):
            if a.id != b.id:
                file_to_sent[a.id] = b.id
        if m.role == written.role == "tool" and written.tool_call_id and m.tool_call_id != written.tool_call_id:
            file_to_sent[written.tool_call_id] = m.tool_call_id or ""
    named = dict(ids or {})
    return {k: file_to_sent.get(named.get(k, k), named.get(k, k)) for k in {*named, *file_to_sent}}
