"""The wire shapes the provider checks share (``suture.checks._wire.Shapes``) are those each
check would build alone, and sharing them changes no verdict.

:func:`suture.checks.verdicts` builds each message's blocks, the turns, the contents and the
Responses items once for the messages and once for their repair (once in all where the repair
holds the same messages), and every provider's check reads them from there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from suture.checks import PROVIDERS, check, verdicts
from suture.checks import _wire as wire
from suture.checks._wire import Shapes, contents, items, merged, turns
from suture.formats import load_file
from suture.model import Message, TextPart, ToolCall
from suture.repair import repair
from tests.helpers.dressed import dressed_histories

ROOT = Path(__file__).resolve().parent.parent


def _loaded(path: Path) -> list[Message] | None:
    try:
        return load_file(path).messages
    except Exception:
        return None  # a recording's notes, not a transcript


SAMPLES = [
    p
    for p in sorted((ROOT / "sample_sessions").rglob("*"))
    if p.suffix in (".json", ".jsonl") and _loaded(p) is not None
]


def _same_shapes(messages: list[Message]) -> None:
    shapes = Shapes(messages)
    assert shapes.turns() == turns(messages)
    assert shapes.turns(merge=True) == turns(messages, merge=True)
    assert merged(turns(messages)) == turns(messages, merge=True)
    assert shapes.contents() == contents(messages)
    assert shapes.items(False) == items(messages, False)
    assert shapes.items(True) == items(messages, True)
    later = Shapes(messages)  # the other layout asked for first
    assert later.items(True) == items(messages, True)
    assert later.items(False) == items(messages, False)


def _same_verdicts(messages: list[Message]) -> None:
    result = repair(messages)
    for p, v in verdicts(messages, repaired=result).items():
        assert v.after == check(result.messages, p, repaired=True), p
        alone = check(messages, p)
        assert [(x.rule, x.index, x.where, x.error, x.problem) for x in v.before] == [
            (x.rule, x.index, x.where, x.error, x.problem) for x in alone
        ], p


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dressed_histories())
def test_shared_shapes_are_those_each_check_builds_alone(messages: list[Message]) -> None:
    _same_shapes(messages)
    _same_verdicts(messages)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_shapes_of_sample_sessions(path: Path) -> None:
    messages = load_file(path).messages
    _same_shapes(messages)
    _same_verdicts(messages)


def _clean(rounds: int) -> list[Message]:
    out: list[Message] = [Message("system", "be brief")]
    for r in range(rounds):
        out += [
            Message("user", f"step {r}"),
            Message("assistant", [TextPart("on it")], (ToolCall(f"call{r:05d}", "run", "{}"),)),
            Message("tool", f"ok {r}", tool_call_id=f"call{r:05d}", name="run"),
            Message("assistant", f"done {r}"),
        ]
    return [*out, Message("user", "thanks")]


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The assistant messages whose blocks are made from now on, one entry each time."""
    made: list[int] = []
    real = wire.assistant_blocks

    def counted(message: Message, i: int) -> list[wire.Block]:
        made.append(i)
        return real(message, i)

    monkeypatch.setattr(wire, "assistant_blocks", counted)
    return made


def test_every_message_s_blocks_are_made_once_for_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """A history the repair leaves as it is: one set of blocks serves Anthropic, Bedrock and
    Gemini, before repair and after it."""
    made = _counted(monkeypatch)
    messages = _clean(5)
    found = verdicts(messages)
    assert all(v.counts == (0, 0) for v in found.values())
    assert sorted(made) == [i for i, m in enumerate(messages) if m.role == "assistant"]


def test_a_repair_that_changes_the_history_is_checked_on_its_own_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call with no result: the repair adds one, so the repaired history's blocks are its own,
    and each provider finds the problem before repair and none after."""
    messages = [*_clean(2)[:-3], Message("user", "next")]
    result = repair(messages)
    assert len(result.messages) == len(messages) + 1
    made = _counted(monkeypatch)
    found = verdicts(messages, repaired=result)
    assert len(made) == 2 * sum(m.role == "assistant" for m in messages)
    for p in ("anthropic", "bedrock", "gemini", "openai-chat"):
        assert found[p].before and not found[p].after, p
    assert set(found) == set(PROVIDERS)
