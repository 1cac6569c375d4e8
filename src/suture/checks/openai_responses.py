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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from suture.checks._base import Violation, violation
from suture.checks._wire import Item, Shapes
from suture.checks.rules import OUTPUT_BEFORE_CALL
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
        remedy: str = "",
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
                remedy=remedy,
                text=text,
                fill={"N": n, **fields},
            )
        )


def check(messages: Sequence[Message], shapes: Shapes | None = None, *, repaired: bool = False) -> list[Violation]:
    """Every OpenAI Responses rule the history breaks (``repaired``: laid out as suture writes it;
    ``shapes``: those of ``messages``, where other checks share them)."""
    return check_as(NAME, messages, strict=False, repaired=repaired, shapes=shapes)


def check_as(
    provider: str, messages: Sequence[Message], strict: bool, repaired: bool, shapes: Shapes | None = None
) -> list[Violation]:
    """The Responses rules as ``provider`` enforces them; ``strict`` adds R7 and R9. The problems
    of the rules both enforce are found once per list of items and shared through ``shapes``."""
    shapes = Shapes(messages) if shapes is None else shapes
    wire = shapes.items(repaired)
    common = shapes.shared(("responses", id(wire)), lambda: _whole(messages, wire, False))
    found = [v if v.provider == provider else replace(v, provider=provider) for v in common]
    if strict:
        found += _whole(messages, wire, True, provider)
    found.sort(key=order)
    return found


def _whole(messages: Sequence[Message], wire: list[Item], strict: bool, provider: str = NAME) -> list[Violation]:
    """The problems of the whole input ``wire``, not yet in :func:`order`: of the rules every
    Responses server enforces, or with ``strict`` of those only strict servers add (R7, R9)."""
    calls = {it.call_id for it in wire if it.type == "function_call"}
    outputs = {it.call_id for it in wire if it.type == "function_call_output"}
    facts = Facts(0, len(wire), calls.__contains__, outputs.__contains__, reasoning_ids(wire))
    if not strict:
        return scan(provider, messages, wire, facts, False)[0]
    out = _Out(provider)
    _adjacent(out, wire, facts)
    _single_output(out, wire, facts)
    return out.found


def order(v: Violation) -> tuple[int, int]:
    """The order of a Responses check's problems: by message, then by item."""
    return (v.index, v.wire_index or 0)


def reasoning_ids(wire: Sequence[Item]) -> bool:
    """Whether a reasoning item of ``wire`` carries its own id (R6 then asks every call with an id
    for the reasoning item that came with it)."""
    return any(it.type == "reasoning" and it.item_id for it in wire)


@dataclass(slots=True)
class Facts:
    """What the Responses rules of some items need to know of the rest of the input.

    The items checked are ``wire[:limit]`` of the ``wire`` a scan is given, numbered from
    ``base``; the rest of ``wire`` is what follows them (R7 looks there for outputs).
    ``has_call(id)`` and ``has_output(id)``: whether the input has a call, an output, with that
    call_id; ``reasoning``: whether a reasoning item of the input has an id (:func:`reasoning_ids`).
    ``seen_ids`` (item ids) and ``first_output`` (call_id to the first output's position and
    neutral index) hold
    those of the items before ``base`` and get those checked; ``earlier_outputs``: the outputs
    before ``base`` by call_id, each a (position, neutral index). ``unsettled`` gets the
    call_ids whose R7 verdict on a call checked here depends on items after ``wire[:limit]``
    (``None``: not asked)."""

    base: int
    limit: int
    has_call: Callable[[str], bool]
    has_output: Callable[[str], bool]
    reasoning: bool
    seen_ids: set[str] = field(default_factory=set)
    first_output: dict[str, tuple[int, int]] = field(default_factory=dict)
    earlier_outputs: Mapping[str, list[tuple[int, int]]] = field(default_factory=dict)
    unsettled: set[str] | None = None


def scan(
    provider: str, messages: Sequence[Message], wire: list[Item], facts: Facts, strict: bool
) -> tuple[list[Violation], bool]:
    """The problems of the items ``wire[:facts.limit]`` (all of a history's, or those of its
    messages from one that is not a tool message on), rule by rule, not yet in :func:`order`;
    and whether an assistant message among them would have R6 were a reasoning item with an id
    anywhere in the input."""
    out = _Out(provider)
    checked = wire[: facts.limit] if facts.limit < len(wire) else wire
    _pairing(out, checked, facts)
    _item_ids(out, checked, facts)
    candidate = _reasoning(out, checked, facts, messages)
    if strict:
        _adjacent(out, wire, facts)
        _single_output(out, checked, facts)
    return out.found, candidate


def _pairing(out: _Out, wire: list[Item], facts: Facts) -> None:
    """R8, R4, R1 and R2: every call and output has a call_id of at most 64 characters, and a partner."""
    base = facts.base
    for k, it in enumerate(wire):
        if it.type not in _PAIRED:
            continue
        n = base + k
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
        elif it.type == "function_call" and not facts.has_output(it.call_id):
            out.add("R1", it.source, n, f"call {it.call_id} has no function_call_output", True, it.call_id)
        elif it.type == "function_call_output" and not facts.has_call(it.call_id):
            out.add("R2", it.source, n, f"output for {it.call_id} answers no function_call", True, it.call_id)


