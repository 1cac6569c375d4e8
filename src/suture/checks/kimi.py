"""Moonshot Kimi: rules K1 and K2, and O1 (the hosted API checks results like OpenAI: kimi-cli#2405).

One wire message per neutral message. Duplicate call ids are checked across the whole request,
history included (openclaw#51593): Kimi's own ``name:idx`` ids repeat across turns, yet the
hosted API rejects them.
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks._base import Violation, id_list, violation
from suture.checks._chat import Pairing, pairing
from suture.checks._wire import Shapes
from suture.model import ImagePart, Message, OtherPart, ThinkingPart, text_of

NAME = "kimi"
TITLE = "Moonshot Kimi"


def _empty(m: Message) -> bool:
    if m.tool_calls:
        return False
    content = m.content
    if isinstance(content, list) and any(isinstance(p, ImagePart | OtherPart | ThinkingPart) for p in content):
        return False
    return text_of(content) == ""


def check(messages: Sequence[Message], shapes: Shapes | None = None) -> list[Violation]:
    """Every Kimi rule the history breaks, by message index (``shapes``: those of ``messages``,
    where other checks share them)."""
    return scan(messages, 0, len(messages), {}, shapes.pairing() if shapes is not None else None)


def scan(
    messages: Sequence[Message], start: int, stop: int, first: dict[str, int], paired: Pairing | None = None
) -> list[Violation]:
    """The problems of ``messages[start:stop]`` (``start``: 0 or a message that is not a tool
    message); ``first`` maps a call id to the first assistant message before ``start`` that uses
    it, and gets those of the range. ``paired``: the range's pairing, where it was worked out already."""
    found: list[Violation] = []
    for a, ids in (paired if paired is not None else pairing(messages, start, stop)).missing.items():
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
                fill={"N": a, "ids": id_list(ids)},
            )
        )
    for i in range(start, stop):
        m = messages[i]
        if m.role != "assistant":
            continue
        if _empty(m):
            found.append(
                violation(NAME, "K2", i, "an empty assistant message", True, f"messages[{i}]", i, fill={"N": i})
            )
        for call in m.tool_calls:
            earlier = first.get(call.id)
            if earlier is None:
                first[call.id] = i
                continue
            found.append(
                violation(
                    NAME,
                    "K1",
                    i,
                    f"call id {call.id or '(no id)'} is already used by the call at [{earlier}]",
                    True,
                    f"messages[{i}]",
                    i,
                    call_id=call.id,
                    related=(earlier,),
                    fill={"id": call.id},
                )
            )
    found.sort(key=lambda v: v.index)
    return found
