"""DeepSeek: rule D1, and O1/O2 with DeepSeek's own wording.

One wire message per neutral message; ``message index N`` is the neutral index. Thinking mode is
inferred from the history itself: an assistant message carrying reasoning (a thinking part, or a
``reasoning_content`` kept on its record) shows it was on.
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks._base import Violation, has_thinking, id_list, violation
from suture.checks._chat import Pairing, pairing
from suture.checks._wire import Shapes
from suture.model import Message

NAME = "deepseek"
TITLE = "DeepSeek"


def _reasoning(m: Message) -> bool:
    raw = m.raw
    return has_thinking(m) or (isinstance(raw, dict) and raw.get("reasoning_content") is not None)


def check(messages: Sequence[Message], shapes: Shapes | None = None) -> list[Violation]:
    """Every DeepSeek rule the history breaks, by message index (``shapes``: those of
    ``messages``, where other checks share them)."""
    paired = shapes.pairing() if shapes is not None else None
    return scan(messages, 0, len(messages), thinking(messages, 0, len(messages)), paired)


def thinking(messages: Sequence[Message], start: int, stop: int) -> bool:
    """Whether an assistant message of ``messages[start:stop]`` carries reasoning (thinking mode is on)."""
    return any(messages[i].role == "assistant" and _reasoning(messages[i]) for i in range(start, stop))


def unreasoned(messages: Sequence[Message], start: int, stop: int) -> bool:
    """Whether ``messages[start:stop]`` has an assistant message with calls and no reasoning
    (one D1 would name, were thinking mode on)."""
    return any(
        messages[i].role == "assistant" and messages[i].tool_calls and not _reasoning(messages[i])
        for i in range(start, stop)
    )


def scan(
    messages: Sequence[Message], start: int, stop: int, thinking_on: bool, paired: Pairing | None = None
) -> list[Violation]:
    """The problems of ``messages[start:stop]`` (``start``: 0 or a message that is not a tool
    message), ``thinking_on`` whether the whole history shows thinking mode; ``paired``: the
    range's pairing, where it was worked out already."""
    found: list[Violation] = []
    p = paired if paired is not None else pairing(messages, start, stop)
    for a, ids in p.missing.items():
        # agno-agi/agno#3105
        found.append(
            violation(
                NAME,
                "O1",
                a,
                f"{id_list(ids)}: no tool message right after this assistant message",
                True,
                f"messages[{a}]",
                a,
                call_id=ids[0],
                text=1,
            )
        )
    for i in [*p.stray, *p.unknown]:
        # itmisx/deepx-code#94
        found.append(
            violation(
                NAME,
                "O2",
                i,
                f"result for {messages[i].tool_call_id} answers no call of the message before it",
                True,
                f"messages[{i}]",
                i,
                call_id=messages[i].tool_call_id,
                text=2,
            )
        )
    if thinking_on:
        for i in range(start, stop):
            m = messages[i]
            if m.role == "assistant" and m.tool_calls and not _reasoning(m):
                # continuedev/continue#10193, #11285
                found.append(
                    violation(
                        NAME,
                        "D1",
                        i,
                        "thinking mode is on in this history, but this assistant message with tool calls has no reasoning",
                        False,
                        f"messages[{i}]",
                        i,
                        fill={"N": i},
                    )
                )
    found.sort(key=lambda v: v.index)
    return found
