"""OpenAI Responses: rules R1-R6 of the rule table.

Wire model: ``suture.checks._wire.items`` (``input[N]`` counts input items). Calls and outputs
are paired by ``call_id`` across the whole input, as the API does. Item ids (``fc_…``, ``rs_…``,
``msg_…``) are known only where a record kept its Responses item; R3, R5 and R6 look at those.
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks._base import Violation
from suture.checks._wire import items
from suture.checks.rules import RULES
from suture.model import Message

NAME = "openai-responses"
TITLE = "OpenAI Responses"

# R4: AnswerDotAI/fastllm#45 quotes the limit.
MAX_CALL_ID = 64
# R5: openai/codex#33176.
_PREFIX = {"function_call": "fc", "message": "msg", "reasoning": "rs"}


def _v(rule: str, index: int, error: str, problem: str, fixed: bool, n: int, call_id: str | None = None) -> Violation:
    return Violation(NAME, rule, index, error, problem, fixed, RULES[rule].remedy, f"input[{n}]", n, None, call_id)


def check(messages: Sequence[Message]) -> list[Violation]:
    wire = items(messages)
    found: list[Violation] = []
    calls = {it.call_id for it in wire if it.type == "function_call"}
    outputs = {it.call_id for it in wire if it.type == "function_call_output"}
    seen_ids: set[str] = set()
    reasoning_elsewhere = any(it.type == "reasoning" and it.item_id for it in wire)
    for n, it in enumerate(wire):
        if it.type in ("function_call", "function_call_output"):
            what = "call" if it.type == "function_call" else "output"
            if not it.call_id:
                found.append(
                    _v(
                        "R4",
                        it.source,
                        f"Missing required parameter: 'input[{n}].call_id'.",
                        f"a function {what} without call_id",
                        True,
                        n,
                    )
                )
            elif len(it.call_id) > MAX_CALL_ID:
                found.append(
                    _v(
                        "R4",
                        it.source,
                        f"Invalid 'input[{n}].call_id': string too long. Expected a string with maximum length "
                        f"{MAX_CALL_ID}, but got a string with length {len(it.call_id)} instead.",
                        f"call_id {it.call_id} is {len(it.call_id)} characters, more than {MAX_CALL_ID}",
                        False,
                        n,
                        it.call_id,
                    )
                )
            elif it.type == "function_call" and it.call_id not in outputs:
                # tjardoo/openai-client#124
                found.append(
                    _v(
                        "R1",
                        it.source,
                        f"No tool output found for function call {it.call_id}.",
                        f"call {it.call_id} has no function_call_output",
                        True,
                        n,
                        it.call_id,
                    )
                )
            elif it.type == "function_call_output" and it.call_id not in calls:
                # continuedev/continue#10092
                found.append(
                    _v(
                        "R2",
                        it.source,
                        f"No tool call found for function call output with call_id {it.call_id}.",
                        f"output for {it.call_id} answers no function_call",
                        True,
                        n,
                        it.call_id,
                    )
                )
        if it.item_id is None:
            continue
        if it.item_id in seen_ids:
            # vercel/ai#7883
            found.append(
                _v(
                    "R3",
                    it.source,
                    f"Duplicate item found with id {it.item_id}. Remove duplicate items from your input and try again.",
                    f"item id {it.item_id} is used twice",
                    False,
                    n,
                )
            )
        seen_ids.add(it.item_id)
        prefix = _PREFIX.get(it.type)
        if prefix and not it.item_id.startswith(prefix):
            found.append(
                _v(
                    "R5",
                    it.source,
                    f"Invalid 'input[{n}].id': '{it.item_id}'. Expected an ID that begins with '{prefix}'.",
                    f"a {it.type} item with id {it.item_id}",
                    False,
                    n,
                )
            )
    # R6 (continuedev/continue#10018, #8933): reasoning items and the item that follows them.
    by_message: dict[int, list[int]] = {}
    for n, it in enumerate(wire):
        by_message.setdefault(it.source, []).append(n)
    for source, positions in by_message.items():
        kinds = [wire[n].type for n in positions]
        if messages[source].role != "assistant":
            continue
        if kinds and all(k == "reasoning" for k in kinds):
            last = wire[positions[-1]]
            if last.item_id:
                found.append(
                    _v(
                        "R6",
                        source,
                        f"Item '{last.item_id}' of type 'reasoning' was provided without its required following item.",
                        "a reasoning item with nothing after it from the same response",
                        False,
                        positions[-1],
                    )
                )
        elif reasoning_elsewhere and "reasoning" not in kinds:
            for n in positions:
                it = wire[n]
                if it.type == "function_call" and it.item_id:
                    found.append(
                        _v(
                            "R6",
                            source,
                            f"Item '{it.item_id}' of type 'function_call' was provided without its required "
                            "'reasoning' item.",
                            f"function_call {it.item_id} came with a reasoning item that is not in this input",
                            False,
                            n,
                            it.call_id,
                        )
                    )
                    break
    found.sort(key=lambda v: (v.index, v.wire_index or 0))
    return found
