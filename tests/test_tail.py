"""Incremental reload (suture.tail) and resumable repair (suture.repair.repair_from).

The contract: whatever happened to the file, a poll gives exactly what a full load and a full
repair of its current bytes give (or the same error), and an append is read as an append.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suture.formats import load_file
from suture.grown import Grown
from suture.io import InputError
from suture.model import Message, ToolCall
from suture.repair import Repair, repair, repair_from, reused
from suture.tail import Tail
from tests.helpers.app import ROOT
from tests.helpers.records import TEXT, chat_records
from tests.helpers.same import same_repair
from tests.strategies import histories

engine = sys.modules["suture.repair"]

# -- repair_from -----------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(histories(), st.lists(st.integers(0, 40), max_size=6), st.sampled_from((1, 2, 1024)), st.data())
def test_repair_from_equals_a_full_repair(history, cuts, fold, data):
    """Growing and rewriting a history step by step, each step resumed from the one before."""
    old_fold = engine._FOLD
    engine._FOLD = fold
    try:
        previous, before = repair([]), []
        for cut in [*sorted(cuts), len(history)]:
            now = history[:cut]
            changed = data.draw(st.integers(0, min(len(before), len(now))))
            while changed and before[:changed] != now[:changed]:
                changed -= 1
            got = repair_from(previous, now, changed)
            same_repair(got, repair(now))
            point = reused(previous, now, changed)
            if point is not None:
                assert got.messages[: point[1]] == previous.messages[: point[1]]
            previous, before = got, now
    finally:
        engine._FOLD = old_fold


def test_repair_from_resumes_at_the_last_span():
    """Not a full repair in disguise: the output before the last span is the previous one's."""
    history = [Message("user", "go")]
    for i in range(50):
        history.append(Message("assistant", None, (ToolCall(f"c{i}", "read_file"),)))
        history.append(Message("tool", "ok", tool_call_id=f"c{i}"))
    previous = repair(history)
    grown = [*history, Message("tool", "late", tool_call_id="c49"), Message("user", "next")]
    point = reused(previous, grown, len(history))
    assert point == (len(history) - 2, len(previous.messages) - 2)
    got = repair_from(previous, grown, len(history))
    assert all(a is b for a, b in zip(got.messages[: point[1]], previous.messages, strict=False))
    same_repair(got, repair(grown))


# -- Tail -------------------------------------------------------------------------------------------


@st.composite
def jsonl_lines(draw: st.DrawFn) -> bytes:
    """One line of a chat JSONL file: mostly records, now and then a blank, broken or odd line."""
    kind = draw(st.sampled_from(("record",) * 40 + ("blank", "blank", "broken", "odd", "nul")))
    if kind == "blank":
        return draw(st.sampled_from((b"\n", b"  \n", b"\r\n")))
    if kind == "broken":
        return b'{"role": "user", "content": "cut\n'
    if kind == "odd":
        return draw(st.sampled_from((b"[1, 2]\n", b'{"role": 3}\n', b'{"parts": []}\n', b"\xff\xfe\n")))
    if kind == "nul":
        return b'{"role": "user", "content": "\x00"}\n'
    return orjson.dumps(draw(chat_records())) + b"\n"


_HEAD = b'{"role": "system", "content": "be brief"}\n{"role": "user", "content": "go"}\n'


