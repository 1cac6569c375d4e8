"""DeepSeek: rule D1, and O1/O2 with DeepSeek's own wording.

One wire message per neutral message; ``message index N`` is the neutral index. Thinking mode is
inferred from the history itself: an assistant message carrying reasoning (a thinking part, or a
``reasoning_content`` kept on its record) shows it was on.
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks._base import Violation, has_thinking, id_list
from suture.checks._chat import pairing
from suture.checks.rules import RULES
from suture.model import Message

NAME = "deepseek"
TITLE = "DeepSeek"


def _reasoning(m: Message) -> bool:
    raw = m.raw
    return has_thinking(m) or (isinstance(raw, dict) and raw.get("reasoning_content") is not None)


def check(messages: Sequence[Message]) -> list[Violation]:
    found: list[Violation] = []
    p = pairing(messages)
    for a, ids in p.missing.items():
        # agno-agi/agno#3105
        found.append(
            Violation(
                NAME,
                "O1",
                a,
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                "'tool_call_id'. (insufficient tool messages following tool_calls message)",
                f"{id_list(ids)}: no tool message right after this assistant message",
                True,
                RULES["O1"].remedy,
                f"messages[{a}]",
                a,
                call_id=ids[0],
            )
        )
    for i in [*p.stray, *p.unknown]:
        # itmisx/deepx-code#94
        found.append(
            Violation(
                NAME,
                "O2",
                i,
                "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
                f"result for {messages[i].tool_call_id} answers no call of the message before it",
                True,
                RULES["O2"].remedy,
                f"messages[{i}]",
                i,
                call_id=messages[i].tool_call_id,
            )
        )
    if any(m.role == "assistant" and _reasoning(m) for m in messages):
        for i, m in enumerate(messages):
            if m.role == "assistant" and m.tool_calls and not _reasoning(m):
                # continuedev/continue#10193, #11285
                found.append(
                    Violation(
                        NAME,
                        "D1",
                        i,
                        f"Missing `reasoning_content` field in the assistant message at message index {i}. For more "
                        "information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
                        "thinking mode is on in this history, but this assistant message with tool calls has no reasoning",
                        False,
                        RULES["D1"].remedy,
                        f"messages[{i}]",
                        i,
                    )
                )
    found.sort(key=lambda v: v.index)
    return found
