"""Trimming of recorded request bodies: the history stays, the bulky constant parts become hashes.

The system prompt (Anthropic ``system``; Responses ``instructions``; Gemini ``systemInstruction``; Chat ``system`` and
``developer`` messages' content) and the tool list (``tools``) are each replaced by
``{"sha256": HEX, "bytes": N}`` where HEX is the SHA-256 of the value as compact JSON with sorted
keys (``separators=(",", ":")``, ``sort_keys=True``, non-ASCII kept as UTF-8) and N the length of
that encoding in bytes. Everything else in the body is kept as sent. Codex sends no
``instructions``: its system prompt travels as ``developer`` messages in ``input``, which are history
kept in its rollout, so they stay. pi sends its system prompt to Responses as the first ``input``
item, a ``system`` message (no ``instructions``): its content is replaced, as a Chat one's is.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Body keys replaced by their hash, per wire format.
TRIMMED_KEYS = {
    "anthropic": ("system", "tools"),
    "openai-responses": ("instructions", "tools"),
    "openai-chat": ("tools",),
    "gemini": ("systemInstruction", "tools"),
}
#: Chat message roles whose content is the system prompt.
CHAT_SYSTEM_ROLES = ("system", "developer")
#: Responses ``input`` message roles whose content is the system prompt (Codex's ``developer``
#: messages are history in its rollout and stay).
RESPONSES_SYSTEM_ROLES = ("system",)


def canonical(value: Any) -> bytes:
    """``value`` as compact JSON with sorted keys, UTF-8."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode("utf-8")


def digest(value: Any) -> dict[str, Any]:
    """The stand-in a trimmed value is replaced by."""
    data = canonical(value)
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def is_digest(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"sha256", "bytes"}


def trim_body(provider: str, body: Any) -> Any:
    """A copy of ``body`` with its system prompt and tool list replaced by their digests."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    for key in TRIMMED_KEYS.get(provider, ()):
        if key in out:
            out[key] = digest(out[key])
    key, roles = {
        "openai-chat": ("messages", CHAT_SYSTEM_ROLES),
        "openai-responses": ("input", RESPONSES_SYSTEM_ROLES),
    }.get(provider, ("", ()))
    if roles and isinstance(out.get(key), list):
        out[key] = [
            {**m, "content": digest(m.get("content"))}
            if isinstance(m, dict) and m.get("role") in roles and not is_digest(m.get("content"))
            else m
            for m in out[key]
        ]
    return out
