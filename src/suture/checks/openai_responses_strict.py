"""Strict OpenAI Responses servers: OpenAI's rules, and R7 and R9 of the rule table.

OpenAI pairs a ``function_call_output`` with its call by ``call_id`` anywhere later in the input
and does not reject a second output for a call. Servers that speak the Responses API more strictly
(DeepSeek's Responses endpoint, gateways in front of other providers) answer 400 when a message,
reasoning or other item stands between a turn's calls and their outputs (R7), and when a call_id
has two outputs (R9). Check for this profile when a session will be resumed against such a server.
"""

from __future__ import annotations

from collections.abc import Sequence

from suture.checks import openai_responses
from suture.checks._base import Violation
from suture.checks._wire import Shapes
from suture.model import Message

NAME = "openai-responses-strict"
TITLE = "Responses API, strict servers: DeepSeek and gateways"
STRICTER_THAN = "openai-responses"
"""The provider whose rules these add to: a history it accepts may still be rejected here."""


def check(messages: Sequence[Message], shapes: Shapes | None = None, *, repaired: bool = False) -> list[Violation]:
    """Every rule a strict Responses server enforces that the history breaks (``shapes``: those of
    ``messages``, where other checks share them)."""
    return openai_responses.check_as(NAME, messages, strict=True, repaired=repaired, shapes=shapes)
