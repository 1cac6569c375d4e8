"""Claude Code session JSONL: detection, merging of split responses, evidence, compaction, export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suture
from suture.cli._common import load_strict
from suture.formats import CERTAIN, detect, dump, get, load_bytes
from suture.formats import essences as _essences
from suture.io import InputError, parse_document
from suture.model import Message
from suture.repair import ChangeKind, interrupted_text, repair
from tests.helpers.documents import break_at, key_paths

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "claude-code"
PARALLEL = SAMPLES / "parallel-calls.jsonl"
INTERRUPTED = SAMPLES / "interrupted-then-api-error.jsonl"
COMPACTED = SAMPLES / "compacted.jsonl"


def essences(messages: list[Message]) -> list[dict[str, Any]]:
    return [e for _, e in _essences(messages)]


def jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def test_samples_are_detected_for_certain() -> None:
    for path in SAMPLES.iterdir():
        found = detect(parse_document(path.read_bytes()))
        assert (found.adapter.name, found.score) == ("claude-code", CERTAIN), path


def test_lines_of_one_response_merge_even_with_results_between_them() -> None:
    t = suture.load_file(PARALLEL)
    assert t.raw_is("messages") and get(t.format).export_format == "messages"
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    call = t.messages[1]
    assert str(call.source) == "line 4, merged with lines 5, 6, 9"
    assert [c.name for c in call.tool_calls] == ["Bash", "Read"]
    assert [type(p).__name__ for p in call.content or []] == ["TextPart", "ThinkingPart"]
    assert [str(m.source) for m in t.messages[2:4]] == ["line 8, message.content[0]", "line 10, message.content[0]"]
    assert [m.tool_call_id for m in t.messages[2:4]] == [c.id for c in call.tool_calls]
    result = repair(t.messages)
    assert result.changes == []


def test_export_is_an_anthropic_messages_request_with_results_in_one_user_message() -> None:
    t = suture.load_file(PARALLEL)
    out = orjson.loads(dump(repair(t.messages).messages, t))
    assert [r["role"] for r in out] == ["user", "assistant", "user", "assistant"]
    assert set(out[1]) == {"role", "content"}
    assert [b["type"] for b in out[1]["content"]] == ["text", "thinking", "tool_use", "tool_use"]
    assert [b["type"] for b in out[2]["content"]] == ["tool_result", "tool_result"]
    back = load_bytes(orjson.dumps(out))
    assert back.format == "messages"
    assert essences(back.messages) == essences(t.messages)
    assert repair(back.messages).changes == []


def test_api_errors_are_evidence_and_the_interrupted_call_is_repaired() -> None:
    t = suture.load_file(INTERRUPTED)
    assert len(t.evidence) == 1
    source, text = t.evidence[0]
    assert source.line == 8
    assert "tool_use` ids were found without `tool_result`" in text
    assert all(m.raw.get("content") != text for m in t.messages if isinstance(m.raw, dict))
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "user", "user"]
    result = repair(t.messages)
    assert [(c.kind, c.input_index) for c in result.changes] == [(ChangeKind.SYNTHETIC_INTERRUPT, 1)]
    out = orjson.loads(dump(result.messages, t))
    assert [r["role"] for r in out] == ["user", "assistant", "user", "user"]
    assert out[2]["content"] == [
        {
            "tool_use_id": "toolu_01Qw5ErTy7UiOp3AsDf6GhJk",
            "type": "tool_result",
            "content": t.messages[2].content,
            "is_error": False,
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01Zx9CvBn4MqWe2RtYu8IoPl",
            "content": interrupted_text("Bash", False),
        },
        {"type": "text", "text": "[Request interrupted by user for tool use]"},
    ]
    assert out[3] == {"role": "user", "content": "skip the tests, just check the migration"}


def test_the_history_of_a_compacted_session_starts_at_its_summary() -> None:
    t = suture.load_file(COMPACTED)
    assert [m.role for m in t.messages] == ["user", "assistant", "tool"]
    assert isinstance(t.messages[0].content, str) and t.messages[0].content.startswith(
        "This session is being continued"
    )
    assert t.meta["compacted"] == {
        "line": 4,
        "records_before": 2,
        "before": [(1, "user"), (2, "assistant"), (3, "queue-operation")],
    }
    assert repair(t.messages).changes == []


def _record(kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": f"u{len(extra)}", "sessionId": "s", "isSidechain": False, "message": message, **extra}


def test_sidechain_records_in_a_main_file_are_skipped_and_a_subagent_file_loads() -> None:
    main = [
        _record("user", {"role": "user", "content": "main task"}),
        _record("user", {"role": "user", "content": "subagent prompt"}, isSidechain=True),
        _record("assistant", {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
    ]
    t = load_bytes(jsonl(main))
    assert [m.content for m in t.messages if m.role == "user"] == ["main task"]
    sub = [{**r, "isSidechain": True} for r in main]
    t = load_bytes(jsonl(sub))
    assert t.meta["sidechain"] is True
    assert [m.role for m in t.messages] == ["user", "user", "assistant"]


def test_a_bad_record_is_a_named_problem() -> None:
    data = jsonl(
        [
            _record("user", {"role": "user", "content": "hi"}),
            _record("assistant", {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": 5}]}),
            {"type": "assistant", "uuid": "x", "sessionId": "s", "message": "not an object"},
        ]
    )
    t = load_bytes(data, skip_bad_lines=True)
    assert [(p.line, p.message) for p in t.problems] == [
        (2, "message.content[0].id: must be a string, got a number"),
        (3, "the assistant record needs a message object, got a string"),
    ]


def test_load_strict_refuses_bad_records(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl([_record("user", {"role": "user", "content": 3})]))
    with pytest.raises(InputError) as info:
        load_strict(str(path))
    assert "line 1" in str(info.value)


def test_claude_code_is_not_written_by_dump() -> None:
    t = suture.load_file(PARALLEL)
    with pytest.raises(InputError) as info:
        dump(t.messages, t, to="claude-code")
    assert "suture.writeback.write_back" in str(info.value) and "--" not in str(info.value)


# -- property: however Claude Code splits a response and interleaves results, the loader pairs -----


@st.composite
def sessions(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[Message]]:
    """A Claude Code file of complete turns, each response written one block a line, each result
    written at any point after its call's line (also between lines of the same response), with
    progress records sprinkled in; and the neutral history it stands for."""
    lines: list[dict[str, Any]] = []
    expected: list[Message] = []
    n = 0
    for turn in range(draw(st.integers(1, 4))):
        lines.append(_record("user", {"role": "user", "content": f"task {turn}"}))
        expected.append(Message("user", f"task {turn}"))
        mid = f"msg_{turn}"
        calls = draw(st.integers(0, 3))
        text = draw(st.booleans()) or calls == 0
        blocks: list[dict[str, Any]] = [{"type": "text", "text": f"reply {turn}"}] if text else []
        ids = []
        for _ in range(calls):
            n += 1
            ids.append(f"toolu_{n:02d}")
            blocks.append({"type": "tool_use", "id": ids[-1], "name": "Bash", "input": {"n": n}})
        # Place each block's line, then each result after its call's line.
        events: list[tuple[float, dict[str, Any]]] = []
        for k, block in enumerate(blocks):
            events.append((k, _record("assistant", {"id": mid, "role": "assistant", "content": [block]})))
            if draw(st.booleans()):
                events.append((k + 0.1, {"type": "progress", "uuid": "p", "sessionId": "s", "data": {}}))
        first_call = len(blocks) - len(ids)
        for j, call_id in enumerate(ids):
            at = draw(st.floats(first_call + j + 0.2, len(blocks) + 1, allow_nan=False))
            result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "ok"}]}
            events.append((at, _record("user", result)))
        events.sort(key=lambda e: e[0])
        lines.extend(r for _, r in events)
        expected.append(Message("assistant", [], ()))  # filled below from the blocks
        expected[-1] = _neutral_assistant(blocks)
        result_order = [r["message"]["content"][0]["tool_use_id"] for _, r in events if r["type"] == "user"]
        expected.extend(Message("tool", "ok", tool_call_id=i) for i in result_order)
    return lines, expected


def _neutral_assistant(blocks: list[dict[str, Any]]) -> Message:
    t = load_bytes(orjson.dumps([{"role": "assistant", "content": blocks}]), "messages")
    return t.messages[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_split_responses_always_pair_with_their_results(session: tuple[list[dict[str, Any]], list[Message]]) -> None:
    lines, expected = session
    t = load_bytes(jsonl(lines))
    assert t.format == "claude-code"
    assert essences(t.messages) == essences(expected)
    kinds = {c.kind for c in repair(t.messages).changes}
    assert kinds <= {ChangeKind.MOVED_RESULT}


# -- near-valid files: one thing broken anywhere loads or says why, and what loads exports ------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(("type", "id", "text", "content", "role")), inner, max_size=3)
    ),
    max_leaves=8,
)


_RECORDS = [orjson.loads(line) for path in (PARALLEL, INTERRUPTED) for line in path.read_bytes().splitlines()]
_RECORD_PATHS = [p for p in key_paths(_RECORDS) if len(p) > 1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_RECORD_PATHS), _json, st.booleans())
def test_near_valid_sessions_load_or_say_why(path: tuple[Any, ...], value: Any, drop: bool) -> None:
    records = orjson.loads(orjson.dumps(_RECORDS))
    break_at(records, path, value, drop)
    try:
        t = load_bytes(jsonl(records), "claude-code")
    except InputError as e:
        assert "\n" not in str(e)
        return
    result = repair(t.messages)
    back = load_bytes(dump(result.messages, t), "messages")
    assert essences(back.messages) == essences(result.messages)


# -- live tail: appended lines give what a full load of the file gives ---------------------------


def _same(a: Any, b: Any) -> None:
    assert [(m.role, str(m.source), m.raw) for m in a.messages] == [(m.role, str(m.source), m.raw) for m in b.messages]
    assert essences(a.messages) == essences(b.messages)
    assert a.evidence == b.evidence


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.data())
def test_appended_lines_extend_to_what_a_full_load_gives(
    session: tuple[list[dict[str, Any]], list[Message]], data: st.DataObject
) -> None:
    lines, _ = session
    cut = data.draw(st.integers(1, len(lines)))
    adapter = get("claude-code")
    before = adapter.load(parse_document(jsonl(lines[:cut])))
    whole = parse_document(jsonl(lines))
    extended = adapter.extend(before, whole, cut)  # type: ignore[attr-defined]
    full = adapter.load(whole)
    assert extended is not None
    out, first = extended
    _same(out, full)
    # Messages before the first changed one are the very same as before.
    assert out.messages[:first] == before.messages[:first]
    assert first == len(before.messages) or out.messages[first] != before.messages[first]
    # And extending again from there keeps working.
    again = adapter.extend(out, whole, len(lines))  # type: ignore[attr-defined]
    assert again is not None and again[1] == len(out.messages)


def test_a_compaction_or_a_bad_line_needs_a_full_read() -> None:
    adapter = get("claude-code")
    lines = [orjson.loads(line) for line in PARALLEL.read_bytes().splitlines()]
    before = adapter.load(parse_document(jsonl(lines)))
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "b", "sessionId": "s"}
    assert adapter.extend(before, parse_document(jsonl([*lines, boundary])), len(lines)) is None  # type: ignore[attr-defined]
    bad = _record("user", {"role": "user", "content": 5})
    assert adapter.extend(before, parse_document(jsonl([*lines, bad])), len(lines)) is None  # type: ignore[attr-defined]


# -- the chain Claude Code follows ------------------------------------------------------------------


def _linked(kind: str, uuid: str, parent: str | None, message: Any = None, **extra: Any) -> dict[str, Any]:
    record = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": "2026-12-03T00:00:00Z"}
    if message is not None:
        record["message"] = message
    return {**record, **extra}


def _say(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": text}


def _use(mid: str, call: str) -> dict[str, Any]:
    return {"id": mid, "role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "Bash", "input": {}}]}


def _result(call: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": text}]}


def test_the_history_is_the_branch_that_ends_at_the_newest_record() -> None:
    """A person went back and asked again: the abandoned answer is not history."""
    records = [
        _linked("user", "u1", None, _say("user", "first try")),
        _linked("assistant", "a1", "u1", {"id": "m1", **_say("assistant", "abandoned")}),
        _linked("user", "u2", None, _say("user", "second try")),
        _linked("assistant", "a2", "u2", {"id": "m2", **_say("assistant", "kept")}),
    ]
    t = load_bytes(jsonl(records))
    assert [m.content for m in t.messages] == ["second try", "kept"]
    assert t.meta["chain"].by == "newest"


def test_a_last_prompt_names_the_leaf_when_the_newest_record_forks_off_earlier() -> None:
    records = [
        _linked("user", "u1", None, _say("user", "go")),
        _linked("assistant", "a1", "u1", {"id": "m1", **_say("assistant", "answer")}),
        _linked("user", "u2", "a1", _say("user", "and then?")),
        {"type": "last-prompt", "lastPrompt": "and then?", "leafUuid": "u2", "sessionId": "s"},
        _linked("attachment", "x1", "u1", attachment={"type": "date"}),
    ]
    t = load_bytes(jsonl(records))
    assert [m.content for m in t.messages] == ["go", "answer", "and then?"]
    assert t.meta["chain"].by == "last-prompt"
    # Without the last-prompt line, the newest record (the attachment) is the leaf.
    del records[3]
    assert [m.content for m in load_bytes(jsonl(records)).messages] == ["go"]


def test_parallel_calls_off_the_branch_and_their_results_are_all_kept() -> None:
    """As Claude Code writes parallel calls: the second call's line hangs off the first, each
    result off its own call; the branch from the newest record misses the second call and its
    result, and Claude Code still sends them."""
    records = [
        _linked("user", "u1", None, _say("user", "go")),
        _linked("assistant", "a1", "u1", _use("m1", "toolu_a")),
        _linked("assistant", "a2", "a1", _use("m1", "toolu_b")),
        _linked("user", "rb", "a2", _result("toolu_b")),
        _linked("user", "ra", "a1", _result("toolu_a")),
        _linked("assistant", "a3", "ra", {"id": "m2", **_say("assistant", "done")}),
    ]
    t = load_bytes(jsonl(records))
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [c.id for c in t.messages[1].tool_calls] == ["toolu_a", "toolu_b"]
    assert t.messages[1].source is not None and t.messages[1].source.pieces == ((2, 0), (3, 0))
    assert t.messages[1].source.lines == (2, 3)
    assert [m.tool_call_id for m in t.messages[2:4]] == ["toolu_b", "toolu_a"]
    assert {c.kind for c in repair(t.messages).changes} == {ChangeKind.MOVED_RESULT}


def test_a_text_block_before_a_result_stays_where_it_is_written() -> None:
    """Claude Code sends ``[text, tool_result]`` as written, and Anthropic rejects it (A1a)."""
    from suture.checks import check

    note = {"type": "text", "text": "Note added by hand."}
    result = {"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}
    records = [
        _linked("user", "u1", None, _say("user", "go")),
        _linked("assistant", "a1", "u1", _use("m1", "toolu_a")),
        _linked("user", "r1", "a1", {"role": "user", "content": [note, result]}),
    ]
    t = load_bytes(jsonl(records))
    assert [(m.role, str(m.source)) for m in t.messages[2:]] == [
        ("user", "line 3, message.content[0]"),
        ("tool", "line 3, message.content[1]"),
    ]
    assert t.messages[2].source is not None and t.messages[2].source.pieces == ((3, 0),)
    assert "A1a" in {v.rule for v in check(t.messages, "anthropic")}


def test_api_errors_and_virtual_records_are_skipped_but_a_synthetic_reply_is_history() -> None:
    """Claude Code writes "No response requested." itself (model ``<synthetic>``) and sends it;
    an API error record it never sends."""
    records = [
        _linked("user", "u1", None, _say("user", "go")),
        _linked(
            "assistant",
            "e1",
            "u1",
            {"id": "x", "model": "<synthetic>", **_say("assistant", "API Error: 400 bad")},
            isApiErrorMessage=True,
        ),
        _linked(
            "assistant",
            "n1",
            "e1",
            {"id": "y", "model": "<synthetic>", **_say("assistant", "No response requested.")},
            isApiErrorMessage=False,
        ),
        _linked("user", "v1", "n1", _say("user", "virtual"), isVirtual=True),
        _linked("user", "u2", "v1", _say("user", "continue")),
    ]
    t = load_bytes(jsonl(records))
    assert [m.content for m in t.messages] == ["go", "No response requested.", "continue"]
    assert [(s.source.line, s.kind) for s in t.skipped] == [(2, "api_error"), (4, "virtual")]
    assert [s.line for s, _ in t.evidence] == [2]


def test_a_compaction_that_kept_messages_starts_the_history_with_its_summary() -> None:
    """As Claude Code 2.1.x compacts: the boundary names the messages it kept (here the reply
    "No response requested."), the summary hangs off the boundary, and the records written after
    it hang off the last kept message, so the branch from the newest record runs back into the
    old conversation. The history is the summary, the kept messages, then what followed."""
    boundary = _linked(
        "system",
        "b1",
        None,
        subtype="compact_boundary",
        logicalParentUuid="a2",
        compactMetadata={
            "preservedSegment": {"headUuid": "a2", "anchorUuid": "s1", "tailUuid": "a2"},
            "preservedMessages": {"anchorUuid": "s1", "uuids": ["a2"]},
        },
    )
    records = [
        _linked("user", "u1", None, _say("user", "old question")),
        _linked("assistant", "a1", "u1", {"id": "m1", **_say("assistant", "old answer")}),
        _linked("assistant", "a2", "a1", {"id": "m2", **_say("assistant", "No response requested.")}),
        boundary,
        _linked("user", "s1", "b1", _say("user", "Summary: an old question was answered."), isCompactSummary=True),
        _linked("user", "c1", "a2", _say("user", "<local-command-stdout>Compacted</local-command-stdout>")),
    ]
    t = load_bytes(jsonl(records))
    assert [m.content for m in t.messages] == [
        "Summary: an old question was answered.",
        "No response requested.",
        "<local-command-stdout>Compacted</local-command-stdout>",
    ]
    # The answer the compaction kept (line 3) is sent: it is not among the records before it.
    assert t.meta["compacted"] == {
        "line": 4,
        "records_before": 2,
        "before": [(1, "user"), (2, "assistant")],
        "kept": [3],
    }


@pytest.mark.parametrize("role", ["", "system", "assistant", None, 3])
def test_a_user_record_is_a_user_message_whatever_its_role_says(role: Any) -> None:
    records = orjson.loads(orjson.dumps(_RECORDS))
    first_user = next(r for r in records[1:] if r.get("type") == "user" and r.get("parentUuid") is None)
    first_user["message"]["role"] = role
    t = load_bytes(jsonl(records), "claude-code")
    loaded = [m for m in t.messages if m.source is not None and m.source.line == records.index(first_user) + 1]
    assert loaded and all(m.role == "user" for m in loaded)
    result = repair(t.messages)
    back = load_bytes(dump(result.messages, t), "messages")
    assert essences(back.messages) == essences(result.messages)


def test_a_line_with_no_record_type_is_told_not_dropped_without_a_word() -> None:
    # Messages of a request format in a session (a chat JSONL a Claude Code line was appended
    # to): no Claude Code record, not sent, and said so, in line order with the other skips.
    records = [
        {"role": "user", "content": "hi"},
        _linked("user", "u1", None, _say("user", "go")),
        {"role": "assistant", "content": "hello"},
        {"note": "no role either"},
    ]
    t = load_bytes(jsonl(records), format="claude-code")
    assert [m.content for m in t.messages] == ["go"]
    assert [(s.source.line, s.kind) for s in t.skipped] == [(1, "untyped"), (3, "untyped"), (4, "untyped")]
    assert t.skipped[1].reason.startswith("an assistant message of a request format, with no record type")
    assert t.skipped[2].reason.startswith("an object, with no record type")