@st.composite
def file_stories(draw: st.DrawFn) -> list[tuple[str, bytes | int]]:
    """What happens to a file between polls: appends cut anywhere (mid-line, mid-character),
    truncations, rewrites in place and replacements by rename."""
    lines = draw(st.lists(jsonl_lines(), min_size=1, max_size=30))
    stream = _HEAD + b"".join(lines)
    cuts = sorted(draw(st.lists(st.integers(len(_HEAD) // 2, len(stream)), min_size=1, max_size=12)))
    story: list[tuple[str, bytes | int]] = []
    last = 0
    for cut in [*cuts, len(stream)]:
        story.append(("append", stream[last:cut]))
        last = cut
        if draw(st.integers(0, 9)) == 0:
            op = draw(st.sampled_from(("truncate", "rewrite", "replace")))
            if op == "truncate":
                keep = draw(st.integers(0, last))
                story.append(("truncate", keep))
                stream, last = stream[:keep] + stream[last:], keep
            else:
                other = b"".join(draw(st.lists(jsonl_lines(), min_size=1, max_size=6)))
                story.append((op, other))
                stream, last = other + stream[last:], len(other)
    return story


def expected(path: Path) -> tuple[Any, Repair | None, str | None]:
    try:
        # As the live reader loads: a bad line is named in problems, never a refusal.
        transcript = load_file(path, skip_bad_lines=True, live=True)
    except InputError as e:
        return None, None, str(e)
    return transcript, repair(transcript.messages), None


def check(tail: Tail, path: Path) -> str | None:
    transcript, result, error = expected(path)
    try:
        update = tail.poll()
    except InputError as e:
        assert error == str(e)
        return None
    assert error is None, f"a full load says {error!r}"
    assert update.transcript == transcript
    assert result is not None
    same_repair(update.repair, result)
    data = path.read_bytes()
    if update.pending_line is not None:
        assert update.pending_line == data.count(b"\n") + 1
    return update.kind


_SESSION = {"sessionId": "s1", "isSidechain": False, "cwd": "/p", "version": "2.1.38"}
_CC_IDS = ("toolu_a", "toolu_b", "toolu_c")


@st.composite
def claude_code_lines(draw: st.DrawFn) -> bytes:
    """One line of a Claude Code session: a user turn, one content block of an assistant
    response (responses share ``message.id``, so several lines make one message), a tool result,
    a progress line, now and then a compaction, a sidechain line or a broken line."""
    kind = draw(
        st.sampled_from(
            ("user", "assistant", "assistant", "assistant", "result", "result", "progress", "compact", "side", "bad")
        )
    )
    uuid = draw(st.uuids()).hex
    base: dict[str, Any] = {**_SESSION, "uuid": uuid, "parentUuid": None, "timestamp": "2026-02-10T00:00:00Z"}
    if kind == "bad" and draw(st.integers(0, 3)) == 0:
        return b'{"type": "user", "message": \n'
    if kind == "compact" and draw(st.integers(0, 3)) == 0:
        return orjson.dumps({**base, "type": "system", "subtype": "compact_boundary", "content": "compacted"}) + b"\n"
    if kind in ("progress", "bad", "compact"):
        return orjson.dumps({**base, "type": "progress", "data": {"type": "hook_progress"}}) + b"\n"
    if kind == "user" or kind == "side":
        record = {**base, "type": "user", "message": {"role": "user", "content": draw(TEXT)}}
        if kind == "side":
            record["isSidechain"] = True
        return orjson.dumps(record) + b"\n"
    if kind == "result":
        block = {"type": "tool_result", "tool_use_id": draw(st.sampled_from(_CC_IDS)), "content": draw(TEXT)}
        return orjson.dumps({**base, "type": "user", "message": {"role": "user", "content": [block]}}) + b"\n"
    block_kind = draw(st.sampled_from(("text", "tool_use", "tool_use", "thinking")))
    if block_kind == "text":
        block = {"type": "text", "text": draw(TEXT)}
    elif block_kind == "thinking":
        block = {"type": "thinking", "thinking": draw(TEXT), "signature": "sig"}
    else:
        block = {"type": "tool_use", "id": draw(st.sampled_from(_CC_IDS)), "name": "Read", "input": {}}
    message = {"id": draw(st.sampled_from(("msg_1", "msg_2", "msg_3"))), "role": "assistant", "content": [block]}
    return orjson.dumps({**base, "type": "assistant", "message": message}) + b"\n"


@st.composite
def claude_code_stories(draw: st.DrawFn) -> list[tuple[str, bytes | int]]:
    """Lines linked as Claude Code links them: each to the one before it, or past the progress
    lines before it to the line they hang off (as a tool's result and the next response do in
    a real session), now and then to an earlier one (a fork) or to none (a root), with now and
    then a ``last-prompt`` line naming a leaf, and a compaction naming the messages it kept (some
    written before it, some after); then appended in pieces cut anywhere."""
    lines = draw(st.lists(claude_code_lines(), min_size=1, max_size=30))
    every = ["u0"] + [orjson.loads(line)["uuid"] for line in lines if line.endswith(b"}\n")]
    uuids = ["u0"]
    history = ["u0"]  # (the lines that are not progress lines)
    linked = []
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            linked.append(line)
            continue
        how = draw(st.integers(0, 9))
        parents = {0: None, 1: draw(st.sampled_from(uuids)), 2: history[-1], 3: history[-1]}
        record["parentUuid"] = parents.get(how, uuids[-1])
        if record.get("subtype") == "compact_boundary" and draw(st.booleans()):
            kept = draw(st.lists(st.sampled_from(every), min_size=1, max_size=4))
            segment = {"headUuid": kept[0], "anchorUuid": kept[0], "tailUuid": draw(st.sampled_from(every))}
            record["compactMetadata"] = {"preservedSegment": segment, "preservedMessages": {"uuids": kept}}
        uuids.append(record["uuid"])
        if record.get("type") != "progress":
            history.append(record["uuid"])
        linked.append(orjson.dumps(record) + b"\n")
        if draw(st.integers(0, 7)) == 0:
            mark = {
                "type": "last-prompt",
                "lastPrompt": "go",
                "leafUuid": draw(st.sampled_from(uuids)),
                "sessionId": "s1",
            }
            linked.append(orjson.dumps(mark) + b"\n")
    head = orjson.dumps({**_SESSION, "type": "user", "uuid": "u0", "message": {"role": "user", "content": "go"}})
    stream = head + b"\n" + b"".join(linked)
    cuts = sorted(draw(st.lists(st.integers(len(head) // 2, len(stream)), min_size=1, max_size=12)))
    story: list[tuple[str, bytes | int]] = []
    last = 0
    for cut in [*cuts, len(stream)]:
        story.append(("append", stream[last:cut]))
        last = cut
    return story


def play(tmp_path: Path, story: list[tuple[str, bytes | int]]) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    tail = Tail(path)
    for op, arg in story:
        if op == "append":
            assert isinstance(arg, bytes)
            with open(path, "ab") as f:
                f.write(arg)
        elif op == "truncate":
            assert isinstance(arg, int)
            os.truncate(path, arg)
        elif op == "rewrite":
            assert isinstance(arg, bytes)
            with open(path, "r+b") as f:
                f.write(arg)
                f.truncate()
        else:
            assert isinstance(arg, bytes)
            fresh = tmp_path / "fresh.jsonl"
            fresh.write_bytes(arg)
            os.replace(fresh, path)
        check(tail, path)
    path.unlink()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file_stories())
def test_every_poll_equals_a_full_load(tmp_path, story):
    play(tmp_path, story)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claude_code_stories())
def test_every_poll_of_a_claude_code_session_equals_a_full_load(tmp_path, story):
    """Through the Claude Code adapter's extend hook: lines of one response joining it."""
    play(tmp_path, story)


def _lines(n: int, start: int = 0) -> bytes:
    out = []
    for i in range(start, start + n):
        out.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "function": {"name": "ls"}}]})
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": "é" * 40})
    return b"".join(orjson.dumps(r) + b"\n" for r in out)


def test_an_append_is_read_as_an_append(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "go"}\n' + _lines(100))
    tail = Tail(path)
    first = tail.poll()
    assert first.kind == "full"
    assert tail.poll().kind == "unchanged"
    extra = _lines(1, 100)
    with open(path, "ab") as f:
        f.write(extra[:-30])  # half a line, cut inside a two-byte character or not
    # The first of the two new lines is whole: it is read now; the cut one waits, even when the
    # cut falls inside a character.
    assert check(tail, path) == "append"
    with open(path, "ab") as f:
        f.write(extra[-30:])
    update = tail.poll()
    assert update.kind == "append"
    assert update.stable_input == 202
    # Only the last span (the call whose result was still being written) is drawn again: the
    # output before it is as it was.
    assert update.stable_output == len(first.repair.messages)
    assert update.repair.messages[: update.stable_output] == first.repair.messages
    assert check(tail, path) == "unchanged"


def _cc(kind: str, uuid: str, parent: str | None, message: dict[str, Any] | None = None) -> bytes:
    record: dict[str, Any] = {**_SESSION, "type": kind, "uuid": uuid, "parentUuid": parent}
    record.update({"message": message} if message else {"data": {"type": "bash_progress"}})
    return orjson.dumps(record) + b"\n"


def test_a_running_claude_code_session_is_read_as_appends(tmp_path):
    """As a real session is written while its tools run: progress lines hang one off the other
    from the call's line, and the result (then the next response) hangs off the call's line, so
    the progress lines leave the branch. Each write is read as an append, as a full load reads it."""
    writes = [_cc("user", "u0", None, {"role": "user", "content": "go"})]
    parent = "u0"
    for turn in range(4):
        call = {"type": "tool_use", "id": f"toolu_{turn}", "name": "Bash", "input": {}}
        writes.append(
            _cc("assistant", f"a{turn}", parent, {"id": f"msg_{turn}", "role": "assistant", "content": [call]})
        )
        writes += [_cc("progress", f"p{turn}.{k}", f"a{turn}" if k == 0 else f"p{turn}.{k - 1}") for k in range(3)]
        result = {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": "ok"}
        writes.append(_cc("user", f"r{turn}", f"a{turn}", {"role": "user", "content": [result]}))
        parent = f"r{turn}"
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(writes[:2]))
    tail = Tail(path)
    assert tail.poll().kind == "full"
    for data in writes[2:]:
        with open(path, "ab") as f:
            f.write(data)
        assert check(tail, path) == "append"
    assert len(tail.poll().transcript.messages) == 9


def _boundary(uuid: str, tail: str, kept: list[str]) -> bytes:
    meta = {"preservedSegment": {"headUuid": kept[0], "anchorUuid": kept[0], "tailUuid": tail}}
    record = {**_SESSION, "type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": None}
    record.update(content="compacted", compactMetadata={**meta, "preservedMessages": {"uuids": kept}})
    return orjson.dumps(record) + b"\n"


def _said(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


_ANSWER = {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "answer"}]}
_KEPT_LATE = [
    _cc("user", "U0", None, _said("first")),
    _boundary("B", "U0", ["U0", "Q"]),
    _cc("user", "R1", "U0", _said("second")),
    _cc("assistant", "R2", "R1", _ANSWER),
]


@pytest.mark.parametrize(
    ("before", "appended"),
    [
        # A message the compaction kept, written after it: it goes before the branch's lines.
        (_KEPT_LATE, [_cc("user", "Q", "R2", _said("third"))]),
        ([*_KEPT_LATE, _cc("progress", "Pg", "R2")], [_cc("user", "Q", "R2", _said("third"))]),
        # A compaction appended, keeping a message written before it.
        (
            [_cc("user", "U0", None, _said("go")), _cc("user", "A", None, _said("on"))],
            [_cc("user", "U1", "A", _said("more")), _boundary("B", "A", ["U0"])],
        ),
    ],
)
def test_an_append_that_changes_what_a_compaction_keeps_is_read_as_a_full_load_reads_it(tmp_path, before, appended):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(before))
    tail = Tail(path)
    tail.poll()
    with open(path, "ab") as f:
        f.write(b"".join(appended))
    check(tail, path)


