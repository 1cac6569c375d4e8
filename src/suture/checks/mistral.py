"""Mistral: rules M1-M5, modelled on mistral-common's request validator.

Source: mistralai/mistral-common ``src/mistral_common/protocol/instruct/validator.py``
(``MistralRequestValidatorV13`` for ids and counts, ``_validate_message_order`` for roles,
``_validate_last_message`` for the end). One wire message per neutral message. Ids are checked
within one assistant message and the results after it, as the validator does; like it, the
first message is not counted when pairing calls with results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from suture.checks._base import Violation, unsent, violation
from suture.checks._wire import Shapes
from suture.model import Message, is_placeholder
from suture.words import count, with_article

NAME = "mistral"
TITLE = "Mistral"

_ID = re.compile(r"[a-zA-Z0-9]{9}")

# validator.py _validate_message_order: the roles allowed after each role.
_AFTER = {
    "system": {"user", "assistant", "system"},
    "user": {"assistant", "system", "user"},
    "assistant": {"assistant", "user", "tool"},
    "tool": {"assistant", "tool"},
}

_FIRST_QUIRK = (
    "Mistral's validator skips the first message when it pairs calls with results, so results for "
    "calls in an opening assistant message are unexpected: start the history with a user or system message."
)


def _role(m: Message) -> str:
    if m.role == "developer":
        return "system"
    return m.role if m.role in _AFTER else "user"


def _v(
    rule: str,
    index: int,
    problem: str,
    fixed: bool,
    call_id: str | None = None,
    remedy: str = "",
    related: tuple[int, ...] = (),
    text: int = 0,
    **fields: object,
) -> Violation:
    return violation(
        NAME,
        rule,
        index,
        problem,
        fixed,
        f"messages[{index}]",
        index,
        call_id=call_id,
        related=related,
        remedy=remedy,
        text=text,
        fill=fields,
    )


def check(
    messages: Sequence[Message], shapes: Shapes | None = None, *, prompt_follows: bool = False
) -> list[Violation]:
    """Every Mistral rule the history breaks, by message index (one wire message per message:
    nothing of ``shapes`` to share). ``prompt_follows``: the user's next message comes after the
    history (see :func:`suture.checks.empty`) and ends the request, as M4 asks (no M4)."""
    return scan(messages, 0, len(messages), prompt_follows)


def empty(messages: Sequence[Message]) -> list[Violation]:
    """M6: no message at all (validator.py ``_validate_message_list_structure``; a system message
    alone passes it)."""
    return unsent(NAME, "M6", "messages", messages)


def scan(messages: Sequence[Message], start: int, stop: int, prompt_follows: bool = False) -> list[Violation]:
    """The problems of ``messages[start:stop]`` (``start``: 0 or an assistant message), by
    message index; the rule of the last message only when ``stop`` is the end and no prompt
    follows the history."""
    found: list[Violation] = []
    n = len(messages)
    for i in range(start, stop):
        m = messages[i]
        ids = [c.id for c in m.tool_calls] if m.role == "assistant" else [m.tool_call_id] if m.role == "tool" else []
        for call_id in ids:
            if call_id != "null" and not _ID.fullmatch(call_id):
                found.append(
                    _v(
                        "M1",
                        i,
                        f"id {call_id or '(no id)'} is not 9 letters or digits",
                        False,
                        call_id,
                        id=call_id,
                    )
                )
    for i in range(max(start, 1), stop):
        prev, cur = _role(messages[i - 1]), _role(messages[i])
        if cur not in _AFTER[prev]:
            found.append(
                _v(
                    "M3",
                    i,
                    f"a {cur} message right after a {prev} message",
                    False,
                    related=(i - 1,),
                    role=cur,
                    previous=prev,
                )
            )
    if n > 1 and stop == n and not prompt_follows:
        last = messages[-1]
        role = _role(last)
        prefix = isinstance(last.raw, dict) and last.raw.get("prefix") is True
        if role not in ("user", "tool") and not (role == "assistant" and prefix):
            kept = next((m for m in reversed(messages) if not is_placeholder(m)), None)
            fixed = kept is not None and (_role(kept) in ("user", "tool") or bool(kept.tool_calls))
            found.append(
                _v(
                    "M4",
                    n - 1,
                    f"the request ends with {with_article(role)} message",
                    fixed,
                    text=1,
                    role=role,
                )
            )
    found.extend(_pairs(messages, start, stop))
    found.sort(key=lambda v: v.index)
    return found


def _pairs(messages: Sequence[Message], start: int, stop: int) -> list[Violation]:
    """MistralRequestValidatorV13._validate_tool_calls_followed_by_tool_messages, reporting every
    problem instead of the first (over ``messages[start:stop]``; ``stop`` is the end or an
    assistant message, which ends the pairing of the one before it)."""
    found: list[Violation] = []
    expected: set[str] = set()
    observed: set[str] = set()
    owner = -1
    opening = {c.id for c in messages[0].tool_calls} if messages and messages[0].role == "assistant" else set()

    def count_problem() -> None:
        if len(expected) != len(observed) and owner >= 0:
            found.append(
                _v(
                    "M2",
                    owner,
                    f"{count(len(expected), 'call')} here, {count(len(observed), 'matching result')} before the "
                    "next assistant message",
                    True,
                )
            )

    for i in range(max(start, 1), stop):
        m = messages[i]
        if m.role == "tool":
            tid = m.tool_call_id
            if tid in observed:
                found.append(
                    _v(
                        "M5",
                        i,
                        f"a second result for {tid}",
                        True,
                        tid,
                        id=tid,
                    )
                )
            elif tid not in expected:
                quirk = owner < 0 and tid in opening
                found.append(
                    _v(
                        "M5",
                        i,
                        f"result for {tid or '(no id)'} answers no call of the assistant message before it",
                        not quirk,
                        tid,
                        _FIRST_QUIRK if quirk else "",
                        text=1,
                        id=tid,
                    )
                )
            else:
                observed.add(tid)
        elif m.role == "assistant":
            count_problem()
            expected.clear()
            observed.clear()
            owner = i
            for call in m.tool_calls:
                if call.id in expected:
                    found.append(
                        _v(
                            "M5",
                            i,
                            f"two calls of this message share the id {call.id}",
                            True,
                            call.id,
                            text=2,
                            id=call.id,
                        )
                    )
                expected.add(call.id)
    count_problem()
    return found
