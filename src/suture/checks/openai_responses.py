"""OpenAI Responses: rules R1-R6 and R8 of the rule table; for strict Responses servers also R7
and R9 (``suture.checks.openai_responses_strict``).

Wire model: ``suture.checks._wire.items`` (``input[N]`` counts input items). OpenAI pairs calls
and outputs by ``call_id`` across the whole input; a strict server wants each turn's outputs right
after its calls (R7) and one output per call (R9). Item ids (``fc_…``, ``rs_…``, ``msg_…``) are
known only where a record kept its Responses item; R3, R5 and R6 look at those.

A repaired history is checked as suture writes it (``repaired=True``): a turn's outputs right after
its last call, what the model wrote after its calls after them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from suture.checks._base import Violation, violation
from suture.checks._wire import Item, items
from suture.model import Message

NAME = "openai-responses"
TITLE = "OpenAI Responses"

# R4: AnswerDotAI/fastllm#45 quotes the limit.
MAX_CALL_ID = 64
# R5: openai/codex#33176.
_PREFIX = {"function_call": "fc", "message": "msg", "reasoning": "rs"}
_PAIRED = frozenset({"function_call", "function_call_output"})


class _Out:
    """The violations found, each written with its rule's text from ``RULES``."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.found: list[Violation] = []

    def add(
        self,
        rule: str,
        index: int,
        n: int,
        problem: str,
        fixed: bool,
        call_id: str | None = None,
        related: tuple[int, ...] = (),
        text: int = 0,
        **fields: object,
    ) -> None:
        self.found.append(
            violation(
                self.provider,
                rule,
                index,
                problem,
                fixed,
                f"input[{n}]",
                n,
                call_id=call_id,
                related=related,
                text=text,
                fill={"N": n, **fields},
            )
        )


def check(messages: Sequence[Message], repaired: bool = False) -> list[Violation]:
    """Every OpenAI Responses rule the history breaks (``repaired``: laid out as suture writes it)."""
    return check_as(NAME, messages, strict=False, repaired=repaired)


def check_as(provider: str, messages: Sequence[Message], strict: bool, repaired: bool) -> list[Violation]:
    """The Responses rules as ``provider`` enforces them; ``strict`` adds R7 and R9."""
    wire = items(messages, repaired)
    out = _Out(provider)
    _pairing(out, wire)
    _item_ids(out, wire)
    _reasoning(out, wire, messages)
    if strict:
        _adjacent(out, wire)
        _single_output(out, wire)
    out.found.sort(key=lambda v: (v.index, v.wire_index or 0))
    return out.found


def _pairing(out: _Out, wire: list[Item]) -> None:
    """R8, R4, R1 and R2: every call and output has a call_id of at most 64 characters, and a partner."""
    calls = {it.call_id for it in wire if it.type == "function_call"}
    outputs = {it.call_id for it in wire if it.type == "function_call_output"}
    for n, it in enumerate(wire):
        if it.type not in _PAIRED:
            continue
        what = "call" if it.type == "function_call" else "output"
        if not it.call_id:
            out.add("R8", it.source, n, f"a function {what} without call_id", True)
        elif len(it.call_id) > MAX_CALL_ID:
            out.add(
                "R4",
                it.source,
                n,
                f"call_id {it.call_id} is {len(it.call_id)} characters, more than {MAX_CALL_ID}",
                False,
                it.call_id,
                L=len(it.call_id),
            )
        elif it.type == "function_call" and it.call_id not in outputs:
            out.add("R1", it.source, n, f"call {it.call_id} has no function_call_output", True, it.call_id)
        elif it.type == "function_call_output" and it.call_id not in calls:
            out.add("R2", it.source, n, f"output for {it.call_id} answers no function_call", True, it.call_id)


