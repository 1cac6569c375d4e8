"""Amazon Bedrock Converse: rules B1, B2, B3 and B6 of the rule table.

Wire model: ``suture.checks._wire.turns`` with ``merge=True`` (a run of results and user text is
one user message with ``toolResult`` blocks, system prompts go to ``system``). Converse also rejects
a conversation that starts with an assistant message or has two assistant messages in a row
(elastic/kibana#246393). Claude models on Bedrock enforce Anthropic's rules as well: check
``anthropic`` for those.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from suture.checks._base import Violation, id_list, is_placeholder, shown_id
from suture.checks._wire import Turn, turns
from suture.checks.rules import RULES
from suture.model import Message

NAME = "bedrock"
TITLE = "Amazon Bedrock Converse"

# B6: ToolUseBlock.toolUseId, 1-64 characters of [a-zA-Z0-9_-] (AWS Bedrock runtime API reference).
_ID = re.compile(r"[a-zA-Z0-9_-]+")


def _v(
    rule: str,
    index: int,
    error: str,
    problem: str,
    fixed: bool,
    where: str,
    n: int | None,
    m: int | None = None,
    call_id: str | None = None,
    related: tuple[int, ...] = (),
) -> Violation:
    return Violation(NAME, rule, index, error, problem, fixed, RULES[rule].remedy, where, n, m, call_id, related)


def _placeholder_turn(messages: Sequence[Message], turn: Turn) -> bool:
    return turn.role == "assistant" and all(is_placeholder(messages[i]) for i in turn.members)


def check(messages: Sequence[Message]) -> list[Violation]:
    """Every Converse rule the history breaks, in wire order."""
    wire = turns(messages, merge=True)
    found: list[Violation] = []
    call_ids = {c.id for m in messages for c in m.tool_calls}
    if wire and wire[0].role == "assistant":
        rest = [t for t in wire if not _placeholder_turn(messages, t)]
        found.append(
            _v(
                "B3",
                wire[0].members[0],
                "A conversation must start with a user message. Try again with a conversation that starts with a user message.",
                "the conversation starts with an assistant message",
                not rest or rest[0].role == "user",
                "messages.0",
                0,
            )
        )
    for n, turn in enumerate(wire):
        prev = wire[n - 1] if n > 0 else None
        if turn.role == "assistant" and prev is not None and prev.role == "assistant":
            found.append(
                _v(
                    "B3",
                    turn.members[0],
                    "A conversation must alternate between user and assistant roles. Make sure the conversation "
                    "alternates between user and assistant roles and try again.",
                    f"two assistant messages in a row (messages.{n - 1} and messages.{n})",
                    # the repair drops empty ones, and puts results after an assistant message with calls
                    _placeholder_turn(messages, turn)
                    or _placeholder_turn(messages, prev)
                    or bool(prev.ids("tool_use")),
                    f"messages.{n}",
                    n,
                    related=(prev.members[0],),
                )
            )
        for m, b in enumerate(turn.blocks):
            if b.kind not in ("tool_use", "tool_result"):
                continue
            problem = _bad_id(b.id)
            if problem is None:
                continue
            field = "toolUse" if b.kind == "tool_use" else "toolResult"
            # AWS validation messages count list members from 1.
            error = (
                f"Value '{b.id}' at 'messages.{n + 1}.member.content.{m + 1}.member.{field}.toolUseId' failed to "
                f"satisfy constraint: Member must {problem}"
            )
            fixed = b.id == "" or (b.kind == "tool_result" and b.id not in call_ids)
            found.append(
                _v(
                    "B6",
                    b.source,
                    error,
                    f"{'call' if b.kind == 'tool_use' else 'result'} {shown_id(b.id)} has an id Bedrock does not accept",
                    fixed,
                    f"messages.{n}.content.{m}",
                    n,
                    m=m,
                    call_id=b.id,
                )
            )
        if turn.role == "user":
            results = turn.ids("tool_result")
            uses = prev.ids("tool_use") if prev is not None and prev.role == "assistant" else []
            if len(results) > len(uses):
                found.append(
                    _v(
                        "B1",
                        turn.members[0],
                        f"The number of toolResult blocks at messages.{n}.content exceeds the number of toolUse "
                        "blocks of previous turn.",
                        f"{len(results)} results answer {len(uses)} calls of the previous message",
                        True,
                        f"messages.{n}.content",
                        n,
                        related=tuple(prev.members) if prev is not None else (),
                    )
                )
        else:
            uses = turn.ids("tool_use")
            nxt = wire[n + 1] if n + 1 < len(wire) else None
            answered = set(nxt.ids("tool_result")) if nxt is not None and nxt.role == "user" else set()
            missing = [u for u in uses if u and u not in answered]  # an empty id is B6's problem
            if missing:
                found.append(
                    _v(
                        "B2",
                        turn.members[0],
                        f"Expected toolResult blocks at messages.{n + 1}.content for the following Ids: {id_list(missing)}",
                        f"{'call ' + missing[0] + ' has' if len(missing) == 1 else 'calls ' + id_list(missing) + ' have'} "
                        "no result in the next message",
                        True,
                        f"messages.{n + 1}.content",
                        n + 1,
                        call_id=missing[0],
                        related=tuple(nxt.members) if nxt is not None else (),
                    )
                )
    return found


def _bad_id(call_id: str) -> str | None:
    if not call_id:
        return "have length greater than or equal to 1"
    if len(call_id) > 64:
        return "have length less than or equal to 64"
    if not _ID.fullmatch(call_id):
        return "satisfy regular expression pattern: [a-zA-Z0-9_-]+"
    return None
