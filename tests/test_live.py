"""suture.live: reading a file that changes, keeping the last good state."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from suture.live import LiveFile

pytestmark = pytest.mark.filterwarnings("error")


def _line(record: dict[str, object]) -> bytes:
    return orjson.dumps(record) + b"\n"


USER = {"role": "user", "content": "hi"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
}
RESULT = {"role": "tool", "tool_call_id": "a", "content": "ok"}


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_line(USER) + _line(CALL))
    return path


def test_first_poll_is_full_and_repairs(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    update = live.poll()
    assert update.kind == "full"
    assert update.transcript is not None and update.repair is not None
    assert len(update.transcript.messages) == 2
    assert update.added == 2
    # The call has no result: repair adds one.
    assert len(update.repair.messages) == 3


def test_unchanged_then_append(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    assert live.poll().kind == "unchanged"
    with open(jsonl, "ab") as f:
        f.write(_line(RESULT))
    update = live.poll()
    assert update.kind == "append"
    assert update.added == 1
    assert update.repair is not None and not update.repair.changes
    # The call before the append stays the same object: only what follows needs drawing again.
    assert update.stable_input >= 1


def test_rewrite_is_full_and_truncation_counts_down(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    jsonl.write_bytes(_line(USER))
    update = live.poll()
    assert update.kind == "full"
    assert update.added == -1


def test_replace_by_rename(jsonl: Path, tmp_path: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    other = tmp_path / "new.jsonl"
    other.write_bytes(_line(CALL) + _line(RESULT) + _line(USER) + _line(USER))
    os.replace(other, jsonl)
    update = live.poll()
    assert update.kind == "full"
    assert update.added == 2
    # Another file now: read whole, even when it only adds to the end.
    other.write_bytes(jsonl.read_bytes() + _line(USER))
    os.replace(other, jsonl)
    update = live.poll()
    assert update.kind == "full" and update.added == 1


def test_half_written_json_keeps_last_good_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps([USER, CALL, RESULT]))
    live = LiveFile(path)
    good = live.poll()
    path.write_bytes(b'[{"role": "user", "content": "hi"},\n {"role": "assi')
    bad = live.poll()
    assert bad.kind == "error"
    assert bad.transcript is good.transcript
    assert bad.repair is good.repair
    assert bad.error is not None and "line 2" in bad.error
    assert bad.line == 2 and bad.column is not None
    assert str(path) not in bad.error
    path.write_bytes(orjson.dumps([USER, CALL, RESULT, USER]))
    again = live.poll()
    assert again.kind == "full"
    assert again.added == 1
    assert live.error is None


def test_missing_file_is_an_error_then_recovers(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    live.poll()
    data = jsonl.read_bytes()
    jsonl.unlink()
    missing = live.poll()
    assert missing.kind == "error" and missing.error == "no such file"
    assert missing.transcript is not None
    jsonl.write_bytes(data)
    # Same bytes as the last good state: nothing to redraw, but the error is over.
    assert live.poll().kind == "unchanged"
    assert live.error is None


def test_never_readable(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"{not json")
    update = LiveFile(path).poll()
    assert update.kind == "error"
    assert update.transcript is None and update.repair is None


def test_pending_jsonl_line_is_reported(jsonl: Path) -> None:
    with open(jsonl, "ab") as f:
        f.write(b'{"role": "tool", "tool_ca')
    update = LiveFile(jsonl).poll()
    assert update.kind == "full"
    assert update.pending_line == 3
    assert update.transcript is not None and len(update.transcript.messages) == 2


def test_bad_line_is_a_problem_not_an_error(jsonl: Path) -> None:
    with open(jsonl, "ab") as f:
        f.write(b"{oops}\n" + _line(RESULT))
    update = LiveFile(jsonl).poll()
    assert update.kind == "full"
    assert [p.line for p in update.problems] == [3]


def test_ignored_bytes_do_not_reload(jsonl: Path) -> None:
    live = LiveFile(jsonl)
    first = live.poll()
    mine = _line(USER) + _line(CALL) + _line(RESULT)
    live.ignore(mine)
    jsonl.write_bytes(mine)
    update = live.poll()
    assert update.kind == "unchanged"
    assert update.transcript is first.transcript
    # Only that write is ignored: the next change reloads.
    with open(jsonl, "ab") as f:
        f.write(_line(USER))
    assert live.poll().kind == "append"


def test_read_only_names_reach_repair(jsonl: Path) -> None:
    update = LiveFile(jsonl, is_read_only={"ls"}.__contains__).poll()
    assert update.repair is not None
    synthetic = update.repair.messages[2]
    assert isinstance(synthetic.content, str) and "safe to run again" in synthetic.content


def test_forced_format_that_does_not_fit(jsonl: Path) -> None:
    update = LiveFile(jsonl, format="chat").poll()
    assert update.kind == "full"
    path = jsonl.with_suffix(".json")
    path.write_bytes(b'{"unrelated": true}')
    bad = LiveFile(path, format="chat").poll()
    assert bad.kind == "error"
