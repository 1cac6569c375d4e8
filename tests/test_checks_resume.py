"""Resumed provider checks (``suture.checks.resume``) equal full checks, problem for problem.

A history is cut at random points into a first part and appends; after each, the resumed verdicts
of every provider (before repair, after it, the fixed flags) must equal what
:func:`suture.checks.verdicts` gives for the same messages. The generated histories of
``tests.strategies`` carry no records, so here some messages are given the records the checks
read (Responses item ids and item lists, Gemini signatures, DeepSeek reasoning, Mistral's prefix,
Anthropic signatures) to reach every rule.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, overload

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suture.checks import PROVIDERS, check, verdicts
from suture.checks.resume import Checks, Valid, resumable
from suture.formats import load_file
from suture.model import Message, TextPart, ThinkingPart, ToolCall
from suture.repair import Repair, repair, repair_from, reused
from suture.validity import violations
from tests.helpers.dressed import dressed_histories

ROOT = Path(__file__).resolve().parent.parent


def _transcripts() -> list[Path]:
    found = []
    for path in sorted((ROOT / "sample_sessions").rglob("*")):
        if path.suffix in (".json", ".jsonl"):
            try:
                load_file(path)
            except Exception:
                continue  # a recording's notes, not a transcript
            found.append(path)
    return found


SAMPLES = _transcripts()


def _assert_same(got: dict[str, Any], messages: Sequence[Message], result: Repair) -> None:
    want = verdicts(messages, repaired=result)
    for p in PROVIDERS:
        assert got[p].before == want[p].before, p
        assert got[p].after == want[p].after, p


def _grow(messages: list[Message], cuts: list[int]) -> Iterator[tuple[list[Message], Repair, int]]:
    """Each state of ``messages`` read in parts ending at ``cuts``, its repair made from the one
    before (as the app makes it), and how many messages it keeps of the state before."""
    before: Repair | None = None
    kept = 0
    for n in [*sorted(cuts), len(messages)]:
        part = messages[:n]
        result = repair(part) if before is None else repair_from(before, part, kept)
        yield part, result, kept
        before, kept = result, n


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dressed_histories(), st.data())
def test_resumed_verdicts_equal_full_verdicts_after_appends(messages: list[Message], data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(messages)), max_size=4))
    checks = Checks()
    for part, result, kept in _grow(messages, cuts):
        _assert_same(checks.verdicts(part, result, same=kept), part, result)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dressed_histories(), dressed_histories(), st.data())
def test_a_resumed_check_of_a_changed_end_equals_a_full_check(
    first: list[Message], other: list[Message], data: st.DataObject
) -> None:
    """The messages after ``same`` may be others than last time (a repair's last span is
    written again): what was kept of them must not show."""
    keep = data.draw(st.integers(0, len(first)))
    final = data.draw(st.integers(0, len(first)))
    second = first[:keep] + other
    for provider in PROVIDERS:
        for repaired in (False, True):
            r = resumable(provider, repaired)
            assert r.check(first, 0, final) == check(first, provider, repaired=repaired)
            assert r.check(second, min(keep, final)) == check(second, provider, repaired=repaired), provider


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_resumed_verdicts_of_sample_sessions_equal_full_verdicts(path: Path) -> None:
    messages = list(load_file(path).messages)
    rng = random.Random(path.name)
    cuts = [rng.randrange(len(messages) + 1) for _ in range(3)] + [max(len(messages) - 1, 0)]
    checks = Checks()
    for part, result, kept in _grow(messages, cuts):
        _assert_same(checks.verdicts(part, result, same=kept), part, result)


class _Counted(Sequence[Message]):
    """A list of messages that counts how many times one is read."""

    def __init__(self, items: list[Message]) -> None:
        self.items = items
        self.reads = 0

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            found = self.items[index]
            self.reads += len(found)
            return found
        self.reads += 1
        return self.items[index]

    def __iter__(self) -> Iterator[Message]:
        for m in self.items:
            self.reads += 1
            yield m


def _session(turns: int) -> list[Message]:
    """An agent's session: a user message, then turns of reasoning (signed), text and calls (one,
    or three at once) answered by their results; now and then a steer."""
    messages: list[Message] = [Message("user", "fix the build")]
    for t in range(turns):
        calls = tuple(ToolCall(f"toolu_{t}_{c}", "bash", {"cmd": "ls"}) for c in range(1 + 2 * (t % 3 == 0)))
        thinking = ThinkingPart(f"step {t}", signature=f"sig{t}")
        messages.append(Message("assistant", [thinking, TextPart(f"running step {t}")], calls))
        messages += [Message("tool", f"out {t}", tool_call_id=c.id, name="bash") for c in calls]
        if t % 7 == 6:
            messages.append(Message("user", "also check the lint"))
    messages.append(Message("assistant", "done"))
    return messages


def test_a_check_after_an_append_reads_what_was_appended_not_the_history() -> None:
    """After the first check, one message appended at a time: each provider's check, before
    repair and after it, reads a few dozen messages, not the thousands before them."""
    messages = _session(800)
    n = len(messages) - 25
    for provider in PROVIDERS:
        before, after = resumable(provider), resumable(provider, repaired=True)
        before.check(messages[:n])
        result = repair(messages[:n])
        first = reused(result, messages[:n], n)
        after.check(result.messages, 0, first[1] if first is not None else 0)
        for k in range(n + 1, len(messages) + 1):
            part = messages[:k]
            counted = _Counted(part)
            assert before.check(counted, same=k - 1) == check(part, provider)
            assert counted.reads < 200, (provider, k, counted.reads)
            stable = reused(result, part, k - 1)
            result = repair_from(result, part, k - 1)
            final = reused(result, part, k)
            counted = _Counted(list(result.messages))
            same = stable[1] if stable is not None else 0
            found = after.check(counted, same, final[1] if final is not None else 0)
            assert found == check(result.messages, provider, repaired=True)
            assert counted.reads < 200, (provider, k, counted.reads)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dressed_histories(), dressed_histories(), st.data())
def test_the_resumed_valid_property_equals_the_whole_one_after_appends_and_changed_ends(
    messages: list[Message], other: list[Message], data: st.DataObject
) -> None:
    """The Valid property every provider shares (an AI SDK file's headline), before and after
    repair, resumed after each append and after an end written otherwise."""
    cuts = data.draw(st.lists(st.integers(0, len(messages)), max_size=4))
    valid = Valid()
    last: tuple[list[Message], Repair] | None = None
    for part, result, kept in _grow(messages, cuts):
        assert valid.check(part, result, kept) == (violations(part), violations(result.messages))
        last = (part, result)
    assert last is not None
    part, result = last
    keep = data.draw(st.integers(0, len(part)))
    changed = part[:keep] + other
    again = repair_from(result, changed, keep)
    assert valid.check(changed, again, keep) == (violations(changed), violations(again.messages))


def test_the_valid_property_after_an_append_reads_what_was_appended_not_the_history() -> None:
    """After the first check, one message appended at a time: the Valid property, before repair
    and after it, reads a few dozen messages, not the thousands before them."""
    messages = _session(800)
    n = len(messages) - 25
    valid = Valid()
    result = repair(messages[:n])
    valid.check(messages[:n], result)
    for k in range(n + 1, len(messages) + 1):
        part = messages[:k]
        counted = _Counted(part)
        result = repair_from(result, part, k - 1)
        output = _Counted(list(result.messages))
        found = valid.check(counted, replace(result, messages=output), k - 1)
        assert found == (violations(part), violations(result.messages))
        assert counted.reads < 200 and output.reads < 200, (k, counted.reads, output.reads)


def test_a_request_with_no_message_is_said_and_unsaid_as_messages_are_appended() -> None:
    # Nothing to send (no message, then a system prompt alone), then a prompt appended: the
    # problem of the list itself comes and goes as a full check has it, resumed each time.
    from tests.helpers.messages import A, S, U

    history = [S(), U("fix it"), A("done")]
    checks = Checks()
    said = []
    for part, result, kept in _grow(history, [0, 1, 2]):
        got = checks.verdicts(part, result, same=kept)
        _assert_same(got, part, result)
        said.append(sorted(v.rule for p in ("anthropic", "openai-chat", "gemini") for v in got[p].before))
    assert said == [["A14", "G6", "O6"], ["A14", "G6"], [], []]
