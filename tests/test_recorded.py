"""The requests Claude Code recorded in its session files, rebuilt and compared with what it sent.

Every Claude Code folder of ``sample_sessions/recorded``: each ``api-request`` line of the file
after resume is rebuilt from the file (blobs, records, and suture's model of what Claude Code
sends) and compared with the request the mock logged (``requests.jsonl``): its messages with their
``cache_control`` markers, its tool list (by hash) and its parameters. A message whose hash suture
cannot rebuild is named; only hand-edited files have any (the edit changed records that requests
sent before it held).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from suture.checks import check
from suture.formats import load_bytes
from suture.sent.recorded import message_hash, read, recorded_requests, request_behind
from tools.agents.corpus import read_requests, shape_folders
from tools.agents.record import CORPUS

FOLDERS = [f for f in shape_folders(CORPUS) if f.parent.name.startswith("claude-code-")]
IDS = [f"{f.parent.name}/{f.name}" for f in FOLDERS]


def _meta(folder: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((folder / "shape.json").read_text())
    return value


def _sha(value: Any) -> str:
    data = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()


def _pairs(folder: Path) -> list[tuple[Any, dict[str, Any]]]:
    """(rebuilt request, logged request) for the requests of the resume run: the api-request
    lines the resume added to the file, and the requests the mock logged for that run."""
    before = len(read(folder / "session.jsonl"))
    rebuilt = read(folder / "resumed.jsonl")[before:]
    logged = [r for r in read_requests(folder) if r["run"] == "resume"]
    assert len(rebuilt) == len(logged)
    return list(zip(rebuilt, logged, strict=True))


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_every_message_hash_of_every_recorded_request_is_rebuilt(folder: Path) -> None:
    for name in ("session.jsonl", "resumed.jsonl"):
        requests = read(folder / name)
        assert requests, name
        for r in requests:
            assert len(r.messages) == len(r.found)
            assert [u.position for u in r.unresolved] == [k for k, how in enumerate(r.found) if how == "unresolved"]
            if _meta(folder)["hand_edit"] is None:
                assert r.complete, (name, r.line, [str(u) for u in r.unresolved])
    for rebuilt, _ in _pairs(folder):
        assert rebuilt.complete, (rebuilt.line, [str(u) for u in rebuilt.unresolved])


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_a_rebuilt_request_is_the_request_claude_code_sent(folder: Path) -> None:
    for rebuilt, logged in _pairs(folder):
        body, sent = rebuilt.body(), logged["body"]
        assert body["messages"] == sent["messages"]
        assert _sha(body["tools"]) == sent["tools"]["sha256"]
        for key in ("model", "max_tokens", "thinking", "context_management", "output_config"):
            assert body.get(key) == sent.get(key), key


def test_messages_made_from_several_records_confirm_the_model() -> None:
    """Parallel calls: the response written one call a line and the interrupted results Claude
    Code inserted are each one message of the request; their hashes are found only by hashing
    what suture's model says Claude Code sends."""
    folder = CORPUS / "claude-code-2.1.328" / "parallel-killed"
    if not folder.is_dir():
        pytest.skip("parallel-killed is not recorded")
    (resume,) = [r for r, _ in _pairs(folder)]
    assert resume.found.count("sent") == 2
    merged = [m for m, how in zip(resume.messages, resume.found, strict=True) if how == "sent"]
    assert [len(m["content"]) for m in merged] == [2, 2]


def test_the_request_behind_a_recorded_400_is_the_one_rejected() -> None:
    folder = CORPUS / "claude-code-2.1.328" / "text-before-result"
    data = (folder / "resumed.jsonl").read_bytes()
    transcript = load_bytes(data)
    line, error = next((s.line, text) for s, text in reversed(transcript.evidence) if "400" in text)
    assert line is not None
    requests = read(folder / "resumed.jsonl")
    behind = request_behind(requests, line)
    assert behind is not None and behind.complete and behind.error is not None
    assert behind.error[0].line == line and behind.error[1] == error
    # The error names messages.3: in the rebuilt request that is the record with its text first.
    content = behind.body()["messages"][3]["content"]
    assert [b["type"] for b in content] == ["text", "tool_result"]
    assert "A1a" in {v.rule for v in check(behind.neutral(), "anthropic")}


def test_a_hash_is_of_compact_sorted_json() -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "héllo", "a": 1}]}
    assert message_hash(message) == _sha(message)


def test_a_file_without_recorded_requests_has_none() -> None:
    records = [(1, {"type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}})]
    assert recorded_requests(records) == []


def test_a_hash_nothing_rebuilds_is_named_not_passed_over() -> None:
    records = [
        (1, {"type": "api-request", "id": "r1", "keep": 0, "tail": ["0" * 64], "params": {"model": "m"}}),
        (2, {"type": "api-request", "id": "r2", "base": "r1", "keep": 1, "tail": []}),
    ]
    first, second = recorded_requests(records)
    assert not first.complete and [u.position for u in first.unresolved] == [0]
    assert "messages.0" in str(first.unresolved[0])
    assert second.unresolved == first.unresolved and second.body()["messages"] == [None]
