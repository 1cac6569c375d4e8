"""``suture.formats.skipped``: what a session file holds that the agent does not send."""

from __future__ import annotations

from pathlib import Path

import pytest

import suture
from suture import codec
from suture.formats import before_compaction, skipped
from suture.written import lines_of

ROOT = Path(__file__).resolve().parent.parent / "sample_sessions"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (
            "real/claude-code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
            "lines 1–1583 are before a compaction (line 1584) and are not sent (417 user and assistant records",
        ),
        ("claude-code/compacted.jsonl", "lines 1–3 are before a compaction (line 4) and are not sent"),
        (
            "recorded/claude-code-2.1.332/compaction/session.jsonl",
            "lines 1–27 are before a compaction (line 28) and are not sent, but for line 27 the compaction kept "
            "(3 user and assistant records",
        ),
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
        kept = {int(sentence.split("but for line ")[1].split()[0])} if "but for line " in sentence else set()
        assert {n for m in transcript.messages for n in lines_of(m.source) if n <= last} == kept


@pytest.mark.parametrize(
    "path",
    ["chat/worked-example.json", "claude-code/parallel-calls.jsonl", "pi/v1-clean.jsonl", "codex/clean-rollout.jsonl"],
)
def test_a_file_that_sends_everything_skips_nothing(path: str) -> None:
    assert skipped(suture.load_file(ROOT / path)) == []


@pytest.mark.parametrize(
    "path",
    [
        "real/claude-code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
        "claude-code/compacted.jsonl",
        "recorded/claude-code-2.1.332/compaction/session.jsonl",
    ],
)
def test_the_records_before_a_compaction_are_listed(path: str) -> None:
    # Each line before the compaction, in file order and named by its record's type, then the
    # compaction's own line: the records the sentence names, one each, but for a line the history
    # still holds (the recorded session's response cut by the compaction is sent whole).
    transcript = suture.load_file(ROOT / path)
    [sentence] = skipped(transcript)
    boundary = int(sentence.split("(line ")[1].split(")")[0])
    before = before_compaction(transcript)
    records = {}
    for n, line in enumerate((ROOT / path).read_bytes().splitlines()[: boundary - 1], 1):
        try:
            records[n] = codec.loads(line)
        except ValueError:
            continue
    sent = {n for m in transcript.messages for n in lines_of(m.source)}
    assert [s.source.line for s in before] == [*(n for n in records if n not in sent), boundary]
    assert all(s.kind == "compacted" for s in before[:-1]) and before[-1].kind == "compaction"
    for s in before[:-1]:
        record = records[s.source.line]
        assert s.reason.startswith(f"{record['type']} record before the compaction (line {boundary})")
    said = sum(r.get("type") in ("user", "assistant") for n, r in records.items() if n not in sent)
    assert f"({said:,} user and assistant records" in sentence


@pytest.mark.parametrize(
    "path",
    [
        "chat/worked-example.json",
        "claude-code/parallel-calls.jsonl",
        "pi/branched-aborted.jsonl",
        "codex/clean-rollout.jsonl",
    ],
)
def test_a_file_with_no_compaction_lists_no_record_before_one(path: str) -> None:
    assert before_compaction(suture.load_file(ROOT / path)) == []


@pytest.mark.parametrize(
    "path",
    [
        "codex/broken-resumed.jsonl",
        "recorded/codex-0.169.0/compaction/session.jsonl",
        "recorded/codex-0.171.0/compaction/session.jsonl",
    ],
)
def test_a_codex_sessions_lines_before_a_compaction_are_listed(path: str) -> None:
    # Codex sends what the compaction kept (its replacement history, on the compaction's own
    # line): every line before it is listed, in file order, named by its record and item type.
    transcript = suture.load_file(ROOT / path)
    [sentence] = skipped(transcript)
    boundary = int(sentence.split("(line ")[1].split(")")[0])
    before = before_compaction(transcript)
    assert [s.source.line for s in before] == list(range(1, boundary))
    assert all(s.kind == "compacted" for s in before)
    lines = (ROOT / path).read_bytes().splitlines()
    for s in before:
        record = codec.loads(lines[s.source.line - 1])
        assert s.reason.startswith(record["type"]) and s.reason.endswith(f"before the compaction (line {boundary})")
        payload = record.get("payload")
        if record["type"] == "response_item" and payload.get("type") == "message":
            assert f": {payload['role']} message before" in s.reason


def _rollout(*records: dict[str, object]) -> bytes:
    stamp = "2026-01-01T00:00:00Z"
    return b"".join(codec.dumps({"timestamp": stamp, **r}) + b"\n" for r in records)


def test_an_older_codex_compaction_keeps_the_user_messages_and_lists_the_rest(tmp_path: Path) -> None:
    # Without a replacement history, Codex keeps the user messages before the compaction (then
    # the summary): those lines are sent, and not listed.
    def item(payload: dict[str, object]) -> dict[str, object]:
        return {"type": "response_item", "payload": payload}

    def said(role: str, text: str) -> dict[str, object]:
        kind = "input_text" if role == "user" else "output_text"
        return item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    path = tmp_path / "rollout.jsonl"
    path.write_bytes(
        _rollout(
            {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.40.0"}},
            said("user", "first"),
            said("assistant", "done"),
            said("user", "second"),
            {"type": "event_msg", "payload": {"type": "token_count"}},
            {"type": "compacted", "payload": {"message": "the summary"}},
            said("user", "third"),
        )
    )
    transcript = suture.load_file(path)
    assert [m.source.line for m in transcript.messages if m.source is not None][:2] == [2, 4]
    before = before_compaction(transcript)
    assert [(s.source.line, s.reason) for s in before] == [
        (1, "session_meta before the compaction (line 6)"),
        (3, "response_item: assistant message before the compaction (line 6)"),
        (5, "event_msg: token_count before the compaction (line 6)"),
    ]
