"""``suture.validity.violations``: the contract's *Valid* property (docs/contract.md), as the list of ways a history breaks it.

Valid: every call is answered by exactly one result, and all results of a span follow its
assistant message directly, in call order; no two calls share an id; no result is outside its
call's span. The property tests rely on ``violations(...) == []`` meaning valid, so it is checked
here against a plain reading of that sentence over generated histories, and case by case.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import example, given

from suture.model import Message, ToolCall
from suture.repair import repair
from suture.validity import violations
from tests.strategies import NO_DEADLINE, histories, turns


def A(*ids: str) -> Message:
    return Message("assistant", None, tuple(ToolCall(i, "read_file") for i in ids))


def T(call_id: str) -> Message:
    return Message("tool", "ok", tool_call_id=call_id)


def U() -> Message:
    return Message("user", "hi")


def is_valid(messages: Sequence[Message]) -> bool:
    """The contract's Valid, read literally: after each assistant message with calls come exactly its
    results, one per call in call order; no other result anywhere; ids unique."""
    ids = [c.id for m in messages if m.role == "assistant" for c in m.tool_calls]
    if len(ids) != len(set(ids)):
        return False
    i = 0
    while i < len(messages):
        m = messages[i]
        if m.role == "tool":
            return False
        if m.role == "assistant" and m.tool_calls:
            answers = messages[i + 1 : i + 1 + len(m.tool_calls)]
            if [(r.role, r.tool_call_id) for r in answers] != [("tool", c.id) for c in m.tool_calls]:
                return False
            i += len(m.tool_calls)
        i += 1
    return True


@given(histories())
@example([A("x"), T("x"), T("x")])
@example([A("x", "x"), T("x"), T("x")])
@example([A("", ""), T(""), T("")])
@example([A("x", "y"), T("y"), T("x")])
@NO_DEADLINE
def test_violations_agree_with_the_definition(messages: list[Message]) -> None:
    found = violations(messages)
    assert (found == []) == is_valid(messages)
    assert all(0 <= v.index < len(messages) for v in found)
    assert [v.index for v in found] == sorted(v.index for v in found)


@given(turns())
@NO_DEADLINE
def test_violations_agree_on_single_turns(messages: list[Message]) -> None:
    assert (violations(messages) == []) == is_valid(messages)


@given(histories())
@NO_DEADLINE
def test_every_problem_is_one_line(messages: list[Message]) -> None:
    for v in violations(messages):
        assert v.problem and "\n" not in v.problem
        assert v.to_json() == {"index": v.index, "problem": v.problem, "call_id": v.call_id}


def test_valid_histories() -> None:
    assert violations([]) == []
    assert violations([U(), Message("assistant", "hello")]) == []
    assert violations([U(), A("x", "y"), T("x"), T("y"), U(), A("z"), T("z"), Message("assistant", "done")]) == []


def test_a_repaired_history_is_valid() -> None:
    broken = [T("q"), A("x", "x"), U(), T("x"), Message("assistant", ""), A("x")]
    assert violations(broken) != []
    assert violations(repair(broken).messages) == []


def _problems(messages: list[Message]) -> list[tuple[int, str | None]]:
    return [(v.index, v.call_id) for v in violations(messages)]


def test_missing_result() -> None:
    found = violations([A("x", "y"), T("x")])
    assert [(v.index, v.call_id) for v in found] == [(0, "y")]
    assert "no result" in found[0].problem


def test_duplicate_ids_across_messages() -> None:
    found = violations([A("x"), T("x"), A("x"), T("x")])
    assert [(v.index, v.call_id) for v in found] == [(2, "x")]
    assert "[0]" in found[0].problem


def test_duplicate_ids_in_one_message() -> None:
    found = violations([A("x", "x"), T("x"), T("x")])
    assert (0, "x") in [(v.index, v.call_id) for v in found]


def test_results_out_of_call_order() -> None:
    found = violations([A("x", "y"), T("y"), T("x")])
    assert found and found[0].index == 0
    assert "order" in found[0].problem


def test_result_after_a_steer() -> None:
    found = violations([A("x"), U(), T("x")])
    assert _problems([A("x"), U(), T("x")]) == [(0, "x"), (2, "x")]
    assert "not right after" in found[1].problem


def test_result_outside_any_turn() -> None:
    found = violations([T("x"), U()])
    assert _problems([T("x"), U()]) == [(0, "x")]
    assert "outside" in found[0].problem


def test_result_after_text_reply_is_outside_its_calls_span() -> None:
    messages = [A("x"), Message("assistant", "thinking"), T("x")]
    assert _problems(messages) == [(0, "x"), (2, "x")]


def test_placeholder_between_call_and_result_breaks_directly_after() -> None:
    messages = [A("x"), Message("assistant", ""), T("x")]
    assert not is_valid(messages)
    assert violations(messages) != []


def test_second_result() -> None:
    found = violations([A("x"), T("x"), T("x")])
    assert [(v.index, v.call_id) for v in found] == [(2, "x")]
    assert "second result" in found[0].problem


def test_result_for_no_call_of_its_turn() -> None:
    found = violations([A("x"), T("x"), T("q")])
    assert [(v.index, v.call_id) for v in found] == [(2, "q")]
    assert "no call" in found[0].problem


def test_missing_ids_are_named() -> None:
    found = violations([Message("tool", "lost")])
    assert "(no id)" in found[0].problem


def test_a_result_cut_off_from_its_call_names_the_call_and_what_ended_its_turn() -> None:
    messages = [U(), A("x"), Message("assistant", ""), T("x")]
    found = [v for v in violations(messages) if v.index == 3]
    assert len(found) == 1
    assert found[0].problem == (
        "result for x is outside its call's turn: the call is at [1], and the assistant message at [2] ends that turn"
    )
    later = [A("x"), Message("assistant", "hm"), A("y"), T("y"), Message("assistant", "ok"), T("x")]
    assert "the call is at [0], and the assistant message at [1]" in violations(later)[-1].problem
