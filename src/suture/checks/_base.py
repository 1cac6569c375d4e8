"""What every provider checker shares: the violation record and small helpers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from suture.model import Message, TextPart, ThinkingPart

__all__ = [
    "Violation",
    "has_thinking",
    "id_list",
    "is_placeholder",
    "shown_id",
]


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
            "index": self.index,
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


def is_placeholder(message: Message) -> bool:
    """Contract rule 1 (docs/contract.md): an assistant message with no calls whose content is only whitespace.

    The repair drops these; a checker uses it to say whether the repair removes a problem."""
    if message.role != "assistant" or message.tool_calls:
        return False
    content = message.content
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    return all(type(part) is TextPart and not part.text.strip() for part in content)


def has_thinking(message: Message) -> bool:
    content = message.content
    return isinstance(content, list) and any(isinstance(p, ThinkingPart) for p in content)


def id_list(ids: Iterable[str]) -> str:
    """Ids as providers list them: comma and space."""
    return ", ".join(ids)


def shown_id(call_id: str) -> str:
    return call_id if call_id else "(no id)"
