"""What every provider checker shares: the violation record, the one way to make one
(:func:`violation`), and small helpers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from suture.checks.rules import RULES
from suture.model import Message, ThinkingPart

__all__ = [
    "LIST",
    "Violation",
    "has_thinking",
    "id_list",
    "shown_id",
    "unsent",
    "violation",
]

LIST = -1
"""The ``index`` of a problem about the request's list of messages itself, not about any one
message of it: a request with no message to send (Anthropic A14, OpenAI O6, Gemini G6, Mistral
M6). Its ``where`` names the list (``messages``, ``contents``); in JSON its ``index`` is ``null``."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One reason a provider would answer 400, located in the neutral history.

    ``index`` is the neutral message it is about (a position in ``Transcript.messages``, or in
    ``Repair.messages`` for a repaired history); ``related`` names other neutral messages the
    provider's text mentions (the first of two duplicates, the results of a call). ``where`` is the
    place in the provider's own request the error points at (``messages.3.content.1``,
    ``messages[4]``, ``input[7]``, ``contents[2]``), with ``wire_index`` and ``block`` its numbers
    in the provider's indexing (``None`` where the provider has no such number). ``error`` is the
    text the provider would send, filled with the real ids and indices.

    ``index`` is :data:`LIST` (``-1``) for a problem of the whole list: no message to send.

    ``fixed`` says whether suture's repair is meant to remove this problem (a rule of docs/contract.md); when it
    is not, ``remedy`` says what a person must do instead (when it is, what the repair does).
    """

    provider: str
    rule: str
    index: int
    error: str
    problem: str
    fixed: bool
    remedy: str
    where: str = ""
    wire_index: int | None = None
    block: int | None = None
    call_id: str | None = None
    related: tuple[int, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "rule": self.rule,
            "index": None if self.index == LIST else self.index,
            "where": self.where,
            "wire_index": self.wire_index,
            "block": self.block,
            "call_id": self.call_id,
            "related": list(self.related),
            "problem": self.problem,
            "error": self.error,
            "fixed_by_repair": self.fixed,
            "remedy": self.remedy,
        }


def violation(
    provider: str,
    rule: str,
    index: int,
    problem: str,
    fixed: bool,
    where: str,
    wire_index: int | None,
    block: int | None = None,
    *,
    call_id: str | None = None,
    related: tuple[int, ...] = (),
    remedy: str = "",
    text: int = 0,
    fill: Mapping[str, object] | None = None,
) -> Violation:
    """A problem of ``rule`` (an id of ``RULES``) at neutral message ``index``.

    Its ``error`` is the rule's text ``errors[text]`` with the fields of ``fill`` (and ``call_id``)
    filled in, so a provider's words are written once, in the rule table; its ``remedy`` is the
    rule's unless one is given. ``where``, ``wire_index`` and ``block`` point into the provider's
    own request."""
    r = RULES[rule]
    fields = dict(fill or {})
    if call_id is not None:
        fields.setdefault("call_id", call_id)
    error = r.text(text, **fields)
    return Violation(
        provider, rule, index, error, problem, fixed, remedy or r.remedy, where, wire_index, block, call_id, related
    )


def unsent(
    provider: str, rule: str, where: str, messages: Sequence[Message], lifted: frozenset[str] = frozenset()
) -> list[Violation]:
    """``rule``'s problem where the request ``provider`` is sent has nothing in its list ``where``:
    no message of ``messages`` but those of a role in ``lifted`` (which the provider takes apart
    from the list, as Anthropic takes system prompts into ``system``). A problem of the list itself
    (index :data:`LIST`), which the repair cannot fix: it adds no message."""
    if any(m.role not in lifted for m in messages):
        return []
    problem = f"the request's {where} list is empty: there is no message to send" + (
        f" (the file holds only system prompts, which go apart from {where})" if messages else ""
    )
    return [violation(provider, rule, LIST, problem, False, where, None)]


def has_thinking(message: Message) -> bool:
    content = message.content
    return isinstance(content, list) and any(isinstance(p, ThinkingPart) for p in content)


def id_list(ids: Iterable[str]) -> str:
    """Ids as providers list them: comma and space."""
    return ", ".join(ids)


def shown_id(call_id: str) -> str:
    return call_id if call_id else "(no id)"
