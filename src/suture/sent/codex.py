"""Codex's resume step, as Codex 0.169.0 does it.

Measured on the rollouts the real Codex wrote and the requests it sent
(``sample_sessions/recorded/codex-*``); the same as codex-rs ``normalize`` of the history. From
the history as written (``suture.formats.codex``: the response items of lines that have a
timestamp, in file order):

- a call (``function_call``, ``custom_tool_call``, ``local_shell_call``) with no output anywhere
  gets ``{"type": "function_call_output", "call_id": …, "output": "aborted"}`` (a
  ``custom_tool_call_output`` for a custom tool call) right after it, in the request only;
- an output whose ``call_id`` no call has is left out;
- everything else is sent as written, in order: an item between a call and its output, an output
  before its call, two outputs for one call (a strict server rejects them: rule R7);
- Codex's own bookkeeping key ``internal_chat_message_metadata_passthrough`` is not sent.

When it sends, Codex puts its instructions first, as a developer message the rollout does not
hold (:data:`ADDED`), so ``input[N]`` is one more than the place in ``wire``.
"""

from __future__ import annotations

from typing import Any

from suture.formats.responses import item_kind
from suture.model import Transcript
from suture.sent import Added, Built, Fix

__all__ = ["ABORTED", "ADDED", "MODEL", "build"]

MODEL = "0.169.0"
"""The Codex version whose resume step this module models."""
ADDED = (Added(0, "developer", "Codex's instructions (a developer message)"),)
"""What Codex 0.169.0 puts into every request it sends that the rollout does not hold (seen in
every request of the recorded corpus)."""
ABORTED = "aborted"
_INTERNAL = frozenset({"internal_chat_message_metadata_passthrough"})


def _call_id(item: dict[str, Any]) -> Any:
    return item.get("call_id", item.get("id"))


def build(transcript: Transcript) -> Built:
    """The Responses ``input`` Codex builds from this as-written rollout on resume."""
    built = Built([], "responses", "openai-responses", MODEL, [], {}, added=ADDED)
    messages = transcript.messages
    items: list[tuple[dict[str, Any], int]] = []
    for i, m in enumerate(messages):
        for item in m.raw if isinstance(m.raw, list) else [m.raw]:
            if isinstance(item, dict):
                items.append((item, i))
    calls = {_call_id(item) for item, _ in items if item_kind(item) == "call"}
    answered = {item.get("call_id") for item, _ in items if item_kind(item) == "result"}

    def where(i: int) -> str:
        source = messages[i].source
        return f" ({source})" if source is not None else ""

    for item, i in items:
        kind = item_kind(item)
        if kind == "result" and item.get("call_id") not in calls:
            call_id = item.get("call_id")
            built.fixes.append(
                Fix(
                    "dropped_result",
                    f"Codex leaves out the output for {call_id or '(no id)'}{where(i)}: no call has that id",
                    i,
                    messages[i].source,
                    str(call_id) if call_id is not None else None,
                )
            )
            continue
        sent = {k: v for k, v in item.items() if k not in _INTERNAL} if _INTERNAL & item.keys() else item
        built.wire.append(built.mark(sent, i))
        if kind == "call" and _call_id(item) not in answered:
            call_id = _call_id(item)
            output = "custom_tool_call_output" if item.get("type") == "custom_tool_call" else "function_call_output"
            built.wire.append(built.mark({"type": output, "call_id": call_id, "output": ABORTED}, i))
            built.fixes.append(
                Fix(
                    "inserted_result",
                    f'Codex answers call {call_id or "(no id)"}{where(i)} with the output "{ABORTED}", right after it',
                    i,
                    messages[i].source,
                    str(call_id) if call_id is not None else None,
                )
            )
    return built
