"""``suture.checks.explain.resolve`` (a pointer a person types) and what ``explain`` says about an
error that belongs to another request."""

from __future__ import annotations

from pathlib import Path

import pytest

import suture
from suture.checks._wire import items, turns
from suture.checks.explain import explain, resolve
from suture.model import Message, ToolCall

ROOT = Path(__file__).resolve().parent.parent
PARALLEL = ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"
RESPONSES = ROOT / "sample_sessions" / "responses" / "clean-request.json"

HISTORY = [
    Message("system", "be brief"),
    Message("user", "hi"),
    Message("assistant", None, (ToolCall("a", "ls"), ToolCall("b", "cat"))),
    Message("tool", "1", tool_call_id="a"),
    Message("tool", "2", tool_call_id="b"),
    Message("user", "thanks"),
    Message("assistant", "done"),
]


@pytest.mark.parametrize(
    ("typed", "provider", "indices"),
    [
        ("#3", None, [3]),
        ("# 6", None, [6]),
        ("messages.0", "anthropic", [1]),  # the system prompt is not a message for Anthropic
        ("messages.2", "anthropic", [3, 4, 5]),  # results and the user text after them: one message
        ("messages[2]", "openai-chat", [2]),  # chat providers count every message
        ("messages.2.content.1", "anthropic", [3, 4, 5]),
        ("contents[1]", None, [2]),
        ("messages.9", "anthropic", []),
        ("#99", None, []),
    ],
)
def test_pointers_lead_to_the_messages_a_provider_means(typed: str, provider: str | None, indices: list[int]) -> None:
    assert turns(HISTORY)[2].members == [3, 4, 5]
    assert resolve(HISTORY, typed, provider).indices == indices


def test_input_items_count_as_the_responses_api_does() -> None:
    transcript = suture.load_file(RESPONSES)
    listed = items(transcript.messages)
    for n, item in enumerate(listed):
        assert resolve(transcript.messages, f"input[{n}]").indices == [item.source]
        assert resolve(transcript.messages, f"messages.{n}", "openai-responses").indices == [item.source]
    assert "of" in resolve(transcript.messages, f"input[{len(listed)}]").said


def test_line_numbers_find_merged_lines_and_the_next_message() -> None:
    transcript = suture.load_file(PARALLEL)
    messages = transcript.messages
    merged = next(i for i, m in enumerate(messages) if m.source and "merged" in (m.source.pointer or ""))
    assert str(messages[merged].source) == "line 4, merged with lines 5, 6, 9"
    for line in (4, 5, 6, 9):
        assert resolve(messages, f"line {line}").indices == [merged]
        assert resolve(messages, str(line)).indices == [merged]
    first = messages[0].source
    assert first is not None and first.line is not None and first.line > 1
    before = resolve(messages, "line 1")
    assert before.indices == [0] and f"the next one read is on line {first.line}" in before.said
    assert resolve(messages, "line 100000").indices == []


PI = ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl"


def test_a_line_the_agent_does_not_send_is_said_to_hold_what_it_holds(tmp_path: Path) -> None:
    from suture.sent.numbered import sent_request

    # Line 33 of the pi session is a failed turn pi does not send; line 34 is the next message.
    transcript = suture.load_file(PI)
    (failed,) = [s for s in transcript.skipped if s.source.line == 33]
    request = sent_request(transcript)
    found = resolve(transcript.messages, "line 33", "anthropic", request, where_listed="s lists it")
    nxt = next(i for i, m in enumerate(transcript.messages) if m.source is not None and m.source.line == 34)
    assert found.indices == [nxt] and found.nearest and found.record == failed
    assert found.said == (
        "line 33 holds a turn that ended with stopReason 'error': pi does not send it and its 16 calls "
        "(s lists it); the next message read is on line 34"
    )
    assert resolve(transcript.messages, "33", None, request).said.startswith("line 33 holds a turn that ended")
    # A line that holds a message is the message; one that holds nothing sent or kept says so.
    assert resolve(transcript.messages, "line 34", None, request) == resolve(transcript.messages, "line 34")
    assert "holds no message" in resolve(transcript.messages, "line 1", None, request).said
    # Where no message is read after the record, the last one before it is where it leads.
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(PI.read_bytes().splitlines(keepends=True)[:33]))
    cut_transcript = suture.load_file(cut)
    last = max(i for i, m in enumerate(cut_transcript.messages) if m.source is not None)
    line = cut_transcript.messages[last].source
    assert line is not None
    found = resolve(cut_transcript.messages, "line 33", None, sent_request(cut_transcript))
    assert found.indices == [last] and found.said.endswith(f"; the last message read before it is on line {line.line}")


def test_something_else_is_not_a_pointer() -> None:
    found = resolve(HISTORY, "hello")
    assert found.indices == [] and "not a pointer" in found.said


A1 = "messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: {id}."


def test_an_error_about_another_request_names_what_is_missing() -> None:
    broken = [*HISTORY[:3], Message("user", "stop"), *HISTORY[3:]]
    here = explain(broken, A1.format(n=2, id="b"))
    assert here.found and here.flagged and here.fixed and not here.absent
    assert here.verdict().startswith("Repair: fixes it:")
    elsewhere = explain(broken, A1.format(n=2, id="zzz"))
    assert not elsewhere.found and elsewhere.absent == ["id zzz"] and elsewhere.indices == []
    assert elsewhere.changes == []
    assert elsewhere.verdict().startswith("not in this file: wrong file, or a different request?")
    past = explain(broken, A1.format(n=40, id="b"))
    assert past.absent == ["index 40 (this history makes 5 messages)"]


def test_a_verdict_never_contradicts_itself() -> None:
    # Every rule's first error text, on a history that breaks it and one that does not.
    from suture.checks.rules import RULES

    for rule in RULES.values():
        for text in rule.errors[:1]:
            for history in (HISTORY, HISTORY[:3]):
                said = explain(history, text.replace("{N}", "2").replace("{id}", "a")).verdict()
                if "does not fix" in said:
                    assert rule.repair_does not in said or not rule.repair_does, (rule.id, said)


WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"


@pytest.mark.parametrize(
    ("path", "typed", "indices"),
    [
        (WORKED, "$[7]", [7]),  # a JSON document's place, as the info line and the details say it
        (WORKED, " $[ 5 ] ", [5]),
        (WORKED, "$[99]", []),
        (PARALLEL, "line 8, message.content[0]", [2]),  # a session log's place, as shown
    ],
)
def test_the_places_the_app_shows_are_pointers(path: Path, typed: str, indices: list[int]) -> None:
    messages = suture.load_file(path).messages
    found = resolve(messages, typed)
    assert found.understood and found.indices == indices, found
    for i in indices:
        assert "".join(typed.split()) in "".join(str(messages[i].source).split())


@pytest.mark.parametrize(
    ("typed", "provider", "said"),
    [
        ("input[3]", "openai-chat", "input[3] (counted as OpenAI Responses input items)"),
        ("input[3]", "openai-responses", "input[3]"),
        ("contents[1]", "anthropic", "contents[1] (counted as Gemini contents)"),
        ("contents[1]", "gemini", "contents[1]"),
    ],
)
def test_a_pointer_counted_in_another_providers_layout_says_so(typed: str, provider: str, said: str) -> None:
    found = resolve(HISTORY, typed, provider)
    assert found.indices and found.said == said
    assert found.elsewhere == (said != typed)
