"""Properties of the provider checks over generated histories (``tests.strategies``).

The one that matters: after suture's repair, no provider reports a problem of a rule the repair
is meant to fix. A checker that called everything "not fixed" would pass that trivially, so the
rules the repair always fixes (``fixed == "yes"`` in the rule table) must be absent outright,
and every problem a verdict calls fixed must be gone from the repaired history.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from suture.checks import PROVIDERS, RULES, check, verdicts
from suture.checks._base import LIST, Violation
from suture.model import Message
from suture.repair import repair
from tests.strategies import histories

ALWAYS_FIXED = {r.id for r in RULES.values() if r.fixed == "yes"}


def _kind(v: Violation, index: int | None) -> tuple[str, int | None, str]:
    """A problem's rule at a message, and its text where the rule's texts are problems of their
    own kinds (Bedrock's B3: starting with an assistant message, two assistant messages in a row)."""
    return (v.rule, index, v.error if RULES[v.rule].kinds_by_text else "")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_repaired_history_has_no_problem_the_repair_is_meant_to_fix(messages: list[Message]) -> None:
    result = repair(messages)
    for provider in PROVIDERS:
        after = check(result.messages, provider)
        meant = [(v.rule, v.index, v.error) for v in after if v.fixed]
        assert meant == [], provider
        assert [v.rule for v in after if v.rule in ALWAYS_FIXED] == [], provider


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_verdicts_are_consistent(messages: list[Message]) -> None:
    result = repair(messages)
    for provider, v in verdicts(messages, repaired=result).items():
        remaining = {_kind(x, x.index) for x in v.after}
        for x in v.before:
            assert x.provider == provider
            assert 0 <= x.index < len(messages) or x.index == LIST
            assert all(0 <= i < len(messages) for i in x.related)
            assert x.error and x.problem and x.remedy and x.where
            if x.index == LIST:  # no message to send: the repair adds none, so it stays
                assert not x.fixed and _kind(x, LIST) in remaining
                continue
            if RULES[x.rule].place == "last":  # about the request's end, wherever it is after repair
                assert x.fixed == (x.rule not in {a.rule for a in v.after})
            target = result.output_of(x.index)
            if x.fixed:
                assert target is None or _kind(x, target) not in remaining
            else:
                assert (
                    x.rule not in ALWAYS_FIXED
                    or _kind(x, target) in remaining
                    or any(_kind(x, result.output_of(i)) in remaining for i in x.related)
                )
        for x in v.after:
            assert 0 <= x.index < len(result.messages) or x.index == LIST


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_checks_are_deterministic(messages: list[Message]) -> None:
    for provider in PROVIDERS:
        assert check(messages, provider) == check(messages, provider)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_every_text_a_check_writes_is_recognised_and_located_by_explain(messages: list[Message]) -> None:
    from suture.checks.explain import locate, recognise

    result = repair(messages)
    for provider in PROVIDERS:
        for v in check(messages, provider):
            found = recognise(v.error)
            assert found, v.error
            rules = {r.rule.id for r in found}
            assert any(v.rule in RULES[r].members for r in rules), (v.rule, v.error)
            rec = next(r for r in found if v.rule in r.rule.members)
            where = locate(messages, rec, result)
            assert where.found, (v.rule, v.error)
