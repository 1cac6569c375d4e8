"""``suture check`` on a session whose last recorded API error is one its check of the request's
shape does not judge (a history longer than the model's context window, an invalid thinking
signature): the verdict stands, and one line after it says so, as ``suture explain`` tells it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suture.cli import main

SAMPLES = Path(__file__).parent.parent / "sample_sessions"
CODEX = SAMPLES / "codex" / "broken-resumed.jsonl"  # line 19: Codex's "exceeds the context window"
CLAUDE = SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"  # line 8: an A1 400


def test_a_length_error_is_said_after_the_verdict_without_changing_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(CODEX)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("openai-responses: no problems"))
    assert lines[at + 1] == (
        "  the session's last API error (line 19) says the history was longer than the model's context window; "
        f"suture checks a request's shape, not its length in tokens: suture explain {CODEX}"
    )
    assert main(["check", "--json", str(CODEX)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["clean"] is True
    recorded = report["recorded_error"]
    assert (recorded["line"], recorded["kind"], recorded["rule"]) == (19, "length", None)
    assert "exceeds the context window" in recorded["error"] and recorded["said"] == lines[at + 1].strip()


def test_an_error_the_check_judges_is_not_said_again(capsys: pytest.CaptureFixture[str]) -> None:
    # Claude Code resumes it with the text before the result again: the verdict names it.
    rejected = SAMPLES / "recorded" / "claude-code-2.1.332" / "text-before-result" / "resumed.jsonl"
    assert main(["check", "--json", str(rejected)]) == 1
    assert json.loads(capsys.readouterr().out)["recorded_error"] is None
    main(["check", str(rejected)])
    assert "last API error" not in capsys.readouterr().out


def test_an_error_the_agent_repairs_itself_is_said_beside_a_verdict_of_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Claude Code 2.1.38 wrote the file and got an A1 400 from it; 2.1.332, whose resume suture
    models, answers the call itself: "no problems" stands, and the line after it says why the
    400 the file records is not what the agent gets now (it said nothing of it)."""
    assert main(["check", str(CLAUDE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("anthropic: no problems"))
    assert lines[at + 1] == (
        "  the session's last API error (line 8, A1) is about something Claude Code 2.1.332 repairs itself when it "
        "resumes this file, so it would not get it now; this error came from another Claude Code version: Claude "
        f"Code 2.1.38 wrote this file, and suture models Claude Code 2.1.332's resume: suture explain {CLAUDE}"
    )
    assert main(["check", "--json", str(CLAUDE)]) == 0
    recorded = json.loads(capsys.readouterr().out)["recorded_error"]
    assert (recorded["line"], recorded["kind"], recorded["rule"]) == (8, "agent", "A1")
    assert recorded["said"] == lines[at + 1].strip()


def test_an_error_no_check_can_see_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = CLAUDE.read_text().splitlines()
    record = json.loads(lines[7])
    record["message"]["content"][0]["text"] = (
        'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":'
        '"messages.1.content.0: Invalid `signature` in `thinking` block"}}'
    )
    path = tmp_path / "signature.jsonl"
    path.write_text("\n".join([*lines[:7], json.dumps(record)]) + "\n")
    main(["check", "--json", str(path)])
    recorded = json.loads(capsys.readouterr().out)["recorded_error"]
    assert (recorded["line"], recorded["kind"], recorded["rule"]) == (8, "rule", "A12")
    assert recorded["said"].startswith("the session's last API error (line 8) is one suture's check cannot see")


def test_a_request_file_records_none(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--json", str(SAMPLES / "chat" / "renamed-id.json")])
    assert json.loads(capsys.readouterr().out)["recorded_error"] is None


def test_scan_says_its_verdict_does_not_judge_a_length_error(capsys: pytest.CaptureFixture[str]) -> None:
    main(["scan", str(CODEX)])
    row = capsys.readouterr().out.splitlines()[1]
    assert row.startswith("ok ") and row.endswith(
        "exceeds the context window of this model. Please adjust your input and try again. (suture checks a "
        "request's shape, not its length in tokens: suture explain FILE)"
    ), row


def test_the_recorded_error_is_said_under_the_verdict_of_the_provider_it_came_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["check", "--provider", "anthropic,openai-responses", str(SAMPLES / "codex" / "broken-resumed.jsonl")])
    lines = capsys.readouterr().out.splitlines()
    said = next(k for k, line in enumerate(lines) if "the session's last API error" in line)
    verdict = max(k for k, line in enumerate(lines[:said]) if not line.startswith(" ") and line)
    assert lines[verdict].startswith("openai-responses:"), lines[verdict]
