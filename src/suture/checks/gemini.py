"""Google Gemini ``generateContent``: rules G1-G5 of the rule table.

Wire model: ``suture.checks._wire.contents`` (assistant messages are ``model`` contents, a run
of results is one function-response content, system prompts go to ``systemInstruction``);
``contents[N]`` counts those contents.

G4 (Gemini 3 needs each step's first function call of the current turn to carry the
``thoughtSignature`` it was returned with) is checked where the history shows it matters: some
call kept a signature (the history came from a model that signs its calls), or some call was not
read from Gemini at all (a history from another provider, which Gemini 3 rejects unsigned:
Rahularya01/pi-antigravity#22). A Gemini history with no signatures anywhere came from a model
that does not sign, and is not flagged. The error's ``position`` counts contents from 1 (a model
turn right after the first user turn is position 2 in every report seen).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from suture.checks._base import Violation, violation
from suture.checks._wire import Turn, contents
from suture.model import Message, is_placeholder

NAME = "gemini"
TITLE = "Google Gemini"

_SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")


def _signature(raw: Any) -> bool:
    return isinstance(raw, dict) and any(isinstance(raw.get(k), str) and raw.get(k) for k in _SIGNATURE_KEYS)


def _v(
    rule: str, index: int, problem: str, fixed: bool, n: int, call_id: str | None = None, **fields: object
) -> Violation:
    return violation(NAME, rule, index, problem, fixed, f"contents[{n}]", n, call_id=call_id, fill={"N": n, **fields})


def _placeholder(messages: Sequence[Message], turn: Turn) -> bool:
    return turn.role == "model" and all(is_placeholder(messages[i]) for i in turn.members)


def check(messages: Sequence[Message]) -> list[Violation]:
    wire = contents(messages)
    found: list[Violation] = []
    for n, turn in enumerate(wire):
        calls = [b for b in turn.blocks if b.kind == "tool_use"]
        index = turn.members[0]
        if not turn.blocks:
            # vercel/ai#3775, langchain-google#691
            found.append(
                _v(
                    "G5",
                    index,
                    f"an empty {turn.role} content",
                    _placeholder(messages, turn),
                    n,
                )
            )
        if turn.responses:
            prev = wire[n - 1] if n > 0 else None
            if prev is None or prev.role != "model" or not prev.ids("tool_use"):
                found.append(
                    _v(
                        "G1",
                        index,
                        "function responses that do not follow a function call turn",
                        True,
                        n,
                        turn.blocks[0].id,
                    )
                )
        if not calls:
            continue
        prev = wire[n - 1] if n > 0 else None
        if prev is None or prev.role != "user":
            before = next((t for t in reversed(wire[:n]) if not _placeholder(messages, t)), None)
            found.append(
                _v(
                    "G2",
                    index,
                    "a function call turn that follows " + ("nothing" if prev is None else "another model turn"),
                    before is not None and (before.role == "user" or bool(before.ids("tool_use"))),
                    n,
                    calls[0].id,
                )
            )
        nxt = wire[n + 1] if n + 1 < len(wire) else None
        if nxt is None or not nxt.responses:
            found.append(
                _v(
                    "G1",
                    index,
                    f"the function call turn at contents[{n}] is not followed by its function responses",
                    True,
                    n + 1,
                    calls[0].id,
                )
            )
        elif len(nxt.ids("tool_result")) != len(calls):
            found.append(
                _v(
                    "G3",
                    index,
                    f"{len(calls)} function calls, {len(nxt.ids('tool_result'))} function responses after them",
                    True,
                    n + 1,
                    calls[0].id,
                )
            )
    found.extend(_signatures(messages, wire))
    found.sort(key=lambda v: v.index)
    return found


def _signatures(messages: Sequence[Message], wire: list[Turn]) -> list[Violation]:
    """G4 (csells/dartantic#86): in the current turn (after the last user text), the first call of
    each model step must carry its signature."""
    every = [c for m in messages for c in m.tool_calls]
    signed = any(_signature(c.raw) for c in every)
    foreign = any(not (isinstance(c.raw, dict) and "functionCall" in c.raw) for c in every)
    if not (signed or foreign):
        return []  # a Gemini history without signatures: from a model that does not sign its calls
    start = 0
    for n, turn in enumerate(wire):
        if turn.role == "user" and not turn.responses:
            start = n + 1
    found = []
    for n in range(start, len(wire)):
        calls = [b for b in wire[n].blocks if b.kind == "tool_use"]
        if calls and not _signature(calls[0].raw):
            name = calls[0].name or "the tool"
            found.append(
                _v(
                    "G4",
                    wire[n].members[0],
                    f"call {calls[0].id or '(no id)'} ({name}) in the current turn has no thought signature",
                    False,
                    n,
                    calls[0].id,
                    name=name,
                    P=n + 1,
                )
            )
    return found