def _item_ids(out: _Out, wire: list[Item]) -> None:
    """R3 and R5: item ids are unique and carry the prefix of their type."""
    seen_ids: set[str] = set()
    for n, it in enumerate(wire):
        if it.item_id is None:
            continue
        if it.item_id in seen_ids:
            out.add("R3", it.source, n, f"item id {it.item_id} is used twice", False, id=it.item_id)
        seen_ids.add(it.item_id)
        prefix = _PREFIX.get(it.type)
        if prefix and not it.item_id.startswith(prefix):
            out.add("R5", it.source, n, f"a {it.type} item with id {it.item_id}", False, id=it.item_id, prefix=prefix)


def _reasoning(out: _Out, wire: list[Item], messages: Sequence[Message]) -> None:
    """R6 (continuedev/continue#10018, #8933): reasoning items and the item that follows them."""
    reasoning_elsewhere = any(it.type == "reasoning" and it.item_id for it in wire)
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
                out.add(
                    "R6",
                    source,
                    positions[-1],
                    "a reasoning item with nothing after it from the same response",
                    False,
                    text=1,
                    id=last.item_id,
                )
        elif reasoning_elsewhere and "reasoning" not in kinds:
            for n in positions:
                it = wire[n]
                if it.type == "function_call" and it.item_id:
                    out.add(
                        "R6",
                        source,
                        n,
                        f"function_call {it.item_id} came with a reasoning item that is not in this input",
                        False,
                        it.call_id,
                        id=it.item_id,
                    )
                    break


def _describe(it: Item) -> str:
    if it.type == "message":
        return "a message item"
    if it.type == "reasoning":
        return "a reasoning item"
    return "an item"


def _adjacent(out: _Out, wire: list[Item]) -> None:
    """R7 (deepseek-ai/awesome-deepseek-integration#740; kolega-ai/kolega-code#403): nothing but
    calls and outputs between a call and its output. One problem per turn, at its first call
    that has one; a call with no output at all is R1's."""
    outputs: dict[str, list[int]] = {}
    for n, it in enumerate(wire):
        if it.type == "function_call_output" and it.call_id:
            outputs.setdefault(it.call_id, []).append(n)
    # others[k]: how many items before position k are neither a call nor an output.
    others = [0] * (len(wire) + 1)
    last_call: dict[int, int] = {}
    for n, it in enumerate(wire):
        others[n + 1] = others[n] + (it.type not in _PAIRED)
        if it.type == "function_call":
            last_call[it.source] = n
    reported: set[int] = set()
    for c, it in enumerate(wire):
        if it.type != "function_call" or not it.call_id or it.source in reported:
            continue
        found = outputs.get(it.call_id)
        if not found:
            continue
        k = bisect_right(found, c)
        if k == len(found):
            problem = f"the output for {it.call_id} comes before its call"
            fixed = True
            related: tuple[int, ...] = (wire[found[-1]].source,)
        else:
            o = found[k]
            if others[o] == others[c + 1]:
                continue
            between = [j for j in range(c + 1, o) if wire[j].type not in _PAIRED]
            first = wire[between[0]]
            problem = (
                f"{_describe(first)} (input[{between[0]}]) stands between call {it.call_id} (input[{c}]) "
                f"and its output (input[{o}])"
            )
            # The repair moves outputs up to their turn's last call; items between two calls stay.
            fixed = not any(wire[j].source == it.source and j < last_call[it.source] for j in between)
            related = (first.source, wire[o].source) if first.source != it.source else (wire[o].source,)
        out.add("R7", it.source, c, problem, fixed, it.call_id, related)
        reported.add(it.source)


def _single_output(out: _Out, wire: list[Item]) -> None:
    """R9 (NousResearch/hermes-agent#102629): one output per call_id in the whole input."""
    first: dict[str, int] = {}
    for n, it in enumerate(wire):
        if it.type != "function_call_output" or not it.call_id:
            continue
        if it.call_id not in first:
            first[it.call_id] = n
            continue
        earlier = wire[first[it.call_id]].source
        out.add(
            "R9",
            it.source,
            n,
            f"a second output for call_id {it.call_id} (the first is input[{first[it.call_id]}])",
            True,
            it.call_id,
            (earlier,),
        )
