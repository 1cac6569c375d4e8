"""``suture explain`` where an error's index fits both what the agent sends and the file sent as
written: the clause that names the other numbering reads as a sentence, the messages at the place
apart from the one the problem there is about."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parent.parent
PARALLEL = ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"
CALL = "toolu_01Fd2WqLx8NcJ4bT6yRk9PzA"


def _text_after_the_call(tmp_path: Path) -> Path:
    """``PARALLEL`` with a text record after the first call's line, in the same response (the text
    follows the tool_use block in the assistant message Claude Code sends)."""
    lines = PARALLEL.read_bytes().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    at = next(k for k, r in enumerate(records) if CALL in json.dumps(r.get("message", {}).get("content")))
    call = records[at]
    text = {**call, "uuid": call["uuid"][:9] + "aaaa" + call["uuid"][13:], "parentUuid": call["uuid"]}
    text["message"] = {**call["message"], "content": [{"type": "text", "text": "Running it now."}]}
    after = records[at + 1]
    assert after["parentUuid"] == call["uuid"]
    lines[at + 1] = json.dumps({**after, "parentUuid": text["uuid"]}).encode() + b"\n"
    lines.insert(at + 1, json.dumps(text).encode() + b"\n")
    path = tmp_path / "text_after_tool_use.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def test_the_numbering_that_fits_too_is_said_in_a_sentence(tmp_path: Path) -> None:
    path = _text_after_the_call(tmp_path)
    error = f"messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: {CALL}."
    proc = run("explain", str(path), error)
    clause = next(line for line in proc.stdout.splitlines() if "fits too" in line)
    assert clause == (
        "  (it fits too, counted as the file sent as written, as suture check's contract view counts it: "
        "there messages.3 is [4] assistant (line 12), with the problem at [1] assistant (line 4, merged with "
        "4 more lines through line 10); this reads it as what Claude Code 2.1.332 sends when it resumes this "
        "file, the request the agent sends)"
    ), proc.stdout
    report = json.loads(run("explain", "--json", str(path), error).stdout)
    assert report["sent"]["numbering"] == clause.strip()[1:-1]
