"""OpenAI Chat Completions: rules O1-O5 of the rule table.

One wire message per neutral message (``messages[N]`` is the neutral index). Duplicate results
are checked across the whole request (agno-agi/agno#5116).
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks._base import Violation, id_list
from suture.checks._chat import pairing
from suture.checks.rules import RULES
from suture.model import Message

NAME = "openai-chat"
TITLE = "OpenAI Chat Completions"

# O5: vercel/ai#5171 quotes the limit.
MAX_ID = 40


def _v(
    rule: str,
    index: int,
    error: str,
    problem: str,
    fixed: bool,
    where: str,
    call_id: str | None = None,
    related: tuple[int, ...] = (),
) -> Violation:
    return Violation(NAME, rule, index, error, problem, fixed, RULES[rule].remedy, where, index, None, call_id, related)


def o1_text(index: int, ids: list[str]) -> str:
    # sdcb/chats#132: the param names the assistant message.
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {id_list(ids)} "
        f"(param: messages.[{index}].role)"
    )


def check(messages: Sequence[Message]) -> list[Violation]:
    """Every OpenAI Chat rule the history breaks, by message index."""
    found: list[Violation] = []
    p = pairing(messages)
    for a, ids in p.missing.items():
        found.append(
            _v(
                "O1",
                a,
                o1_text(a, ids),
                f"{'call ' + ids[0] + ' has' if len(ids) == 1 else 'calls ' + id_list(ids) + ' have'} no tool "
                "message right after this assistant message",
                True,
                f"messages[{a}]",
                call_id=ids[0],
            )
        )
    for i in p.stray:
        found.append(
            _v(
                "O2",
                i,
                "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                f"'tool_calls'. (param: messages.[{i}].role)",
                f"result for {messages[i].tool_call_id} does not follow an assistant message with tool_calls",
                True,
                f"messages[{i}]",
                call_id=messages[i].tool_call_id,
            )
        )
    for i, a in p.unknown.items():
        tid = messages[i].tool_call_id
        found.append(
            _v(
                "O2",
                i,
                f"Invalid parameter: 'tool_call_id' of '{tid}' not found in 'tool_calls' of previous message.",
                f"result for {tid} answers no call of the assistant message at [{a}]",
                True,
                f"messages[{i}]",
                call_id=tid,
                related=(a,),
            )
        )
    for i in p.empty:
        found.append(
            _v(
                "O3",
                i,
                "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
                "a tool message without tool_call_id",
                True,
                f"messages[{i}]",
            )
        )
    first_result: dict[str, int] = {}
    for i, m in enumerate(messages):
        if m.role == "tool" and m.tool_call_id:
            earlier = first_result.get(m.tool_call_id)
            if earlier is None:
                first_result[m.tool_call_id] = i
            else:
                found.append(
                    _v(
                        "O4",
                        i,
                        f"Invalid parameter: Duplicate value for 'tool_call_id' of '{m.tool_call_id}', in "
                        f"messages[{earlier}] and messages[{i}].",
                        f"a second tool message for {m.tool_call_id} (the first is at [{earlier}])",
                        True,
                        f"messages[{i}]",
                        call_id=m.tool_call_id,
                        related=(earlier,),
                    )
                )
        for c, call in enumerate(m.tool_calls if m.role == "assistant" else ()):
            where = f"messages[{i}].tool_calls[{c}].id"
            if not call.id:
                found.append(_v("O3", i, f"Missing required parameter: '{where}'.", f"call {c} has no id", True, where))
            elif len(call.id) > MAX_ID:
                found.append(
                    _v(
                        "O5",
                        i,
                        f"Invalid '{where}': string too long. Expected a string with maximum length {MAX_ID}, but got "
                        f"a string with length {len(call.id)} instead.",
                        f"call id {call.id} is {len(call.id)} characters, more than {MAX_ID}",
                        False,
                        where,
                        call_id=call.id,
                    )
                )
    found.sort(key=lambda v: v.index)
    return found
