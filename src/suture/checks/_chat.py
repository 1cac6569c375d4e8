"""The pairing every chat-style provider checks (OpenAI Chat and the APIs that copy it).

One wire message per neutral message, so ``messages[N]`` is the neutral index. An assistant
message with ``tool_calls`` must be followed directly by tool messages, one per call; any other
message in between ends that run (an interleaved user or system message breaks it: zed#51944).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from suture.model import Message

__all__ = ["Pairing", "pairing"]


@dataclass(slots=True)
class Pairing:
    """What the run of tool messages after each assistant message answers.

    ``missing``: assistant index -> its non-empty call ids with no tool message in the run after it.
    ``stray``: tool messages that follow no assistant message with calls (index, and the index of
    the message before the run, or -1). ``unknown``: tool messages inside a run whose id is no
    call of that assistant message (index -> assistant index). ``empty``: tool messages with no id.
    """

    missing: dict[int, list[str]] = field(default_factory=dict)
    answers: dict[int, list[int]] = field(default_factory=dict)
    stray: list[int] = field(default_factory=list)
    unknown: dict[int, int] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)


def pairing(messages: Sequence[Message], start: int = 0, stop: int | None = None) -> Pairing:
    """The pairing of ``messages[start:stop]``; ``start`` is 0 or a message that is not a tool
    message (no run of results is open across it)."""
    out = Pairing()
    owner = -1  # assistant whose run of tool messages is open
    owner_ids: set[str] = set()  # its call ids
    for i in range(start, len(messages) if stop is None else stop):
        m = messages[i]
        if m.role == "tool":
            if not m.tool_call_id:
                out.empty.append(i)
            elif owner < 0:
                out.stray.append(i)
            elif m.tool_call_id not in owner_ids:
                out.unknown[i] = owner
            else:
                out.answers.setdefault(owner, []).append(i)
            continue
        owner = i if m.role == "assistant" and m.tool_calls else -1
        if owner >= 0:
            owner_ids = {c.id for c in m.tool_calls}
            out.answers[i] = []
    for a, answers in out.answers.items():
        got = {messages[j].tool_call_id for j in answers}
        missing = [c.id for c in messages[a].tool_calls if c.id and c.id not in got]
        if missing:
            out.missing[a] = missing
    return out
