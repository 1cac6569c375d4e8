"""Codex's resume step, as the Codex releases in ``MEASURED`` (0.169.0, 0.171.0) do it.

Measured on the rollouts the real Codex wrote and the requests it sent
(``sample_sessions/recorded/codex-*``); the same as codex-rs ``normalize`` of the history. From
the history as written (``suture.formats.codex``: the response items of lines that have a
timestamp, in file order):

- a call (``function_call``, ``custom_tool_call``, ``local_shell_call``) with no output anywhere
  gets ``{"type": "function_call_output", "call_id": …, "output": "aborted"}`` (a
  ``custom_tool_call_output`` for a custom tool call) right after it, in the request only;
- an output whose ``call_id`` no call has is left out;
- everything else is sent as written, in order: an item between a call and its output, an output
  before its call, two outputs for one call (a strict server rejects them: rule R7);
- Codex's own bookkeeping key ``internal_chat_message_metadata_passthrough`` is not sent.

When it sends, Codex puts its instructions first, as a developer message the rollout does not
hold (:data:`ADDED`), so ``input[N]`` is one more than the place in ``wire``.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from typing import Any

from suture.formats.responses import item_kind
from suture.model import Message, Transcript
from suture.sent import Added, Built, Fix, Pieces
from suture.sent.kept import Resumed, Whole

__all__ = ["ABORTED", "ADDED", "MEASURED", "MODEL", "Grown", "build"]

MEASURED = ("0.169.0", "0.171.0")
"""The Codex versions recorded resuming every crash shape of the corpus (``sample_sessions/recorded``),
each sending what this module says: a file one of them wrote is modelled as its own version."""
MODEL = MEASURED[-1]
"""The Codex version whose resume is assumed for a file another version wrote."""
ADDED = (Added(0, "developer", "Codex's instructions (a developer message)", parts=True, item=True),)
"""What Codex puts into every request it sends that the rollout does not hold (seen in
every request of the recorded corpus)."""
ABORTED = "aborted"
_INTERNAL = frozenset({"internal_chat_message_metadata_passthrough"})


def _call_id(item: dict[str, Any]) -> Any:
    return item.get("call_id", item.get("id"))


@dataclass(slots=True)
class Before:
    """What a build of the items after a cut needs of those before it: the ids of their calls
    and of their outputs (Codex looks both up in the whole history)."""

    calls: set[Any] = field(default_factory=set)
    answered: set[Any] = field(default_factory=set)


def _items(messages: Sequence[Message], start: int) -> list[tuple[dict[str, Any], int]]:
    """The items of the messages from ``start`` on, each with the message it is in."""
    items: list[tuple[dict[str, Any], int]] = []
    for i in range(start, len(messages)):
        raw = messages[i].raw
        for item in raw if isinstance(raw, list) else [raw]:
            if isinstance(item, dict):
                items.append((item, i))
    return items


def _ids(items: list[tuple[dict[str, Any], int]]) -> tuple[set[Any], set[Any]]:
    """The ids of the calls and of the outputs among some items."""
    calls = {_call_id(item) for item, _ in items if item_kind(item) == "call"}
    answered = {item.get("call_id") for item, _ in items if item_kind(item) == "result"}
    return calls, answered


def build(transcript: Transcript) -> Built:
    """The Responses ``input`` Codex builds from this as-written rollout on resume."""
    items = _items(transcript.messages, 0)
    calls, answered = _ids(items)
    return _built(transcript, items, calls, answered)


def _built(
    transcript: Transcript, items: list[tuple[dict[str, Any], int]], calls: Container[Any], answered: Container[Any]
) -> Built:
    """What Codex sends of ``items``, where ``calls`` and ``answered`` are the ids of the calls and
    the outputs of the whole history."""
    built = Built([], "responses", "openai-responses", MODEL, [], {}, added=ADDED)
    messages = transcript.messages

    def where(i: int) -> str:
        source = messages[i].source
        return f" ({source})" if source is not None else ""

    for item, i in items:
        kind = item_kind(item)
        if kind == "result" and item.get("call_id") not in calls:
            call_id = item.get("call_id")
            built.fixes.append(
                Fix(
                    "dropped_result",
                    f"Codex leaves out the output for {call_id or '(no id)'}{where(i)}: no call has that id",
                    i,
                    messages[i].source,
                    str(call_id) if call_id is not None else None,
                )
            )
            continue
        sent = {k: v for k, v in item.items() if k not in _INTERNAL} if _INTERNAL & item.keys() else item
        built.wire.append(built.mark(sent, i))
        if kind == "call" and _call_id(item) not in answered:
            call_id = _call_id(item)
            output = "custom_tool_call_output" if item.get("type") == "custom_tool_call" else "function_call_output"
            built.wire.append(built.mark({"type": output, "call_id": call_id, "output": ABORTED}, i))
            built.fixes.append(
                Fix(
                    "inserted_result",
                    f'Codex answers call {call_id or "(no id)"}{where(i)} with the output "{ABORTED}", right after it',
                    i,
                    messages[i].source,
                    str(call_id) if call_id is not None else None,
                )
            )
    return built


_RUN = ("assistant", "call")
"""The kinds of the items a Responses history reads as one message while they follow each other."""


class Grown(Resumed):
    """What Codex sends on resume, for a rollout that grows (:class:`suture.sent.kept.Resumed`).

    The cut is a message that is not the model's (a user message, an output Codex sends): the
    items before it are sent as they were, but for what Codex looks up in the whole history,
    which is carried over the cut (the ids of its calls and outputs) or checked: a call before the
    cut that no output before it answers gets the output "aborted", and an output before it that
    no call before it has is left out, as the items after the cut say; the build starts again
    from the first item wherever they now say otherwise."""

    def _fresh(self) -> None:
        super()._fresh()
        self.before = Before()
        self.pending: set[Any] = set()
        """Calls before the cut that no output before it answers."""
        self.orphans: set[Any] = set()
        """Ids of outputs before the cut that no call before it has."""
        self.seen_after: tuple[set[Any], set[Any]] = (set(), set())
        """Which of those the items after the cut answered or called at the last build."""
        self.items: list[tuple[dict[str, Any], int]] = []

    def _build(self, transcript: Transcript) -> tuple[Built, list[int]]:
        items = _items(transcript.messages, self.cut)
        calls, answered = _ids(items)
        seen = ({key for key in answered if key in self.pending}, {key for key in calls if key in self.orphans})
        if seen != self.seen_after:
            raise Whole  # a call before the cut is answered after it now, or no longer (or an output's call)
        from suture.checks.resume import LayerSet

        # The ids of the whole history: those before the cut, not copied, and these.
        all_calls, all_answered = LayerSet(self.before.calls), LayerSet(self.before.answered)
        all_calls |= calls
        all_answered |= answered
        built = _built(transcript, items, all_calls, all_answered)
        if self.wire and built.wire and item_kind(self.wire[-1]) in _RUN and item_kind(built.wire[0]) in _RUN:
            raise Whole  # the model's items on both sides of the cut are read as one message
        self.items = items
        return built, [len(built.fixes)]

    def _move(self, transcript: Transcript, built: Built, passes: list[int], found: Pieces, first: int) -> None:
        """Move the cut to the last message but one that is not the model's and whose items Codex
        sends, keeping what the build made of the items before it."""
        items, self.items = self.items, []
        messages = transcript.messages
        places: dict[int, int] = {}  # the first wire place of each message the build sends
        for k, value in enumerate(built.wire):
            i = built.origin_of.get(id(value))
            if i is not None and i not in places:
                places[i] = k
        cuts = [
            i
            for i in places
            if messages[i].role != "assistant" and item_kind(built.wire[places[i]]) not in _RUN and i > self.cut
        ]
        if len(cuts) < 2:
            return
        cut = cuts[-2]
        if not self._keep(built, passes, found, first, places[cut], cut):
            return
        piece = [(item, i) for item, i in items if i < cut]
        calls, answered = _ids(piece)
        later_calls, later_answered = _ids([(item, i) for item, i in items if i >= cut])
        self.before.calls |= calls
        self.before.answered |= answered
        self.pending = {key for key in self.pending | calls if key not in self.before.answered}
        self.orphans = {key for key in self.orphans | answered if key not in self.before.calls}
        self.seen_after = (
            {key for key in later_answered if key in self.pending},
            {key for key in later_calls if key in self.orphans},
        )
