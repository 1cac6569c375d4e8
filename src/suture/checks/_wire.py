"""How each provider's request groups neutral messages, so a check can speak in its indices.

Neutral messages (``suture.model``) are one record per role change: an assistant message with
calls, one ``tool`` message per result, a ``user`` message per steer. Providers group them
differently on the wire:

- **turns** (Anthropic Messages, Bedrock Converse): ``system`` and ``developer`` messages leave the
  list (a top-level system prompt is not a message); every assistant message is one wire message.
  For Anthropic, as suture's ``messages`` format writes it, a run of results is one ``user`` wire
  message of ``tool_result`` blocks, joined by the user message right after it (when it has
  content); every other user message is a wire message of its own, but for a user message whose
  text comes before its results in one message of the file (read as two neutral messages): the
  file sends them as one, so they stay one. Anthropic merges consecutive
  user messages when it reads them, so its checks look at such a run as one (``Turn.run``).
  For Bedrock Converse, which rejects two user messages in a row, every run of non-assistant
  messages is one user message (``merge=True``), as Converse clients send it.
  ``messages.N`` counts these wire messages.
- **contents** (Gemini): system messages leave for ``systemInstruction``; an assistant message is a
  ``model`` content; a run of results is one function-response content; every other message is its
  own ``user`` content. ``contents[N]`` counts these.
- **items** (OpenAI Responses): a user or system message is one ``message`` item; an assistant
  message is its reasoning items (one per thinking part), then a ``message`` item when it has
  text, then one ``function_call`` per call; a result is a ``function_call_output``. ``input[N]``
  counts these items. An assistant message read from Responses items is those items, in the
  file's order; in a repaired history (``repaired=True``) the items after its last call come after
  the outputs that follow it, as ``suture.formats.responses`` writes a turn.
- Chat-style providers (OpenAI Chat, Mistral, Kimi, DeepSeek) send one message per neutral
  message: ``messages[N]`` is the neutral index.

None of this reads a file format: it is how suture writes each provider's request, so the
indices match a request suture exports and the ones a provider reports for a request laid out
the same way.

:class:`Shapes` holds these shapes of one list of messages, each built once for every check that
reads it (the blocks of each message serve the turns, the merged turns and the contents alike).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from suture.checks._chat import Pairing, pairing
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart

__all__ = ["Block", "Item", "Shapes", "Turn", "contents", "items", "message_blocks", "run_ends", "run_of", "turns"]

T = TypeVar("T")

LIFTED_ROLES = frozenset({"system", "developer"})


@dataclass(slots=True)
class Block:
    """One content block of a wire message.

    ``kind`` is ``text``, ``image``, ``thinking``, ``tool_use``, ``tool_result`` or ``other``
    (``other_kind`` then names the part's own type). ``source`` is the neutral message it came
    from; ``part`` its index in that message's content (or, for ``tool_use``, in its calls).
    """

    kind: str
    source: int
    part: int | None = None
    text: str = ""
    id: str = ""
    name: str | None = None
    other_kind: str = ""
    raw: Any = None
    signature: str | None = None
    """Thinking only: the neutral part's Anthropic signature."""


@dataclass(slots=True)
class Turn:
    """One wire message: its role, the neutral messages it is made of, and its blocks."""

    role: str
    members: list[int] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    responses: bool = False
    """Gemini only: a function-response content."""
    run: int = 0
    """Consecutive wire messages of one role share a run number."""

    def ids(self, kind: str) -> list[str]:
        return [b.id for b in self.blocks if b.kind == kind]


def content_blocks(message: Message, index: int) -> list[Block]:
    """Blocks of a message's content: an empty string gives none, a list one block per part."""
    content = message.content
    if content is None:
        return []
    if isinstance(content, str):
        return [Block("text", index, None, content)] if content else []
    blocks = []
    for p, part in enumerate(content):
        if isinstance(part, TextPart):
            blocks.append(Block("text", index, p, part.text, raw=part.raw))
        elif isinstance(part, ThinkingPart):
            blocks.append(Block("thinking", index, p, part.text, raw=part.raw, signature=part.signature))
        elif isinstance(part, ImagePart):
            blocks.append(Block("image", index, p, raw=part.raw))
        elif isinstance(part, OtherPart):
            kind = part.kind
            if isinstance(part.raw, dict) and isinstance(part.raw.get("type"), str):
                kind = part.raw["type"]
            blocks.append(Block("other", index, p, other_kind=kind, raw=part.raw))
    return blocks


def _raw_block_order(message: Message) -> list[str] | None:
    """The order of an assistant record's blocks, where its record lists them with ``tool_use``
    blocks among the others (an Anthropic-shaped record), and it agrees with the neutral message."""
    raw = message.raw
    if not isinstance(raw, dict):
        return None
    blocks = raw.get("content")
    if not isinstance(blocks, list):
        return None
    kinds = ["call" if isinstance(b, dict) and b.get("type") == "tool_use" else "part" for b in blocks]
    content = message.content
    parts = len(content) if isinstance(content, list) else (1 if content else 0)
    if kinds.count("call") != len(message.tool_calls) or kinds.count("part") != parts:
        return None
    return kinds


def assistant_blocks(message: Message, index: int) -> list[Block]:
    """Content parts, then one ``tool_use`` block per call, unless the record says another order."""
    parts = content_blocks(message, index)
    calls = [
        Block("tool_use", index, c, id=call.id, name=call.name, raw=call.raw)
        for c, call in enumerate(message.tool_calls)
    ]
    order = _raw_block_order(message)
    if order is None or len(parts) != order.count("part"):
        return parts + calls
    out: list[Block] = []
    pi = ci = 0
    for kind in order:
        if kind == "call":
            out.append(calls[ci])
            ci += 1
        else:
            out.append(parts[pi])
            pi += 1
    return out


def message_blocks(messages: Sequence[Message], i: int) -> list[Block]:
    """The blocks ``messages[i]`` puts on the wire (in a ``turns`` wire message or a Gemini
    content): an assistant message's content and calls, a result's one ``tool_result`` block,
    another message's content. An assistant message's list is its wire message's own, so no
    wire message adds to it; a user message's list is copied where it starts one."""
    m = messages[i]
    if m.role == "assistant":
        return assistant_blocks(m, i)
    if m.role == "tool":
        return [Block("tool_result", i, None, id=m.tool_call_id, name=m.name, raw=m.raw)]
    return content_blocks(m, i)


class _Blocks:
    """Each message's blocks, made when asked for (a check of one provider reads each once)."""

    __slots__ = ("messages",)

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = messages

    def __getitem__(self, i: int) -> list[Block]:
        return message_blocks(self.messages, i)


def turns(
    messages: Sequence[Message],
    merge: bool = False,
    start: int = 0,
    stop: int | None = None,
    before: Turn | None = None,
    blocks: Sequence[list[Block]] | None = None,
) -> list[Turn]:
    """Wire messages for Anthropic Messages (and, with ``merge``, Bedrock Converse); see the module docstring.

    Of ``messages[start:stop]`` only, where ``start`` is 0 or an assistant message (which starts
    a wire message of its own): ``before`` is then the wire message before it, whose run the
    numbering goes on from. ``blocks``: each message's blocks, where they were made already
    (:meth:`Shapes.blocks`)."""
    out: list[Turn] = []
    of = _Blocks(messages) if blocks is None else blocks
    open_results = False  # the last wire message is a run of results that a user message may join
    for i in range(start, len(messages) if stop is None else stop):
        m = messages[i]
        if m.role in LIFTED_ROLES:
            continue
        if m.role == "assistant":
            out.append(Turn("assistant", [i], of[i]))
            open_results = False
            continue
        last = out[-1] if out and out[-1].role == "user" else None
        if m.role == "tool":
            if last is None or not (merge or open_results or _one_record(messages[last.members[-1]], m)):
                last = Turn("user")
                out.append(last)
            last.members.append(i)
            last.blocks += of[i]
            open_results = True
            continue
        if last is None or not (merge or (open_results and bool(m.content))):
            last = Turn("user")
            out.append(last)
        last.members.append(i)
        last.blocks += of[i]
        open_results = False
    run = before.run if before is not None else 0
    role = before.role if before is not None else None
    for turn in out:
        if role is not None and role != turn.role:
            run += 1
        turn.run = run
        role = turn.role
    return out


def merged(wire: Sequence[Turn]) -> list[Turn]:
    """:func:`turns` with ``merge`` from the wire messages it gives without (of the same
    messages): each run of user wire messages made one. The run numbers stay (a run's role is
    what changes them); a wire message alone in its run is the same one, shared."""
    out: list[Turn] = []
    k, n = 0, len(wire)
    while k < n:
        turn = wire[k]
        end = k + 1
        if turn.role == "user":
            while end < n and wire[end].role == "user":
                end += 1
        if end == k + 1:
            out.append(turn)
        else:
            run = wire[k:end]
            out.append(
                Turn("user", [i for t in run for i in t.members], [b for t in run for b in t.blocks], run=turn.run)
            )
        k = end
    return out


def _one_record(before: Message, result: Message) -> bool:
    """Whether a result was read from the same message of the file as the user message before it
    (a user message whose text comes before its results): the file sends them as one wire message,
    and the provider's ``messages.N`` counts it once. The same JSONL line, or the same message of
    a JSON document (``$[2]`` and ``$[2].content[1]``)."""
    a, b = before.source, result.source
    if a is None or b is None:
        return False
    if a.line is not None or b.line is not None:
        return a.line == b.line
    head = (b.pointer or "").partition(".content[")[0]
    return bool(head) and (a.pointer or "").partition(".content[")[0] == head


def run_of(wire: Sequence[Turn], n: int, ends: Sequence[int] | None = None) -> list[Turn]:
    """The wire messages of ``wire[n]``'s run, from ``n`` on (``ends`` from :func:`run_ends`
    saves walking the run)."""
    if ends is not None:
        return list(wire[n : ends[n]])
    found = []
    run = wire[n].run
    for k in range(n, len(wire)):
        if wire[k].run != run:
            break
        found.append(wire[k])
    return found


def run_ends(wire: Sequence[Turn]) -> list[int]:
    """For each wire message, the index just past the last wire message of its run."""
    ends = [0] * len(wire)
    end = len(wire)
    for n in range(len(wire) - 1, -1, -1):
        if n + 1 < len(wire) and wire[n + 1].run != wire[n].run:
            end = n + 1
        ends[n] = end
    return ends


def contents(
    messages: Sequence[Message], start: int = 0, stop: int | None = None, blocks: Sequence[list[Block]] | None = None
) -> list[Turn]:
    """Gemini ``contents`` (see the module docstring); roles are ``user`` and ``model``. Of
    ``messages[start:stop]`` only, where ``start`` is 0 or an assistant message. ``blocks``: as
    :func:`turns` takes them."""
    out: list[Turn] = []
    of = _Blocks(messages) if blocks is None else blocks
    for i in range(start, len(messages) if stop is None else stop):
        m = messages[i]
        if m.role in LIFTED_ROLES:
            continue
        if m.role == "assistant":
            out.append(Turn("model", [i], of[i]))
        elif out and out[-1].role == "user" and _one_content(messages[out[-1].members[-1]], m):
            # Read from the content the one before was read from (results and text in one
            # content): written back into it, so it is that content here too.
            out[-1].members.append(i)
            if m.role == "tool":
                out[-1].responses = True
            out[-1].blocks += of[i]
        elif m.role == "tool":
            if not out or not out[-1].responses:
                out.append(Turn("user", responses=True))
            out[-1].members.append(i)
            out[-1].blocks += of[i]
        else:
            out.append(Turn("user", [i], list(of[i])))  # (a list of its own: a later message may join it)
    return out


def _one_content(before: Message, m: Message) -> bool:
    """Whether ``m`` was read from the same Gemini content as ``before`` (``suture.formats.gemini``
    gives every message it splits a content into that content as ``raw``)."""
    raw = m.raw
    return raw is before.raw and isinstance(raw, dict) and isinstance(raw.get("parts"), list)


@dataclass(slots=True)
class Item:
    """One OpenAI Responses input item made from a neutral message."""

    type: str
    source: int
    call: int | None = None
    call_id: str = ""
    item_id: str | None = None
    part: int | None = None


def _item_id(raw: Any, kind: str) -> str | None:
    if isinstance(raw, dict) and raw.get("type") == kind and isinstance(raw.get("id"), str):
        return str(raw["id"])
    return None


def items(messages: Sequence[Message], repaired: bool = False, start: int = 0, stop: int | None = None) -> list[Item]:
    """OpenAI Responses input items (see the module docstring).

    An item's own id (``fc_…``, ``rs_…``, ``msg_…``) is known only where the neutral record kept
    a Responses item as its ``raw``; elsewhere it is ``None`` (suture writes no item id then). An
    assistant message whose ``raw`` is the list of items it came from is laid out as that list:
    as it stands in the file, or with ``repaired`` as suture writes it (what follows the last call
    comes after the outputs). Of ``messages[start:stop]`` only, where ``start`` is 0 or a message
    that is not a tool message: what an assistant message puts after the outputs that follow it
    comes before the message at ``stop``, as in the items of the whole history."""
    out: list[Item] = []
    after_outputs: list[Item] = []
    for i in range(start, len(messages) if stop is None else stop):
        m = messages[i]
        if m.role == "tool":
            out.append(Item("function_call_output", i, call_id=m.tool_call_id))
            continue
        if after_outputs:
            out += after_outputs
            after_outputs = []
        if m.role != "assistant":
            out.append(Item("message", i, item_id=_item_id(m.raw, "message")))
            continue
        listed = _items_of_run(m, i)
        if listed is not None:
            if repaired and m.tool_calls:
                cut = 1 + max(k for k, it in enumerate(listed) if it.type == "function_call")
                out += listed[:cut]
                after_outputs = listed[cut:]
            else:
                out += listed
            continue
        content = m.content
        # A message item where suture's writer writes one: for text, even empty (``content: ""``
        # beside calls, as Chat clients write it), and for any other part but reasoning.
        has_text = isinstance(content, str)
        if isinstance(content, list):
            for p, part in enumerate(content):
                if isinstance(part, ThinkingPart):
                    out.append(Item("reasoning", i, part=p, item_id=_item_id(part.raw, "reasoning")))
                else:
                    has_text = True
        if has_text:
            out.append(Item("message", i, item_id=_item_id(m.raw, "message")))
        for c, call in enumerate(m.tool_calls):
            out.append(Item("function_call", i, call=c, call_id=call.id, item_id=_item_id(call.raw, "function_call")))
    return out + after_outputs


def _items_of_run(m: Message, index: int) -> list[Item] | None:
    """An assistant message whose record is the list of Responses items it was read from: those
    items in their own order (reasoning before the item it belongs to), calls under their neutral
    ids. ``None`` where the record is not such a list or does not agree with the message."""
    raw = m.raw
    if not isinstance(raw, list) or not all(isinstance(r, dict) and isinstance(r.get("type"), str) for r in raw):
        return None
    # A call is the item it was read from (its ``raw``), whatever that item's kind.
    position = {id(call.raw): c for c, call in enumerate(m.tool_calls)}
    if len(position) != len(m.tool_calls) or sum(id(r) in position for r in raw) != len(position):
        return None
    out: list[Item] = []
    for r in raw:
        kind = r["type"]
        item_id = r.get("id") if isinstance(r.get("id"), str) else None
        c = position.get(id(r))
        if c is not None:
            out.append(
                Item(
                    "function_call",
                    index,
                    call=c,
                    call_id=m.tool_calls[c].id,
                    item_id=item_id if kind == "function_call" else None,
                )
            )
        elif kind in ("reasoning", "message"):
            out.append(Item(kind, index, item_id=item_id))
        else:
            out.append(Item("other", index, item_id=item_id))
    return out


class Shapes:
    """The wire shapes of one list of messages, each made the first time a check asks for it and
    shared by every check of that list: each message's blocks (of which Anthropic's and Bedrock's
    turns and Gemini's contents are made), the turns, the contents, the Responses items (OpenAI's
    and strict servers' checks read the same), the chat-style pairing (OpenAI Chat, Kimi,
    DeepSeek) and the call ids. Checks only read them. :func:`suture.checks.verdicts` makes one for
    the messages and one for their repair (the same one where the repair holds the same messages),
    and drops them when it returns."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = messages
        self._blocks: list[list[Block]] | None = None
        self._turns: dict[bool, list[Turn]] = {}
        self._contents: list[Turn] | None = None
        self._items: dict[bool, list[Item]] = {}
        self._pairing: Pairing | None = None
        self._call_ids: set[str] | None = None
        self._shared: dict[Hashable, Any] = {}

    def holds(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` are the very messages of this list, in its order (a repair that
        changed nothing): their shapes are these."""
        mine = self.messages
        return messages is mine or (len(messages) == len(mine) and all(map(operator.is_, messages, mine)))

    def blocks(self) -> list[list[Block]]:
        """Each message's blocks (:func:`message_blocks`; none for a system prompt)."""
        if self._blocks is None:
            ms = self.messages
            self._blocks = [[] if m.role in LIFTED_ROLES else message_blocks(ms, i) for i, m in enumerate(ms)]
        return self._blocks

    def turns(self, merge: bool = False) -> list[Turn]:
        """:func:`turns` of the whole list (with ``merge``, made from those without it)."""
        found = self._turns.get(merge)
        if found is None:
            found = merged(self.turns()) if merge else turns(self.messages, blocks=self.blocks())
            self._turns[merge] = found
        return found

    def contents(self) -> list[Turn]:
        """:func:`contents` of the whole list."""
        if self._contents is None:
            self._contents = contents(self.messages, blocks=self.blocks())
        return self._contents

    def items(self, repaired: bool = False) -> list[Item]:
        """:func:`items` of the whole list; one list for both layouts where no assistant message
        lays out otherwise in a repaired history (none was read from Responses items with calls)."""
        found = self._items.get(repaired)
        if found is None:
            other = self._items.get(not repaired)
            alike = other is not None and not self._lays_out_apart()
            found = self._items[repaired] = other if alike and other is not None else items(self.messages, repaired)
        return found

    def repaired_alike(self) -> bool:
        """Whether the list is laid out alike as a file holds it and as suture writes it (the
        Responses checks then find the same with and without ``repaired``)."""
        return not self._lays_out_apart()

    def _lays_out_apart(self) -> bool:
        return any(m.role == "assistant" and m.tool_calls and isinstance(m.raw, list) for m in self.messages)

    def pairing(self) -> Pairing:
        """:func:`suture.checks._chat.pairing` of the whole list."""
        if self._pairing is None:
            self._pairing = pairing(self.messages)
        return self._pairing

    def call_ids(self) -> set[str]:
        """The ids of every call in the list."""
        if self._call_ids is None:
            self._call_ids = {c.id for m in self.messages for c in m.tool_calls}
        return self._call_ids

    def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """What ``make()`` gives, made once for this list under ``key``: the part of a check that
        two providers' checks share (what strict Responses servers and OpenAI both enforce)."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]  # type: ignore[no-any-return]
