"""An error about a message of one role (an assistant message's thinking blocks, a tool message)
whose index names a message of another: not this request, or another numbering; never "nothing
to repair here" with exit 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suture.cli import main

ROOT = Path(__file__).parent.parent
TOOL_HEAVY = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
A12 = (
    "messages.{n}.content.0: If an assistant message contains any thinking blocks, the first block must be "
    "thinking or redacted_thinking. Found text."
)


def test_a_session_s_place_of_another_role_is_not_the_error_s(capsys: pytest.CaptureFixture[str]) -> None:
    # What Claude Code sends from tool_heavy: messages.3 is the user message of a tool result.
    assert main(["explain", str(TOOL_HEAVY), A12.format(n=3)]) == 1
    said = capsys.readouterr().out
    assert "nothing to repair" not in said.lower()
    assert said.splitlines()[-1].startswith("not in this file: wrong file, or a different request?")
    assert "messages.3 is a user message, not an assistant message (its thinking blocks)" in said
    assert "the nearest assistant messages are messages.2 and messages.4" in said
    assert main(["explain", "--json", str(TOOL_HEAVY), A12.format(n=3)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["in_file"] is False and report["found"] is False and report["messages"] == []
    assert "messages.3 is a user message" in report["absent"][0]


def test_a_request_file_s_message_of_another_role_is_not_the_error_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "messages.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
                {"role": "user", "content": "more"},
            ]
        )
    )
    assert main(["explain", str(path), "--format", "messages", A12.format(n=2)]) == 1
    said = capsys.readouterr().out
    assert "message 2 is a user message, not an assistant message (its thinking blocks)" in said, said
    assert "the nearest assistant message is message 1" in said
    # An assistant message there: no such problem in it, and nothing said of its role.
    main(["explain", str(path), "--format", "messages", A12.format(n=1)])
    assert "not an assistant message" not in capsys.readouterr().out
