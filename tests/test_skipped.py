"""``suture.formats.skipped``: what a session file holds that the agent does not send."""

from __future__ import annotations

from pathlib import Path

import pytest

import suture
from suture.formats import skipped

ROOT = Path(__file__).resolve().parent.parent / "sample_sessions"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (
            "real/claude-code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
            "lines 1–1583 are before a compaction (line 1584) and are not sent (417 user and assistant records",
        ),
        ("claude-code/compacted.jsonl", "lines 1–3 are before a compaction (line 4) and are not sent"),
        ("codex/broken-resumed.jsonl", "lines 1–11 are before a compaction (line 12) and are not sent"),
        ("pi/branched-aborted.jsonl", "2 of 15 entries are not sent: they are on other branches"),
    ],
)
def test_skipped_history_is_named(path: str, said: str) -> None:
    transcript = suture.load_file(ROOT / path)
    [sentence] = skipped(transcript)
    assert sentence.startswith(said)
    # Nothing the sentence says is sent is in the history.
    if sentence.startswith("lines 1–"):
        last = int(sentence.split("–")[1].split()[0])
        assert all(m.source is None or m.source.line is None or m.source.line > last for m in transcript.messages)


@pytest.mark.parametrize(
    "path",
    ["chat/worked-example.json", "claude-code/parallel-calls.jsonl", "pi/v1-clean.jsonl", "codex/clean-rollout.jsonl"],
)
def test_a_file_that_sends_everything_skips_nothing(path: str) -> None:
    assert skipped(suture.load_file(ROOT / path)) == []
