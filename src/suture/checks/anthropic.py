"""Anthropic Messages (also Claude on Vertex): rules A1-A9, A12 and A13 of the rule table.

Wire model: ``suture.checks._wire.turns`` (results and the user text after them are one user
message; a top-level system prompt is not a message). ``messages.N`` and ``content.M`` in the
texts count those wire messages and their blocks. Duplicate ``tool_use`` ids are checked across
the whole request (claude-code#20901).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from suture.checks._base import Violation, has_thinking, id_list, shown_id, unsent, violation
from suture.checks._wire import LIFTED_ROLES, Block, Shapes, Turn, run_ends, run_of
from suture.model import Message, OtherPart, is_placeholder
from suture.words import with_article

NAME = "anthropic"
TITLE = "Anthropic Messages"

# A5: the id pattern Anthropic validates (CommandCodeAI/command-code#323; opencode#1279).
_ID = re.compile(r"[a-zA-Z0-9_-]+")


_UNSIGNED = (
    "Anthropic verifies a signature on every thinking block and one cannot be made up: drop this "
    "block when sending to Anthropic (or send the request with thinking disabled)."
)
_BLANK_FIRST = (
    "Delete the whitespace-only text block in front of the thinking block (agents such as Claude Code "
    "log one there); the thinking block itself must stay as it is."
)


_THINKING_KINDS = ("thinking", "redacted_thinking")
"""The kinds of block Anthropic takes as thinking (A12 holds them first, and as returned)."""


def _is_thinking(block: Block) -> bool:
    return block.kind == "thinking" or (block.kind == "other" and block.other_kind in _THINKING_KINDS)


def holds_thinking(m: Message) -> bool:
    """Whether ``m`` holds a thinking or redacted_thinking block: what A12's errors about what no
    check sees (an invalid signature, an edited block) are about."""
    content = m.content
    if not isinstance(content, list):
        return False
    return has_thinking(m) or any(isinstance(p, OtherPart) and p.kind in _THINKING_KINDS for p in content)


def _type_of(block: Block) -> str:
    return block.other_kind if block.kind == "other" else block.kind


def _signed(block: Block) -> bool:
    if block.kind == "other":
        return True  # redacted_thinking carries its data; nothing to check here
    if block.signature:
        return True
    raw = block.raw
    if not isinstance(raw, dict):
        return False
    return any(isinstance(raw.get(k), str) and raw.get(k) for k in ("signature", "thinkingSignature"))


class _Out:
    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages = messages
        self.found: list[Violation] = []

    def add(
        self,
        rule: str,
        index: int,
        problem: str,
        fixed: bool,
        where: str,
        n: int | None,
        m: int | None = None,
        call_id: str | None = None,
        related: tuple[int, ...] = (),
        *,
        text: int = 0,
        remedy: str = "",
        **fields: object,
    ) -> None:
        """A problem of ``rule``, its error the rule's text ``text`` with ``fields`` filled in
        (``N`` and ``M`` are ``n`` and ``m`` unless given)."""
        fields.setdefault("N", n)
        fields.setdefault("M", m)
        self.found.append(
            violation(
                NAME,
                rule,
                index,
                problem,
                fixed,
                where,
                n,
                m,
                call_id=call_id,
                related=related,
                remedy=remedy,
                text=text,
                fill=fields,
            )
        )


def check(
    messages: Sequence[Message], shapes: Shapes | None = None, *, prompt_follows: bool = False
) -> list[Violation]:
    """Every Anthropic rule the history breaks, in wire order (``shapes``: those of ``messages``,
    where other checks share them). ``prompt_follows``: the user's next message comes after the
    history (see :func:`suture.checks.empty`), so its last message does not end the request: no
    rule of the final message (A9, A12 at the end), and A8 holds for an empty last assistant
    message too."""
    shapes = Shapes(messages) if shapes is None else shapes
    wire = shapes.turns()
    found, late = scan(messages, wire, 0, {}, shapes.call_ids().__contains__, not prompt_follows)
    found += late
    if wire and not prompt_follows:
        found += at_the_end(messages, wire, 0, thinking(messages, 0, len(messages)), False)
    return found


def empty(messages: Sequence[Message]) -> list[Violation]:
    """A14: no message in ``messages`` (system prompts go in ``system``, not among them)."""
    return unsent(NAME, "A14", "messages", messages, LIFTED_ROLES)


def thinking(messages: Sequence[Message], start: int, stop: int) -> bool:
    """Whether an assistant message of ``messages[start:stop]`` has a thinking block (thinking is on)."""
    return any(messages[i].role == "assistant" and has_thinking(messages[i]) for i in range(start, stop))


def scan(
    messages: Sequence[Message],
    wire: list[Turn],
    base: int,
    first_use: dict[str, tuple[int, int, int]],
    has_call: Callable[[str], bool],
    final: bool,
) -> tuple[list[Violation], list[Violation]]:
    """The problems of the wire messages ``wire``, numbered from ``base``: those of a whole
    history, or of its messages from an assistant message on that follows no assistant message
    (so no run of user messages and no call's answer crosses it), in wire order; then, apart,
    the thinking problems of each assistant message (A12; those of the end of the request come
    from :func:`at_the_end`). ``first_use`` maps a call id to its first ``tool_use`` block before
    (wire message, block, neutral index) and gets those of ``wire``; ``has_call(id)``: whether a
    call of the history has that id; ``final``: ``wire`` ends the request."""
    out = _Out(messages)
    seen_in_run: dict[int, dict[str, int]] = {}
    ends = run_ends(wire)
    last = len(wire) - 1
    prev = -1  # the wire message before the current run of user messages
    uses: dict[str, int] = {}  # the tool_use ids of that message, with how often each occurs
    for k, turn in enumerate(wire):
        if turn.role == "assistant":
            _assistant(out, wire, base, k, turn, first_use, ends)
        else:
            if k == 0 or wire[k - 1].role != "user":
                prev = k - 1
                uses = _counts(wire[prev].ids("tool_use")) if prev >= 0 else {}
            _user(out, wire[prev] if prev >= 0 else None, base + k, turn, has_call, seen_in_run, uses)
        _common(out, base + k, turn, final and k == last)
    late = _Out(messages)
    _thinking(late, wire, base)
    return out.found, late.found


def _assistant(
    out: _Out,
    wire: list[Turn],
    base: int,
    k: int,
    turn: Turn,
    first_use: dict[str, tuple[int, int, int]],
    ends: list[int],
) -> None:
    """The rules of the assistant message ``wire[k]``: its call ids, then whether the next message answers its calls."""
    uses = [(m, b) for m, b in enumerate(turn.blocks) if b.kind == "tool_use"]
    _call_ids(out, base + k, turn.members[0], uses, first_use)
    if uses:
        _answered(out, wire, base, k, turn, uses, ends)


def _call_ids(
    out: _Out,
    n: int,
    index: int,
    uses: list[tuple[int, Block]],
    first_use: dict[str, tuple[int, int, int]],
) -> None:
    """A5 and A3: a call id Anthropic does not accept, or one an earlier call uses."""
    for m, b in uses:
        if b.id not in first_use and _ID.fullmatch(b.id):
            first_use[b.id] = (n, m, index)  # the common case: a good id, not seen before
            continue
        where = f"messages.{n}.content.{m}"
        if not _ID.fullmatch(b.id):
            out.add(
                "A5",
                index,
                f"call {shown_id(b.id)} has an id Anthropic does not accept",
                b.id == "",
                where,
                n,
                m,
                b.id,
            )
        elif b.id in first_use:
            fn, fm, first = first_use[b.id]
            out.add(
                "A3",
                index,
                f"call {b.id} reuses the id of the call at messages.{fn}.content.{fm}",
                True,
                where,
                n,
                m,
                b.id,
                (first,),
            )
        else:
            first_use[b.id] = (n, m, index)


def _after_a_call(
    out: _Out, turn: Turn, uses: list[tuple[int, Block]], n: int, target: int, related: tuple[int, ...]
) -> None:
    """A1b: text written after a tool_use block of the same message (opencode recording). A
    tool_result block there is A6's (a block of the wrong role), not said twice."""
    late = [
        m
        for m, b in enumerate(turn.blocks)
        if m > uses[0][0] and b.kind != "tool_use" and not _is_thinking(b) and _type_of(b) != "tool_result"
    ]
    if not late:
        return
    before = [b.id for m, b in uses if m < late[-1]]
    kind = _type_of(turn.blocks[late[0]])
    what = "text" if kind == "text" else with_article(f"{kind} block")
    out.add(
        "A1b",
        turn.members[0],
        f"{what} follows a tool_use block in the same assistant message (block {late[0]})",
        False,
        f"messages.{n}.content.{late[0]}",
        n,
        late[0],
        before[0] if before else None,
        related,
        N=target,
        ids=id_list(before),
    )


def _answered(
    out: _Out, wire: list[Turn], base: int, k: int, turn: Turn, uses: list[tuple[int, Block]], ends: list[int]
) -> None:
    """A1b, A1 and A1a: text after a call in its own message; calls with no result leading the next message."""
    index = turn.members[0]
    n = base + k
    nxt = wire[k + 1] if k + 1 < len(wire) else None
    target = n + 1 if nxt is not None else n
    run = run_of(wire, k + 1, ends) if nxt is not None else []
    related = tuple(i for t in run for i in t.members)
    _after_a_call(out, turn, uses, n, target, related)
    lead: set[str] = set()
    later: set[str] = set()
    if nxt is not None and nxt.role == "user":
        leading = True
        for b in (b for t in run for b in t.blocks):
            if b.kind == "tool_result" and leading:
                lead.add(b.id)
            elif b.kind == "tool_result":
                later.add(b.id)
            else:
                leading = False
    # An empty id is A5's problem; Anthropic lists only ids it can name.
    missing = [b.id for _, b in uses if b.id and b.id not in lead and b.id not in later]
    misplaced = [b.id for _, b in uses if b.id and b.id not in lead and b.id in later]
    if not missing and not misplaced:
        return
    if missing:
        out.add(
            "A1",
            index,
            f"{_calls(missing)} no result in the next message",
            True,
            f"messages.{target}",
            target,
            None,
            missing[0],
            related,
            ids=id_list(missing),
        )
    if misplaced:
        # Anthropic names the user message whose results do not lead it, and says how many it
        # looked for there: one per call (the text agents-resume.md and the recorded corpus hold).
        # The problem is the message that holds the first result out of place.
        late_result = next(b.source for t in run for b in t.blocks if b.kind == "tool_result" and b.id in misplaced)
        out.add(
            "A1a",
            late_result,
            f"the result for {id_list(misplaced)} comes after user text in this message; results must lead it",
            True,
            f"messages.{target}",
            target,
            None,
            misplaced[0],
            (index, *(i for i in related if i != late_result)),
            text=1,
            ids=id_list(misplaced),
            count=len(uses),
        )


def _counts(ids: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for i in ids:
        counts[i] = counts.get(i, 0) + 1
    return counts


def _calls(ids: list[str]) -> str:
    return f"call {ids[0]} has" if len(ids) == 1 else f"calls {id_list(ids)} have"


def _user(
    out: _Out,
    prev: Turn | None,
    n: int,
    turn: Turn,
    has_call: Callable[[str], bool],
    seen_in_run: dict[int, dict[str, int]],
    uses: dict[str, int],
) -> None:
    # Anthropic reads consecutive user messages as one: the previous message is the one before the
    # run (``prev``), ``uses`` its tool_use ids with how often each occurs.
    seen = seen_in_run.setdefault(turn.run, {})
    for m, b in enumerate(turn.blocks):
        if b.kind != "tool_result":
            continue
        where = f"messages.{n}.content.{m}"
        result = out.messages[b.source]
        if result.is_error and not result.content:
            # jlevy/markform#153: "" and [] are rejected (a missing content is empty too).
            out.add(
                "A13",
                b.source,
                f"the failed result for {shown_id(b.id)} has no content",
                False,
                where,
                n,
                m,
                b.id,
            )
        if not _ID.fullmatch(b.id):
            out.add(
                "A5",
                b.source,
                f"result for {shown_id(b.id)} has an id Anthropic does not accept",
                b.id == "" or not has_call(b.id),
                where,
                n,
                m,
                b.id,
                text=1,
            )
            continue
        if b.id not in uses:
            out.add(
                "A2",
                b.source,
                f"result for {b.id} answers no call of the previous message",
                True,
                where,
                n,
                m,
                b.id,
                tuple(prev.members) if prev is not None else (),
                id=b.id,
            )
            continue
        count = seen.get(b.id, 0) + 1
        seen[b.id] = count
        if count > uses.get(b.id, 0):
            out.add(
                "A4",
                b.source,
                f"a second result for call {b.id}",
                True,
                where,
                n,
                m,
                b.id,
                id=b.id,
            )


def _common(out: _Out, n: int, turn: Turn, final: bool) -> None:
    messages = out.messages
    wrong = "tool_result" if turn.role == "assistant" else "tool_use"
    for m, b in enumerate(turn.blocks):
        kind = b.kind
        if kind != "other" and (kind != "text" or b.text.strip()):
            continue  # the common case: nothing below applies
        where = f"messages.{n}.content.{m}"
        if b.kind == "other" and b.other_kind == wrong:
            out.add(
                "A6",
                b.source,
                f"a {wrong} block in {with_article(turn.role)} message",
                False,
                where,
                n,
                m,
                text=0 if wrong == "tool_result" else 1,
            )
        if b.kind == "text" and not b.text.strip():
            out.add(
                "A7",
                b.source,
                "an empty text block" if b.text == "" else "a text block holding only whitespace",
                is_placeholder(messages[b.source]),
                where,
                n,
                m,
                text=0 if b.text == "" else 1,
            )
    # A8 holds for any role but the final assistant message: a user message with no content
    # (`""`, `[]`) too; claude-code#6774 quotes it for messages.0, a user message
    # (research provider-rules.md, A8). The repair passes user messages through: not fixed.
    if not turn.blocks and not (final and turn.role == "assistant"):
        out.add(
            "A8",
            turn.members[0],
            f"an empty {turn.role} message",
            all(is_placeholder(messages[i]) for i in turn.members),
            f"messages.{n}",
            n,
        )
    if final and turn.role == "assistant" and turn.blocks:
        tail = turn.blocks[-1]
        if tail.kind == "text" and tail.text.strip() and tail.text != tail.text.rstrip():
            out.add(
                "A9",
                tail.source,
                "the final assistant message ends with whitespace",
                False,
                f"messages.{n}.content.{len(turn.blocks) - 1}",
                n,
                len(turn.blocks) - 1,
            )


def _thinking(out: _Out, wire: list[Turn], base: int) -> None:
    """A12: what can be seen without the original response (anthropic-sdk-python#1598 and others)."""
    for k, turn in enumerate(wire):
        if turn.role != "assistant" or not turn.blocks:
            continue
        n = base + k
        index = turn.members[0]
        first = turn.blocks[0]
        thinking = [m for m, b in enumerate(turn.blocks) if _is_thinking(b)]
        if thinking and not _is_thinking(first):
            # claude-code#20705
            blank = first.kind == "text" and not first.text.strip()
            out.add(
                "A12",
                index,
                "thinking blocks are not first in this assistant message (block 0 is "
                + ("a whitespace-only text block)" if blank else f"{_type_of(first)})"),
                False,
                f"messages.{n}.content.0",
                n,
                0,
                remedy=_BLANK_FIRST if blank else "",
                found=_type_of(first),
            )
        for m in thinking:
            b = turn.blocks[m]
            if not _signed(b):
                out.add(
                    "A12",
                    b.source,
                    "a thinking block without an Anthropic signature (reasoning from another provider, "
                    "or a log that dropped it)",
                    False,
                    f"messages.{n}.content.{m}",
                    n,
                    m,
                    remedy=_UNSIGNED,
                    text=6,
                )


def loop_thinks(wire: list[Turn], before: bool) -> bool:
    """Whether an assistant message of the current tool loop at the end of ``wire`` (since its
    last user message with more than results) has a thinking block; ``before``: whether one
    before ``wire`` has, where the loop began before it."""
    for turn in reversed(wire):
        if turn.role == "user" and any(b.kind != "tool_result" for b in turn.blocks):
            return False
        if turn.role == "assistant" and any(_is_thinking(b) for b in turn.blocks):
            return True
    return before


def at_the_end(
    messages: Sequence[Message], wire: list[Turn], base: int, thinking_on: bool, loop_before: bool
) -> list[Violation]:
    """A12 at the end of the request: a final assistant message that ends with thinking, and a
    current tool loop with no thinking where earlier turns had it. ``wire``: the last wire
    messages of the request (from an assistant message on), numbered from ``base``;
    ``thinking_on``: whether any assistant message has thinking; ``loop_before``: whether the
    tool loop, where it began before ``wire``, has thinking there (:func:`loop_thinks`)."""
    out = _Out(messages)
    last = wire[-1]
    n = base + len(wire) - 1
    if last.role == "assistant" and last.blocks and _is_thinking(last.blocks[-1]):
        # tailcallhq/forgecode#2107
        out.add(
            "A12",
            last.members[0],
            "the final assistant message ends with a thinking block",
            False,
            f"messages.{n}",
            n,
            text=2,
        )
    k = len(wire) - 1
    while k > 0 and wire[k].role == "user" and wire[k - 1].role == "user":
        k -= 1
    final = [b for t in wire[k:] for b in t.blocks]
    if (
        thinking_on
        and last.role == "user"
        and final
        and all(b.kind == "tool_result" for b in final)
        and k > 0
        and wire[k - 1].blocks
        # The current tool loop: the assistant messages since the last user message with text in it.
        and not loop_thinks(wire[:k], loop_before)
    ):
        # Thinking was on (earlier turns have it), but this tool loop has none: it was removed.
        # opencode#3077; n8n-io/n8n#22550
        prev = wire[k - 1]
        n = base + k
        found = _type_of(prev.blocks[0])
        out.add(
            "A12",
            prev.members[0],
            "thinking is on in this history, but no assistant message of the current tool turn has a thinking block",
            False,
            f"messages.{n - 1}.content.0",
            n - 1,
            0,
            text=1,
            found=found,
        )
    return out.found