def _item_ids(out: _Out, wire: list[Item], facts: Facts) -> None:
    """R3 and R5: item ids are unique and carry the prefix of their type."""
    seen_ids = facts.seen_ids
    for k, it in enumerate(wire):
        if it.item_id is None:
            continue
        n = facts.base + k
        if it.item_id in seen_ids:
            out.add("R3", it.source, n, f"item id {it.item_id} is used twice", False, id=it.item_id)
        seen_ids.add(it.item_id)
        prefix = _PREFIX.get(it.type)
        if prefix and not it.item_id.startswith(prefix):
            out.add("R5", it.source, n, f"a {it.type} item with id {it.item_id}", False, id=it.item_id, prefix=prefix)


def _reasoning(out: _Out, wire: list[Item], facts: Facts, messages: Sequence[Message]) -> bool:
    """R6 (continuedev/continue#10018, #8933): reasoning items and the item that follows them.
    Returns whether a call with an id but no reasoning item is among them (R6 were
    ``facts.reasoning`` true)."""
    reasoning_elsewhere = facts.reasoning
    candidate = False
    last_reasoning: dict[int, int] = {}  # an assistant message's last reasoning item
    first_call: dict[int, int] = {}  # its first call with an item id
    for k, it in enumerate(wire):
        kind = it.type
        if kind == "reasoning":
            last_reasoning[it.source] = k
        elif kind == "function_call" and it.item_id and it.source not in first_call:
            first_call[it.source] = k
    # the messages whose items are all reasoning items
    only = set(last_reasoning).difference(it.source for it in wire if it.type != "reasoning") if last_reasoning else ()
    base = facts.base
    for source, k in last_reasoning.items():
        last = wire[k]
        if source in only and last.item_id and messages[source].role == "assistant":
            out.add(
                "R6",
                source,
                base + k,
                "a reasoning item with nothing after it from the same response",
                False,
                text=1,
                id=last.item_id,
            )
    for source, k in first_call.items():
        if source in last_reasoning or messages[source].role != "assistant":
            continue
        candidate = True
        if not reasoning_elsewhere:
            break
        it = wire[k]
        out.add(
            "R6",
            source,
            base + k,
            f"function_call {it.item_id} came with a reasoning item that is not in this input",
            False,
            it.call_id,
            id=it.item_id,
        )
    return candidate


def _describe(it: Item) -> str:
    if it.type == "message":
        return "a message item"
    if it.type == "reasoning":
        return "a reasoning item"
    return "an item"


def _adjacent(out: _Out, wire: list[Item], facts: Facts) -> None:
    """R7 (deepseek-ai/awesome-deepseek-integration#740; kolega-ai/kolega-code#403): nothing but
    calls and outputs between a call and its output. One problem per turn, at its first call
    that has one; a call with no output at all is R1's. The calls are those of
    ``wire[:facts.limit]``; their outputs may come later in ``wire`` or before it."""
    base, limit, unsettled = facts.base, facts.limit, facts.unsettled
    outputs: dict[str, list[tuple[int, int]]] = {}
    for k, it in enumerate(wire):
        if it.type == "function_call_output" and it.call_id:
            found = outputs.get(it.call_id)
            if found is None:
                found = outputs[it.call_id] = list(facts.earlier_outputs.get(it.call_id, ()))
            found.append((base + k, it.source))
    # others[k]: how many items before position base + k are neither a call nor an output.
    others = [0] * (len(wire) + 1)
    last_call: dict[int, int] = {}
    for k, it in enumerate(wire):
        others[k + 1] = others[k] + (it.type not in _PAIRED)
        if it.type == "function_call":
            last_call[it.source] = k
    reported: set[int] = set()
    for k in range(min(limit, len(wire))):
        it = wire[k]
        if it.type != "function_call" or not it.call_id or it.source in reported:
            continue
        c = base + k
        found = outputs.get(it.call_id) or list(facts.earlier_outputs.get(it.call_id, ()))
        after = bisect_right(found, c, key=_position)
        if unsettled is not None and (after == len(found) or found[after][0] >= base + limit):
            unsettled.add(it.call_id)  # an output still to come, or one after these items, decides
        if not found:
            continue
        remedy = ""
        if after == len(found):
            problem = f"the output for {it.call_id} comes before its call"
            fixed = True
            related: tuple[int, ...] = (found[-1][1],)
            remedy = OUTPUT_BEFORE_CALL  # (a note and an interrupted output: nothing is moved)
        else:
            o = found[after][0] - base
            if others[o] == others[k + 1]:
                continue
            between = [j for j in range(k + 1, o) if wire[j].type not in _PAIRED]
            first = wire[between[0]]
            problem = (
                f"{_describe(first)} (input[{base + between[0]}]) stands between call {it.call_id} (input[{c}]) "
                f"and its output (input[{base + o}])"
            )
            # The repair moves outputs up to their turn's last call; items between two calls stay.
            fixed = not any(wire[j].source == it.source and j < last_call[it.source] for j in between)
            related = (first.source, wire[o].source) if first.source != it.source else (wire[o].source,)
        out.add("R7", it.source, c, problem, fixed, it.call_id, related, remedy=remedy)
        reported.add(it.source)


def _position(output: tuple[int, int]) -> int:
    return output[0]


def _single_output(out: _Out, wire: list[Item], facts: Facts) -> None:
    """R9 (NousResearch/hermes-agent#102629): one output per call_id in the whole input."""
    first = facts.first_output
    for k, it in enumerate(wire):
        if it.type != "function_call_output" or not it.call_id:
            continue
        n = facts.base + k
        earlier = first.get(it.call_id)
        if earlier is None:
            first[it.call_id] = (n, it.source)
            continue
        out.add(
            "R9",
            it.source,
            n,
            f"a second output for call_id {it.call_id} (the first is input[{earlier[0]}])",
            True,
            it.call_id,
            (earlier[1],),
        )
