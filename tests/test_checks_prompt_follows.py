"""A session log's history is never sent alone: its agent sends the user's next message after it
on resume (agents-resume.md). Checked with ``prompt_follows``, a session with no message yet (or
only system prompts) has no problem of an empty list (A14, O6, G6, M6); every other problem is
found as without it, by the full checks and the resumed ones alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from suture.checks import PROVIDERS, check, verdict, verdicts
from suture.checks.resume import Checks
from suture.formats import load_bytes
from suture.model import Message
from suture.repair import repair
from tests.helpers.messages import A, S, U
from tests.strategies import histories

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"

EMPTY_RULES = {"A14", "O6", "G6", "M6"}


def _first_lines(path: Path, n: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


# A session log with no message yet: a Claude Code file of a snapshot and a hook's progress line,
# a pi file of its header, a Codex rollout of its session_meta.
EMPTY_SESSIONS = {
    "claude-code": _first_lines(SAMPLES / "claude-code" / "parallel-calls.jsonl", 2),
    "pi": _first_lines(SAMPLES / "pi" / "v1-clean.jsonl", 1),
    "codex": _first_lines(SAMPLES / "codex" / "clean-rollout.jsonl", 1),
}


@pytest.mark.parametrize("fmt", sorted(EMPTY_SESSIONS))
def test_an_empty_session_has_nothing_to_reject_when_its_prompt_follows(fmt: str) -> None:
    transcript = load_bytes(EMPTY_SESSIONS[fmt])
    assert transcript.format == fmt
    assert not [m for m in transcript.messages if m.role not in ("system", "developer")]
    alone = verdicts(transcript.messages)
    assert {v.rule for v in alone["anthropic"].before} == {"A14"}  # what a request of it alone meets
    for provider, found in verdicts(transcript.messages, prompt_follows=True).items():
        assert (found.before, found.after) == ([], []), provider


@pytest.mark.parametrize("history", [[], [S("be brief")]], ids=["nothing", "system-only"])
def test_no_empty_list_problem_for_any_provider_when_a_prompt_follows(history: list[Message]) -> None:
    said = {v.rule for p in PROVIDERS for v in check(history, p)}
    assert said == EMPTY_RULES if not history else said == {"A14", "G6"}
    for p in PROVIDERS:
        assert check(history, p, prompt_follows=True) == []
        assert check(history, p, repaired=True, prompt_follows=True) == []
        assert verdict(history, p, prompt_follows=True).counts == (0, 0)


def test_resumed_checks_with_a_prompt_following_agree_with_the_full_ones() -> None:
    history = [S(), U("fix it"), A("done")]
    checks = Checks(prompt_follows=True)
    for n in range(len(history) + 1):
        part = history[:n]
        result = repair(part)
        got = checks.verdicts(part, result, same=max(n - 1, 0))
        full = verdicts(part, repaired=result, prompt_follows=True)
        assert {p: (v.before, v.after) for p, v in got.items()} == {p: (v.before, v.after) for p, v in full.items()}
        assert not {v.rule for v in got["anthropic"].before} & EMPTY_RULES


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_a_following_prompt_takes_away_only_the_empty_list_problems(messages: list[Message]) -> None:
    result = repair(messages)
    alone = verdicts(messages, repaired=result)
    followed = verdicts(messages, repaired=result, prompt_follows=True)
    for p in PROVIDERS:
        assert followed[p].before == [v for v in alone[p].before if v.rule not in EMPTY_RULES]
        assert followed[p].after == [v for v in alone[p].after if v.rule not in EMPTY_RULES]