def test_a_real_claude_code_session_written_line_by_line_is_read_as_appends(tmp_path):
    """A real session (sample_sessions/real) read to its line 890 (while a tool ran), its next
    150 lines then written three at a time: each write is read as an append (the progress lines
    leave the branch at most of them), as a full load reads it."""
    real = ROOT / "sample_sessions" / "real" / "claude-code" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
    lines = real.read_bytes().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[:890]))
    tail = Tail(path)
    tail.poll()
    kinds = []
    for k in range(890, 1040, 3):
        with open(path, "ab") as f:
            f.write(b"".join(lines[k : k + 3]))
        kinds.append(check(tail, path))
    assert kinds.count("append") == len(kinds)


def test_a_change_before_the_new_bytes_is_read_whole(tmp_path):
    path = tmp_path / "s.jsonl"
    data = b'{"role": "user", "content": "go"}\n' + _lines(200)
    path.write_bytes(data)
    tail = Tail(path)
    tail.poll()
    # Same bytes count, one changed inside the last lines already read, then more appended.
    at = len(data) - 100
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(b"X" if data[at : at + 1] != b"X" else b"Y")
    with open(path, "ab") as f:
        f.write(_lines(1, 200))
    assert check(tail, path) == "full"


def test_json_documents_and_formats_without_the_hook_reload_whole(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": "hi"}]))
    tail = Tail(path)
    assert tail.poll().kind == "full"
    assert tail.poll().kind == "unchanged"
    path.write_bytes(orjson.dumps([{"role": "user", "content": "ho"}]))  # same size
    assert check(tail, path) == "full"


def test_errors_keep_the_last_good_state(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(_lines(3))
    tail = Tail(path)
    good = tail.poll()
    with open(path, "ab") as f:
        f.write(b"\xff\n")
    with pytest.raises(InputError, match="not UTF-8"):
        tail.poll()
    assert tail.transcript is good.transcript
    path.unlink()
    with pytest.raises(InputError, match="no such file"):
        tail.poll()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.lists(st.integers(1, 9000), min_size=1, max_size=4), st.data())
def test_appends_share_what_they_keep_and_leave_earlier_states_as_they_were(per_turn, appends, data):
    """Step by step, each append's repair equals a full repair, keeps the output before it as the
    same objects without a copy of it, and the states before it stay what they were."""
    history = [Message("user", "go")]
    previous = repair(history)
    states: list[tuple[Repair, list[Message], list[int | None]]] = []
    for n in appends:
        start = len(history)
        for i in range(start, start + n):
            calls = tuple(ToolCall(f"c{i}_{j}", "read_file") for j in range(per_turn))
            history.append(Message("assistant", None, calls))
            dropped = data.draw(st.integers(0, per_turn)) if i % 97 == 0 else per_turn  # a few unanswered
            history.extend(Message("tool", "ok", tool_call_id=c.id) for c in calls[:dropped])
        got = repair_from(previous, history, start)
        same_repair(got, repair(history))
        point = reused(previous, history, start)
        kept = point[1] if point is not None else 0
        assert all(a is b for a, b in zip(got.messages[:kept], previous.messages[:kept], strict=True))
        if kept:  # kept as it was, not copied reference by reference: shared chunks
            assert isinstance(got.messages, Grown) and isinstance(got.origin, Grown)
            if isinstance(previous.messages, Grown) and kept > 4096:
                assert got.messages._chunks[0] is previous.messages._chunks[0]
        states.append((got, list(got.messages), list(got.origin)))
        previous = got
    for state, messages, origin in states:
        assert list(state.messages) == messages and list(state.origin) == origin
