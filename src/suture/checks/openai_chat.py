"""OpenAI Chat Completions: rules O1-O8 of the rule table.

One wire message per neutral message (``messages[N]`` is the neutral index). Duplicate results
are checked across the whole request (agno-agi/agno#5116).
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks._base import Violation, id_list, unsent, violation
from suture.checks._chat import Pairing, pairing
from suture.checks._wire import Shapes
from suture.model import ImagePart, Message
from suture.words import with_article

NAME = "openai-chat"
TITLE = "OpenAI Chat Completions"

# O5: vercel/ai#5171 quotes the limit.
MAX_ID = 40


def _v(
    rule: str,
    index: int,
    problem: str,
    fixed: bool,
    where: str,
    call_id: str | None = None,
    related: tuple[int, ...] = (),
    text: int = 0,
    **fields: object,
) -> Violation:
    fields.setdefault("N", index)
    return violation(
        NAME, rule, index, problem, fixed, where, index, call_id=call_id, related=related, text=text, fill=fields
    )


def check(messages: Sequence[Message], shapes: Shapes | None = None) -> list[Violation]:
    """Every OpenAI Chat rule the history breaks, by message index (``shapes``: those of
    ``messages``, where other checks share them)."""
    return scan(messages, 0, len(messages), {}, shapes.pairing() if shapes is not None else None)


def empty(messages: Sequence[Message]) -> list[Violation]:
    """O6: no message at all (a system message alone is a request OpenAI takes)."""
    return unsent(NAME, "O6", "messages", messages)


def scan(
    messages: Sequence[Message], start: int, stop: int, first_result: dict[str, int], paired: Pairing | None = None
) -> list[Violation]:
    """The problems of ``messages[start:stop]`` (``start``: 0 or a message that is not a tool
    message), by message index; ``first_result`` maps a tool_call_id to its first tool message
    before ``start`` and gets those of the range (``suture.checks.resume`` resumes a check so).
    ``paired``: the range's pairing, where it was worked out already."""
    found = (
        _pairing(messages, paired if paired is not None else pairing(messages, start, stop))
        + _ids(messages, start, stop, first_result)
        + _content(messages, start, stop)
    )
    found.sort(key=lambda v: v.index)
    return found


def _pairing(messages: Sequence[Message], p: Pairing) -> list[Violation]:
    """O1 to O3: calls with no tool message right after them, tool messages that answer no call."""
    found: list[Violation] = []
    for a, ids in p.missing.items():
        found.append(
            _v(
                "O1",
                a,
                f"{'call ' + ids[0] + ' has' if len(ids) == 1 else 'calls ' + id_list(ids) + ' have'} no tool "
                "message right after this assistant message",
                True,
                f"messages[{a}]",
                call_id=ids[0],
                ids=id_list(ids),  # sdcb/chats#132: the param names the assistant message
            )
        )
    for i in p.stray:
        found.append(
            _v(
                "O2",
                i,
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
                f"result for {tid} answers no call of the assistant message at [{a}]",
                True,
                f"messages[{i}]",
                call_id=tid,
                related=(a,),
                text=1,
                id=tid,
            )
        )
    for i in p.empty:
        found.append(
            _v(
                "O3",
                i,
                "a tool message without tool_call_id",
                True,
                f"messages[{i}]",
            )
        )
    return found


def _ids(messages: Sequence[Message], start: int, stop: int, first_result: dict[str, int]) -> list[Violation]:
    """O4 and O3, O5 of ids: a second tool message for one id, a call with no id or too long a one."""
    found: list[Violation] = []
    for i in range(start, stop):
        m = messages[i]
        if m.role == "tool" and m.tool_call_id:
            earlier = first_result.get(m.tool_call_id)
            if earlier is None:
                first_result[m.tool_call_id] = i
            else:
                found.append(
                    _v(
                        "O4",
                        i,
                        f"a second tool message for {m.tool_call_id} (the first is at [{earlier}])",
                        True,
                        f"messages[{i}]",
                        call_id=m.tool_call_id,
                        related=(earlier,),
                        id=m.tool_call_id,
                        A=earlier,
                        B=i,
                    )
                )
        for c, call in enumerate(m.tool_calls if m.role == "assistant" else ()):
            where = f"messages[{i}].tool_calls[{c}].id"
            if not call.id:
                found.append(_v("O3", i, f"call {c} has no id", True, where, text=1, C=c))
            elif len(call.id) > MAX_ID:
                found.append(
                    _v(
                        "O5",
                        i,
                        f"call id {call.id} is {len(call.id)} characters, more than {MAX_ID}",
                        False,
                        where,
                        call_id=call.id,
                        C=c,
                        L=len(call.id),
                    )
                )
    return found


# O7: the roles OpenAI writes as they are (another one is written as a user message).
_NOT_USER = frozenset({"system", "developer", "assistant", "tool"})


def _content(messages: Sequence[Message], start: int, stop: int) -> list[Violation]:
    """O7, an image in a message that is not a user message (OpenHands/OpenHands#7700,
    openai/openai-node#1030), and O8, an assistant message whose content is an empty list
    (langchain-ai/langchainjs#11416): where suture writes one, a message with no calls (a
    placeholder, which the repair drops) or a record read with ``content: []``."""
    found: list[Violation] = []
    for i in range(start, stop):
        m = messages[i]
        content = m.content
        if not isinstance(content, list):
            continue
        if m.role in _NOT_USER and any(isinstance(p, ImagePart) for p in content):
            found.append(
                _v(
                    "O7",
                    i,
                    f"an image in {with_article(m.role)} message",
                    False,
                    f"messages[{i}]",
                    role=m.role,
                )
            )
        if (
            m.role == "assistant"
            and not content
            and (not m.tool_calls or (isinstance(m.raw, dict) and m.raw.get("content") == []))
        ):
            found.append(
                _v(
                    "O8",
                    i,
                    "an assistant message whose content is an empty list",
                    not m.tool_calls,
                    f"messages[{i}].content",
                )
            )
    return found
