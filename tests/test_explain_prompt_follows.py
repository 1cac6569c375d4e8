"""explain of a session log judges its history as the agent sends it, with the user's next
message after it, as check does: an error about the request's end or an empty request is not
found in a session that ends with a reply or holds no message yet."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parents[1]


def test_an_error_about_the_request_s_end_is_not_found_where_the_prompt_follows() -> None:
    proc = run(
        "explain",
        ROOT / "sample_sessions" / "pi" / "v1-clean.jsonl",
        "--error",
        "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant",
    )
    assert "finds no M4 problem" in proc.stdout, proc.stdout
    assert "the file as written has this problem" not in proc.stdout


def test_an_empty_request_s_error_on_a_session_with_no_message_is_not_found(tmp_path: Path) -> None:
    empty = tmp_path / "empty-pi.jsonl"
    empty.write_text('{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n')
    proc = run("explain", empty, "--error", "messages: at least one message is required")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "finds no A14 problem" in proc.stdout
