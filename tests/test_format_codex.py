"""Codex CLI rollout JSONL: detection, history rebuilding, export as Responses input, repair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suture.formats import CERTAIN, detect, dump, load_bytes, load_file
from suture.formats.codex import ADAPTER
from suture.io import parse_document
from suture.model import Transcript, text_of
from suture.repair import ChangeKind, repair
from suture.validity import violations
from tests.helpers.documents import exercise_near_valid, json_values

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "codex"
CLEAN = SAMPLES / "clean-rollout.jsonl"
BROKEN = SAMPLES / "broken-resumed.jsonl"

META = {
    "timestamp": "2026-11-18T09:14:02.118Z",
    "type": "session_meta",
    "payload": {"id": "019a9b2e", "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.61.0"},
}


def rec(kind: str, payload: Any, ts: str = "2026-11-18T09:14:03.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def fc(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": call_id}


def out(call_id: str, text: str = "a.txt") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def jsonl(*records: Any) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def load(*records: Any) -> Transcript:
    """The transcript of a rollout of ``records``, its bad lines named in ``problems``."""
    return load_bytes(jsonl(*records), skip_bad_lines=True)


def history_items(path: Path) -> list[Any]:
    """The response_item payloads of a rollout, in file order (what a clean file's history is)."""
    records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return [r["payload"] for r in records if r["type"] == "response_item"]


# -- detection ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_samples_are_detected_as_codex(path: Path) -> None:
    detection = detect(parse_document(path.read_bytes()))
    assert detection.adapter.name == "codex"
    assert detection.score == CERTAIN


def test_a_one_line_rollout_is_still_codex() -> None:
    # A single line parses as one JSON value, not as JSONL.
    t = load_bytes(orjson.dumps(META) + b"\n")
    assert t.format == "codex" and t.messages == []


def test_legacy_rollout_with_header_and_state_lines() -> None:
    data = jsonl(
        {"id": "44444444-4444", "timestamp": "2025-05-01T10:00:00Z", "instructions": ""},
        msg("user", "open it"),
        {"record_type": "state"},
        msg("assistant", "opened"),
    )
    doc = parse_document(data)
    assert ADAPTER.sniff(doc) == CERTAIN
    t = load_bytes(data)
    assert t.format == "codex"
    assert [(m.role, text_of(m.content)) for m in t.messages] == [("user", "open it"), ("assistant", "opened")]
    assert [m.source.line for m in t.messages if m.source] == [2, 4]


def test_legacy_json_rollout_with_session_and_items() -> None:
    data = orjson.dumps({"session": {"id": "s1", "timestamp": "2025-04-01"}, "items": [msg("user", "hi"), fc("c1")]})
    t = load_bytes(data)
    assert t.format == "codex"
    assert [m.role for m in t.messages] == ["user", "assistant"]
    assert str(t.messages[1].source) == "items[1]"


@pytest.mark.parametrize(
    "data",
    [
        jsonl({"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}),  # chat JSONL
        jsonl({"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1", "sessionId": "s"}),
        jsonl({"type": "session", "id": "x", "cwd": "/p"}, {"type": "message", "id": "a", "message": {}}),
    ],
)
def test_other_session_logs_are_not_codex(data: bytes) -> None:
    assert ADAPTER.sniff(parse_document(data)) == 0


# -- load -----------------------------------------------------------------------------------------


def test_clean_rollout_history_is_the_response_items_once() -> None:
    t = load_file(CLEAN)
    assert t.format == "codex" and t.raw_format == "responses"
    texts = [text_of(m.content) for m in t.messages if m.role == "user"]
    prompt = "The monthly report rounds amounts wrong. Find out why and fix it."
    # The event_msg user_message repeats the prompt: it must not be counted a second time.
    assert texts.count(prompt) == 1
    assert all(m.source is not None and m.source.line is not None for m in t.messages)
    calls = [c.id for m in t.messages for c in m.tool_calls]
    assert calls == ["call_xSj8mYq2VdN4kR7pLw1Bz3Tc", "call_Pz4nWq8LxT2mKb6sRv0Yc9Hd", "call_Hk2vRn7QpX5sLm9Tz1Wb4Ye6"]
    assert repair(t.messages).changes == []
    assert violations(t.messages) == []


def test_source_is_the_line_number() -> None:
    t = load(META, rec("response_item", msg("user", "hi")), rec("event_msg", {"type": "user_message", "message": "hi"}))
    assert [m.source.line for m in t.messages if m.source] == [2]


def test_compacted_replacement_history_replaces_what_came_before() -> None:
    t = load(
        META,
        rec("response_item", msg("user", "first")),
        rec("response_item", msg("assistant", "answer one")),
        rec("compacted", {"message": "summary", "replacement_history": [msg("user", "first"), msg("user", "summary")]}),
        rec("response_item", msg("user", "second")),
    )
    assert [text_of(m.content) for m in t.messages] == ["first", "summary", "second"]
    assert [str(m.source) for m in t.messages] == [
        "line 4, replacement_history[0]",
        "line 4, replacement_history[1]",
        "line 5",
    ]


def test_compacted_without_replacement_keeps_user_messages_and_the_summary() -> None:
    t = load(
        META,
        rec("response_item", msg("user", "first")),
        rec("response_item", msg("assistant", "answer one")),
        rec("compacted", {"message": "what happened so far"}),
        rec("response_item", msg("user", "second")),
    )
    assert [(m.role, text_of(m.content)) for m in t.messages] == [
        ("user", "first"),
        ("user", "what happened so far"),
        ("user", "second"),
    ]


def test_thread_rollback_drops_the_last_user_turns() -> None:
    t = load(
        META,
        rec("response_item", msg("user", "one")),
        rec("response_item", msg("assistant", "1")),
        rec("response_item", msg("user", "two")),
        rec("response_item", msg("assistant", "2")),
        rec("event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
        rec("response_item", msg("user", "three")),
    )
    assert [text_of(m.content) for m in t.messages] == ["one", "1", "three"]


def test_error_events_are_evidence_not_history() -> None:
    t = load_file(BROKEN)
    assert [s.line for s, _ in t.evidence] == [19]
    assert t.evidence[0][1].startswith("stream disconnected before completion")
    assert all("stream disconnected" not in text_of(m.content) for m in t.messages)


@pytest.mark.parametrize(
    ("shape", "line", "said"),
    [
        ("overloaded-5xx", 15, "unexpected status 529 <unknown status code>: The server is overloaded."),
        ("stream-cut-after-call", 11, "stream disconnected before completion: Transport error"),
    ],
)
@pytest.mark.parametrize("version", ["0.169.0", "0.171.0"])
def test_a_turn_that_ended_on_an_error_is_evidence(version: str, shape: str, line: int, said: str) -> None:
    # Codex writes the provider's error into the turn's end event (task_complete's error), with no
    # error event of its own: that is the error the session stopped on.
    path = SAMPLES.parent / "recorded" / f"codex-{version}" / shape / "session.jsonl"
    t = load_file(path)
    assert [s.line for s, _ in t.evidence] == [line]
    assert t.evidence[0][1].startswith(said)
    # A turn that ended well (error null) is no evidence.
    clean = load(
        META,
        rec("response_item", msg("user", "one")),
        rec("event_msg", {"type": "task_complete", "error": None, "last_agent_message": "1"}),
    )
    assert clean.evidence == []


def test_ghost_snapshots_and_unknown_records_are_not_history() -> None:
    t = load(
        META,
        rec("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
        rec("future_record", {"x": 1}),
        rec("response_item", msg("user", "hi")),
    )
    assert [m.role for m in t.messages] == ["user"]


def test_a_payload_that_is_no_item_is_a_named_problem() -> None:
    t = load(META, rec("response_item", {"nothing": True}), rec("response_item", msg("user", "hi")))
    assert [p.line for p in t.problems] == [2]
    assert [m.role for m in t.messages] == ["user"]


def test_a_pending_last_line_is_a_problem_except_to_the_live_reader() -> None:
    data = jsonl(META, rec("response_item", msg("user", "hi"))) + b'{"timestamp":"2026-11-18T09:14'
    t = ADAPTER.load(parse_document(data, live=True))
    assert t.problems == [] and [m.role for m in t.messages] == ["user"]
    t = load_bytes(data, skip_bad_lines=True)
    assert [p.line for p in t.problems] == [3] and [m.role for m in t.messages] == ["user"]


# -- export ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [CLEAN], ids=lambda p: p.name)
def test_clean_rollout_exports_its_items_unchanged(path: Path) -> None:
    t = load_file(path)
    exported = orjson.loads(dump(t.messages, t))
    items = history_items(path)
    assert exported == items
    assert orjson.dumps(exported) == orjson.dumps(items)  # same key order
    again = load_bytes(dump(t.messages, t))
    assert again.format == "responses"


def test_broken_rollout_repairs_into_valid_responses_input() -> None:
    t = load_file(BROKEN)
    result = repair(t.messages)
    assert [(c.kind, c.call_id) for c in result.changes] == [
        (ChangeKind.SYNTHETIC_INTERRUPT, "call_Tu9vW1xY3zA5bC7dE9fG1hJ3"),
        (ChangeKind.SYNTHETIC_INTERRUPT, "call_Mn5oP7qR9sT1uV3wX5yZ7aB9"),
    ]
    items = orjson.loads(dump(result.messages, t))
    by_type = [i["type"] for i in items]
    assert by_type.count("function_call_output") == 3
    # The compacted history comes first, then the resumed turn; the reasoning item still leads
    # the local shell call it belongs to, and that call's made-up output follows it.
    assert by_type[-3:] == ["reasoning", "local_shell_call", "function_call_output"]
    assert items[-1]["call_id"] == "call_Mn5oP7qR9sT1uV3wX5yZ7aB9"
    back = load_bytes(orjson.dumps(items), "responses")
    assert violations(back.messages) == []


def test_to_codex_is_written_back_not_dumped() -> None:
    """A rollout is written only by ``write_back`` (what ``suture repair`` writes, every line it
    leaves alone kept): ``dump`` refuses it rather than write a rollout of the history alone."""
    from suture.io import InputError
    from suture.writeback import write_back

    data = BROKEN.read_bytes()
    t = load_bytes(data)
    result = repair(t.messages)
    for read_from in (None, data):
        with pytest.raises(InputError, match=r"not a Codex session log: suture\.writeback\.write_back"):
            dump(result.messages, t, "codex", read_from)
    written = write_back(data, t, result).data
    again = load_bytes(written)
    assert again.format == "codex"
    assert repair(again.messages).changes == []


# -- live: appended lines ---------------------------------------------------------------------------


def _doc(records: list[Any]) -> Any:
    return parse_document(jsonl(*records))


@pytest.mark.parametrize("path", sorted(SAMPLES.iterdir()), ids=lambda p: p.name)
def test_extend_at_every_line_equals_a_full_load(path: Path) -> None:
    records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    whole = ADAPTER.load(_doc(records))
    for cut in range(1, len(records)):
        before = ADAPTER.load(_doc(records[:cut]))
        step = ADAPTER.extend(before, _doc(records), cut)
        if step is None:
            # Only a line that rewrites the history (a compaction) asks for a full load.
            assert any(r["type"] == "compacted" for r in records[cut:])
            continue
        after, changed = step
        assert after.messages == whole.messages
        assert after.problems == whole.problems and after.evidence == whole.evidence
        assert after.messages[:changed] == before.messages[:changed]
        assert changed >= len(before.messages) - 1


def test_a_tail_reads_appended_rollout_lines_as_an_append(tmp_path: Path) -> None:
    from suture.tail import Tail

    path = tmp_path / "rollout.jsonl"
    path.write_bytes(jsonl(META, rec("response_item", msg("user", "go")), rec("response_item", fc("c1"))))
    tail = Tail(path)
    assert tail.poll().kind == "full"
    with open(path, "ab") as f:
        f.write(jsonl(rec("response_item", fc("c2")), rec("response_item", out("c1"))))
    update = tail.poll()
    assert update.kind == "append"
    assert [c.id for c in update.transcript.messages[1].tool_calls] == ["c1", "c2"]
    assert update.repair.messages == repair(load_file(path).messages).messages


_POOL = [
    rec("response_item", msg("user", "go")),
    rec("response_item", msg("assistant", "on it")),
    rec("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"}),
    rec("response_item", fc("c1")),
    rec("response_item", fc("c2")),
    rec("response_item", out("c1")),
    rec("response_item", out("c2")),
    rec("response_item", {"type": "ghost_snapshot", "ghost_commit": {}}),
    rec("response_item", {"not": "an item"}),
    rec("event_msg", {"type": "user_message", "message": "go"}),
    rec("event_msg", {"type": "error", "message": "unexpected status 400"}),
    rec("event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
    rec("turn_context", {"model": "gpt-5.1-codex"}),
    rec("compacted", {"message": "summary"}),
    rec("compacted", {"message": "s", "replacement_history": [msg("user", "go"), fc("c1")]}),
    "not a record",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(range(len(_POOL))), min_size=2, max_size=14), st.data())
def test_extend_equals_a_full_load_for_any_appended_lines(picks: list[int], data: st.DataObject) -> None:
    records = [META, *(_POOL[i] for i in picks)]
    cut = data.draw(st.integers(1, len(records) - 1))
    whole = ADAPTER.load(_doc(records))
    before = ADAPTER.load(_doc(records[:cut]))
    step = ADAPTER.extend(before, _doc(records), cut)
    if step is None:
        return
    after, changed = step
    assert after.messages == whole.messages
    assert after.problems == whole.problems and after.evidence == whole.evidence
    assert after.messages[:changed] == before.messages[:changed]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(SAMPLES.iterdir())), st.data(), json_values, st.booleans())
def test_near_valid_samples_load_or_say_why(path: Path, data: st.DataObject, value: Any, drop: bool) -> None:
    exercise_near_valid(path, "codex", data, value, drop)


def test_message_items_with_unusual_parts_are_still_history() -> None:
    odd = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hello"}]}
    t = load(META, rec("response_item", msg("user", "hi")), rec("response_item", odd))
    assert t.problems == []
    assert [text_of(m.content) for m in t.messages] == ["hi", "hello"]
    exported = dump(t.messages, t)
    assert orjson.loads(exported)[1] == odd
    assert load_bytes(exported).format == "responses"


def test_a_line_with_no_timestamp_is_skipped_as_codex_skips_it() -> None:
    """Codex reads a rollout line back only when it has a top-level timestamp: an output added
    without one answers nothing Codex sends."""
    added = {"type": "response_item", "payload": out("c1")}
    t = load(META, rec("response_item", msg("user", "hi")), rec("response_item", fc("c1")), added)
    assert [m.role for m in t.messages] == ["user", "assistant"]
    assert [(s.source.line, s.kind) for s in t.skipped] == [(4, "no_timestamp")]
    assert t.meta["agent_version"] == "0.61.0"
