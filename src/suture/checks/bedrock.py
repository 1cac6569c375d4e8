"""Amazon Bedrock Converse: rules B1, B2, B3 and B6 of the rule table.

Wire model: ``suture.checks._wire.turns`` with ``merge=True`` (a run of results and user text is
one user message with ``toolResult`` blocks, system prompts go to ``system``). Converse also rejects
a conversation that starts with an assistant message or has two assistant messages in a row
(elastic/kibana#246393). Claude models on Bedrock enforce Anthropic's rules as well: check
``anthropic`` for those.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from suture.checks._base import Violation, id_list, shown_id, violation
from suture.checks._wire import Shapes, Turn
from suture.model import Message, is_placeholder
from suture.words import count

NAME = "bedrock"
TITLE = "Amazon Bedrock Converse"

# B6: ToolUseBlock.toolUseId, 1-64 characters of [a-zA-Z0-9_-] (AWS Bedrock runtime API reference).
_ID = re.compile(r"[a-zA-Z0-9_-]+")


def _v(
    rule: str,
    index: int,
    problem: str,
    fixed: bool,
    where: str,
    n: int | None,
    m: int | None = None,
    call_id: str | None = None,
    related: tuple[int, ...] = (),
    text: int = 0,
    **fields: object,
) -> Violation:
    return violation(
        NAME, rule, index, problem, fixed, where, n, m, call_id=call_id, related=related, text=text, fill=fields
    )


def _placeholder_turn(messages: Sequence[Message], turn: Turn) -> bool:
    return turn.role == "assistant" and all(is_placeholder(messages[i]) for i in turn.members)


def check(messages: Sequence[Message], shapes: Shapes | None = None) -> list[Violation]:
    """Every Converse rule the history breaks, in wire order (``shapes``: those of ``messages``,
    where other checks share them)."""
    shapes = Shapes(messages) if shapes is None else shapes
    wire = shapes.turns(merge=True)
    found: list[Violation] = []
    if wire and wire[0].role == "assistant":
        found.append(opening(wire[0], first_kept(messages, wire)))
    found.extend(scan(messages, wire, 0, None, shapes.call_ids().__contains__))
    return found


def opening(first: Turn, kept: Turn | None) -> Violation:
    """B3 of a conversation whose first wire message ``first`` is an assistant message; ``kept``
    its first wire message that is not an empty assistant message (``None``: none is)."""
    return _v(
        "B3",
        first.members[0],
        "the conversation starts with an assistant message",
        kept is None or kept.role == "user",
        "messages.0",
        0,
    )


def first_kept(messages: Sequence[Message], wire: list[Turn]) -> Turn | None:
    """The first of ``wire`` that is not an empty assistant message."""
    return next((t for t in wire if not _placeholder_turn(messages, t)), None)


def scan(
    messages: Sequence[Message], wire: list[Turn], base: int, prev: Turn | None, has_call: Callable[[str], bool]
) -> list[Violation]:
    """B1, B2, B3 (two assistant messages in a row) and B6 of the wire messages ``wire``,
    numbered from ``base``: all of a history's, or those of its messages from an assistant
    message on (``prev`` the wire message before them). ``has_call(id)``: whether a call of the
    history has that id. In wire order."""
    found: list[Violation] = []
    for k, turn in enumerate(wire):
        n = base + k
        if k:
            prev = wire[k - 1]
        if turn.role == "assistant" and prev is not None and prev.role == "assistant":
            found.append(
                _v(
                    "B3",
                    turn.members[0],
                    f"two assistant messages in a row (messages.{n - 1} and messages.{n})",
                    # the repair drops empty ones, and puts results after an assistant message with calls
                    _placeholder_turn(messages, turn)
                    or _placeholder_turn(messages, prev)
                    or bool(prev.ids("tool_use")),
                    f"messages.{n}",
                    n,
                    related=(prev.members[0],),
                    text=1,
                )
            )
        found.extend(_bad_ids(turn, n, has_call))
        nxt = wire[k + 1] if k + 1 < len(wire) else None
        found.extend(_results(turn, n, prev) if turn.role == "user" else _calls(turn, n, nxt))
    return found


def _bad_ids(turn: Turn, n: int, has_call: Callable[[str], bool]) -> list[Violation]:
    """B6: the calls and results of wire message ``n`` whose id Bedrock does not accept."""
    found = []
    for m, b in enumerate(turn.blocks):
        if b.kind not in ("tool_use", "tool_result"):
            continue
        broken = _bad_id(b.id)
        if broken is None:
            continue
        fixed = b.id == "" or (b.kind == "tool_result" and not has_call(b.id))
        found.append(
            _v(
                "B6",
                b.source,
                f"{'call' if b.kind == 'tool_use' else 'result'} {shown_id(b.id)} has an id Bedrock does not accept",
                fixed,
                f"messages.{n}.content.{m}",
                n,
                m=m,
                call_id=b.id,
                text=broken,
                # AWS validation messages count list members from 1.
                N=n + 1,
                M=m + 1,
                F="toolUse" if b.kind == "tool_use" else "toolResult",
                id=b.id,
            )
        )
    return found


def _results(turn: Turn, n: int, prev: Turn | None) -> list[Violation]:
    """B1: the user message ``n`` has more results than the message before it (``prev``) has calls."""
    results = turn.ids("tool_result")
    uses = prev.ids("tool_use") if prev is not None and prev.role == "assistant" else []
    if len(results) <= len(uses):
        return []
    return [
        _v(
            "B1",
            turn.members[0],
            f"{count(len(results), 'result')} answer{'s' if len(results) == 1 else ''} "
            f"{count(len(uses), 'call')} of the previous message",
            True,
            f"messages.{n}.content",
            n,
            related=tuple(prev.members) if prev is not None else (),
            N=n,
        )
    ]


def _calls(turn: Turn, n: int, nxt: Turn | None) -> list[Violation]:
    """B2: calls of the assistant message ``n`` with no result in the next message (``nxt``)."""
    uses = turn.ids("tool_use")
    answered = set(nxt.ids("tool_result")) if nxt is not None and nxt.role == "user" else set()
    missing = [u for u in uses if u and u not in answered]  # an empty id is B6's problem
    if not missing:
        return []
    return [
        _v(
            "B2",
            turn.members[0],
            f"{'call ' + missing[0] + ' has' if len(missing) == 1 else 'calls ' + id_list(missing) + ' have'} "
            "no result in the next message",
            True,
            f"messages.{n + 1}.content",
            n + 1,
            call_id=missing[0],
            related=tuple(nxt.members) if nxt is not None else (),
            N=n + 1,
            ids=id_list(missing),
        )
    ]


def _bad_id(call_id: str) -> int | None:
    """Which of B6's texts a bad id gets (``None`` for a good one): the pattern, too short, too long."""
    if not call_id:
        return 1
    if len(call_id) > 64:
        return 2
    if not _ID.fullmatch(call_id):
        return 0
    return None
