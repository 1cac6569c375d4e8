"""The worked example of docs/contract.md, end to end through the chat adapter."""

from __future__ import annotations

from pathlib import Path

import orjson

import suture
from suture.repair import ChangeKind

SAMPLE = Path(__file__).resolve().parent.parent / "sample_sessions" / "chat" / "worked-example.json"


def test_worked_example_output_and_records() -> None:
    transcript = suture.load_file(SAMPLE)
    result = suture.repair(transcript.messages)
    out = orjson.loads(suture.dump(result.messages, transcript))
    assert [m["role"] for m in out] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert [c["id"] for c in out[1]["tool_calls"]] == ["x", "y"]
    assert out[2] == {"role": "tool", "tool_call_id": "x", "content": "<contents>"}
    assert out[3] == {"role": "tool", "tool_call_id": "y", "content": "2 failed"}
    assert out[4] == {"role": "user", "content": "also check the lint"}
    assert out[5]["tool_calls"][0]["id"] == "x_1"
    assert out[6] == {
        "role": "tool",
        "tool_call_id": "x_1",
        "content": "Interrupted before read_file returned a result. It may have partly run: "
        "check its effects before running it again.",
    }
    assert out[7] == {"role": "assistant", "content": "done"}
    assert out[8] == {
        "role": "user",
        "content": "A result for tool call z arrived outside its turn and is kept here as a note:\nlate output",
    }
    records = [(c.kind, c.input_index, c.output_index, c.call_id, c.new_id) for c in result.changes]
    assert records == [
        (ChangeKind.MOVED_RESULT, 3, 3, "y", None),
        (ChangeKind.DROPPED_PLACEHOLDER, 4, None, None, None),
        (ChangeKind.MOVED_RESULT, 5, 2, "x", None),
        (ChangeKind.RENAMED_ID, 6, 5, "x", "x_1"),
        (ChangeKind.SYNTHETIC_INTERRUPT, 6, 6, "x_1", None),
        (ChangeKind.ORPHAN_NOTE, 8, 8, "z", None),
    ]
    assert [c.id for c in result.interrupted] == ["x_1"]
    assert result.origin == [0, 1, 5, 3, 2, 6, None, 7, 8]
