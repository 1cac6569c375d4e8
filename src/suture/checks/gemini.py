"""Google Gemini ``generateContent``: rules G1-G5 of the rule table.

Wire model: ``suture.checks._wire.contents`` (assistant messages are ``model`` contents, a run
of results is one function-response content, system prompts go to ``systemInstruction``);
``contents[N]`` counts those contents.

G4 (Gemini 3 needs each step's first function call of the current turn to carry the
``thoughtSignature`` it was returned with) is checked where the history shows it matters: some
call kept a signature (the history came from a model that signs its calls), or some call was not
read from Gemini at all (a history from another provider, which Gemini 3 rejects unsigned:
Rahularya01/pi-antigravity#22). A Gemini history with no signatures anywhere came from a model
that does not sign, and is not flagged. A call not read from Gemini is laid out as suture writes
it (``suture.formats.gemini``): the first call of its model content carries Gemini's documented
placeholder signature (:data:`suture.formats.gemini.SKIP_SIGNATURE`), which Gemini 3 accepts, so it is never a G4
problem; the check of the written file, where those calls are Gemini's own, agrees. The error's
``position`` counts contents from 1 (a model turn right after the first user turn is position 2
in every report seen).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from suture.checks._base import Violation, unsent, violation
from suture.checks._wire import LIFTED_ROLES, Shapes, Turn
from suture.model import Message, is_placeholder
from suture.words import count

NAME = "gemini"
TITLE = "Google Gemini"

_SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")


def _signature(raw: Any) -> bool:
    return isinstance(raw, dict) and any(isinstance(raw.get(k), str) and raw.get(k) for k in _SIGNATURE_KEYS)


def native(raw: Any) -> bool:
    """Whether a call's record was read from Gemini (a ``functionCall`` part)."""
    return isinstance(raw, dict) and "functionCall" in raw


def _signed_as_written(raw: Any) -> bool:
    """Whether a content's first call goes to Gemini with a signature: its own, or, for a call
    not read from Gemini, :data:`suture.formats.gemini.SKIP_SIGNATURE`."""
    return not native(raw) or _signature(raw)


def _v(
    rule: str, index: int, problem: str, fixed: bool, n: int, call_id: str | None = None, **fields: object
) -> Violation:
    return violation(NAME, rule, index, problem, fixed, f"contents[{n}]", n, call_id=call_id, fill={"N": n, **fields})


def placeholder(messages: Sequence[Message], turn: Turn) -> bool:
    return turn.role == "model" and all(is_placeholder(messages[i]) for i in turn.members)


def check(
    messages: Sequence[Message], shapes: Shapes | None = None, *, prompt_follows: bool = False
) -> list[Violation]:
    """Every Gemini rule the history breaks, by message index (``shapes``: those of ``messages``,
    where other checks share them). ``prompt_follows``: the user's next message comes after the
    history (see :func:`suture.checks.empty`): its text starts the current turn, so no call of
    the history is in it (no G4)."""
    wire = (Shapes(messages) if shapes is None else shapes).contents()
    found = scan(messages, wire, 0, None, None)
    if not prompt_follows:
        found.extend(_signatures(messages, wire))
    found.sort(key=lambda v: v.index)
    return found


def empty(messages: Sequence[Message]) -> list[Violation]:
    """G6: no content in ``messages`` (system prompts go in ``systemInstruction``, not among them)."""
    return unsent(NAME, "G6", "contents", messages, LIFTED_ROLES)


def scan(
    messages: Sequence[Message], wire: list[Turn], base: int, prev: Turn | None, kept: Turn | None
) -> list[Violation]:
    """G1, G2, G3 and G5 of the contents ``wire``, numbered from ``base``: all of a history's, or
    those of its messages from an assistant message on (``prev`` the content before them,
    ``kept`` the last one before them that is not an empty model turn). In index order."""
    found: list[Violation] = []
    for k, turn in enumerate(wire):
        n = base + k
        calls = [b for b in turn.blocks if b.kind == "tool_use"]
        index = turn.members[0]
        if not turn.blocks:
            # vercel/ai#3775, langchain-google#691 (research provider-rules.md, G5): a content of
            # any role, a user's `parts: []` too; the repair drops only empty model turns.
            found.append(
                _v(
                    "G5",
                    index,
                    f"an empty {turn.role} content",
                    placeholder(messages, turn),
                    n,
                )
            )
        before = wire[k - 1] if k > 0 else prev
        if turn.responses and (before is None or before.role != "model" or not before.ids("tool_use")):
            found.append(
                _v(
                    "G1",
                    index,
                    "function responses that do not follow a function call turn",
                    True,
                    n,
                    turn.ids("tool_result")[0],
                )
            )
        if not calls:
            continue
        if before is None or before.role != "user":
            last = next((t for t in reversed(wire[:k]) if not placeholder(messages, t)), kept)
            found.append(
                _v(
                    "G2",
                    index,
                    "a function call turn that follows " + ("nothing" if before is None else "another model turn"),
                    last is not None and (last.role == "user" or bool(last.ids("tool_use"))),
                    n,
                    calls[0].id,
                )
            )
        nxt = wire[k + 1] if k + 1 < len(wire) else None
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
                    f"{count(len(calls), 'function call')}, "
                    f"{count(len(nxt.ids('tool_result')), 'function response')} after {'it' if len(calls) == 1 else 'them'}",
                    True,
                    n + 1,
                    calls[0].id,
                )
            )
    return found


def _signatures(messages: Sequence[Message], wire: list[Turn]) -> list[Violation]:
    """G4 (csells/dartantic#86): in the current turn (after the last user text), the first call of
    each model step must carry its signature."""
    signed, foreign = signing(messages, 0, len(messages))
    if not (signed or foreign):
        return []  # a Gemini history without signatures: from a model that does not sign its calls
    return unsigned(wire, 0)[1]


def signing(messages: Sequence[Message], start: int, stop: int) -> tuple[bool, bool]:
    """Whether a call of ``messages[start:stop]`` kept a signature, and whether one was not read
    from Gemini: either makes G4 apply to the history."""
    every = [c for i in range(start, stop) for c in messages[i].tool_calls]
    signed = any(_signature(c.raw) for c in every)
    foreign = any(not native(c.raw) for c in every)
    return signed, foreign


def unsigned(wire: list[Turn], base: int) -> tuple[bool, list[Violation]]:
    """The G4 problems of the contents ``wire`` (numbered from ``base``) after the last user
    content with text among them, and whether there is such a content (the current turn starts
    after it)."""
    found: list[Violation] = []
    reset = False
    for k, turn in enumerate(wire):
        if turn.role == "user" and (not turn.responses or any(b.kind != "tool_result" for b in turn.blocks)):
            # (user text starts the current turn, also in a content that holds responses too)
            found = []
            reset = True
            continue
        calls = [b for b in turn.blocks if b.kind == "tool_use"]
        if calls and not _signed_as_written(calls[0].raw):
            n = base + k
            name = calls[0].name or "the tool"
            found.append(
                _v(
                    "G4",
                    turn.members[0],
                    f"call {calls[0].id or '(no id)'} ({name}) in the current turn has no thought signature",
                    False,
                    n,
                    calls[0].id,
                    name=name,
                    P=n + 1,
                )
            )
    return reset, found
