"""A session log's history is never sent alone: its agent sends the user's next message after it
on resume (agents-resume.md). Checked with ``prompt_follows``, a session with no message yet (or
only system prompts) has no problem of an empty list (A14, O6, G6, M6), and the history's last
message does not end the request: no rule of the final message holds of it (Mistral M4,
Anthropic A9 and A12 at the end, Gemini G4 of the current turn), and an empty last assistant
message is no longer the final one Anthropic's A8 leaves alone. Every other problem is found as
without it, by the full checks and the resumed ones alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from suture.checks import PROVIDERS, Verdict, check, verdict, verdicts
from suture.checks.resume import Checks
from suture.formats import load_bytes
from suture.model import Message, TextPart
from suture.repair import repair
from tests.helpers.dressed import dressed_histories
from tests.helpers.messages import A, C, S, T, U, thought
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


# The rules of the message that ends a request, by provider: a following prompt changes them.
END_RULES = {"anthropic": {"A8", "A9", "A12"}, "gemini": {"G4"}, "mistral": {"M4"}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_a_following_prompt_takes_away_only_the_empty_list_problems(messages: list[Message]) -> None:
    result = repair(messages)
    alone = verdicts(messages, repaired=result)
    followed = verdicts(messages, repaired=result, prompt_follows=True)
    for p in PROVIDERS:
        ends = END_RULES.get(p, set())
        for was, now in ((alone[p].before, followed[p].before), (alone[p].after, followed[p].after)):
            assert [v for v in now if v.rule not in ends] == [v for v in was if v.rule not in EMPTY_RULES | ends], p
            if p != "anthropic":  # (Anthropic's A8 can come: the last assistant message is not final)
                assert not {v.rule for v in now} - {v.rule for v in was}, p


def _followed(messages: list[Message], provider: str) -> tuple[Verdict, Verdict]:
    """``provider``'s verdict on ``messages`` sent alone and with a prompt after them; the
    resumed checks of a session log, after the history grew a message at a time, give the latter."""
    result = repair(messages)
    alone = verdict(messages, provider, result)
    followed = verdict(messages, provider, result, prompt_follows=True)
    checks = Checks([provider], prompt_follows=True)
    for n in range(1, len(messages) + 1):
        part = messages[:n]
        got = checks.verdicts(part, repair(part), same=n - 1)[provider]
    assert (got.before, got.after) == (followed.before, followed.after)
    return alone, followed


def _rules(found: Verdict) -> list[str]:
    return [v.rule for v in found.before]


def test_mistral_m4_a_history_ending_with_an_assistant_reply_is_followed_by_the_prompt() -> None:
    alone, followed = _followed([U("fix it"), A("done")], "mistral")
    assert _rules(alone) == ["M4"]
    assert _rules(followed) == []
    assert (followed.counts, followed.summary()) == ((0, 0), "mistral: no problems")


def test_mistral_m4_of_an_empty_last_assistant_message_when_the_prompt_follows() -> None:
    """The repair drops the empty message; with the prompt after the history, nothing was wrong
    with its end to begin with."""
    alone, followed = _followed([U("fix it"), A("done"), A("")], "mistral")
    assert "M4" in _rules(alone)
    assert "M4" not in _rules(followed)


def test_anthropic_a9_the_last_assistant_message_is_not_the_final_one() -> None:
    alone, followed = _followed([U("fix it"), A("done \n")], "anthropic")
    assert _rules(alone) == ["A9"]
    assert _rules(followed) == []


def test_anthropic_a12_a_last_assistant_message_ending_with_thinking() -> None:
    alone, followed = _followed([U("fix it"), A([thought()])], "anthropic")
    assert [(v.rule, v.problem) for v in alone.before] == [
        ("A12", "the final assistant message ends with a thinking block")
    ]
    assert _rules(followed) == []


def test_anthropic_a12_a_tool_loop_without_thinking_is_over_when_the_prompt_follows() -> None:
    """Thinking is on, and the last tool loop (the calls after the last user text) has none: its
    results end the request alone, but the prompt's text after them starts another turn."""
    history = [U("q"), A([thought(), TextPart("a")]), U("next"), A("on it", C("c1")), T("c1")]
    alone, followed = _followed(history, "anthropic")
    assert [v.rule for v in alone.before] == ["A12"]
    assert "current tool turn" in alone.before[0].problem
    assert _rules(followed) == []


def test_anthropic_a8_an_empty_last_assistant_message_is_not_final_when_the_prompt_follows() -> None:
    """Anthropic takes an empty final assistant message (a prefill); with the prompt after it, it
    is an empty message among the others, which the repair drops."""
    alone, followed = _followed([U("fix it"), A("")], "anthropic")
    assert _rules(alone) == []
    assert [(v.rule, v.index, v.fixed) for v in followed.before] == [("A8", 1, True)]
    assert followed.after == []


_SIGNED_CALL = {"functionCall": {"name": "read", "args": {}}, "thoughtSignature": "c2ln"}
_UNSIGNED_CALL = {"functionCall": {"name": "read", "args": {}}}


def test_gemini_g4_the_prompt_starts_the_current_turn() -> None:
    """Gemini 3 asks for signatures in the current turn only: the user's next message starts a
    new one, so no call of the history is in it."""
    history = [U("q"), A(None, C("c1", raw=_SIGNED_CALL)), T("c1"), A(None, C("c2", raw=_UNSIGNED_CALL)), T("c2")]
    alone, followed = _followed(history, "gemini")
    assert _rules(alone) == ["G4"]
    assert _rules(followed) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dressed_histories())
def test_resumed_checks_with_a_prompt_following_agree_with_the_full_ones_as_a_history_grows(
    messages: list[Message],
) -> None:
    checks = Checks(prompt_follows=True)
    for n in range(len(messages) + 1):
        part = messages[:n]
        result = repair(part)
        got = checks.verdicts(part, result, same=max(n - 1, 0))
        full = verdicts(part, repaired=result, prompt_follows=True)
        assert {p: (v.before, v.after) for p, v in got.items()} == {p: (v.before, v.after) for p, v in full.items()}
