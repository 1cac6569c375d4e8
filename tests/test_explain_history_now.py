"""What ``suture explain`` (text and ``--json``) and the app say of an error about something else
than the history sent now, where the history sent now is another question: a stream cut or an
overload beside a history the provider rejects for itself (never "resume after a wait"), and a
context-window error that counts more tokens than the file can hold (not this file's) or that
came before a compaction (what is sent now is shorter). And ``suture check``'s note on what a
pointer counts says the contract view's lines count the file sent as written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suture.checks.explain import REJECTED_TOO, elsewhere
from suture.tui.app import SutureApp
from tests.helpers.explain import explained

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
REJECTED = [
    SAMPLES / "recorded" / "pi-0.73.1" / "result-for-errored-turn" / "session.jsonl",  # openai-chat O2
    SAMPLES / "pi" / "branched-aborted.jsonl",  # anthropic A2
]
CODEX = SAMPLES / "codex" / "broken-resumed.jsonl"  # its length error (line 19) after its compaction (line 12)
TOO_LONG = "prompt is too long: 212345 tokens > 200000 maximum"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "suture", "explain", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("session", REJECTED, ids=lambda p: p.parent.name if p.name == "session.jsonl" else p.name)
def test_cli_a_stream_cut_beside_a_rejected_history_says_it_is_rejected_too(session: Path) -> None:
    r = _run(str(session))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "the response stream was cut" in r.stdout and f"But {REJECTED_TOO}" in r.stdout
    assert "resume after a wait" not in r.stdout and "in what pi sends" in r.stdout
    out = json.loads(_run(str(session), "--json").stdout)
    assert out["kind"] == "server" and out["history"]["rejected"] is True
    assert "rejected, 1 problem in what pi sends" in out["history"]["summary"]
    assert f"But {REJECTED_TOO}" in out["verdict"] and "resume after a wait" not in out["verdict"]
    assert _run(str(session), "--json").returncode == 1


def test_cli_a_stream_cut_beside_an_accepted_history_still_says_resume() -> None:
    session = SAMPLES / "recorded" / "claude-code-2.1.332" / "overloaded-5xx" / "session.jsonl"
    r = _run(str(session))
    assert r.returncode == 0 and "resume after a wait" in r.stdout and REJECTED_TOO not in r.stdout
    assert json.loads(_run(str(session), "--json").stdout)["history"] == {"rejected": False, "summary": None}


def test_the_token_count_of_a_context_window_error_is_read() -> None:
    counts = {
        TOO_LONG: 212345,
        "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000": 190000,
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.": 130512,
        "maximum context length is 8192 tokens, however you requested 9000 tokens (8000 in the messages, 1000 in "
        "the completion)": 8000,
        "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).": 1234567,
        "Your input exceeds the context window of this model.": None,
    }
    for text, tokens in counts.items():
        cause = elsewhere(text)
        assert cause is not None and cause.kind == "length" and cause.tokens == tokens, text


def test_cli_a_context_window_error_too_big_for_the_file_is_not_this_files() -> None:
    small = SAMPLES / "pi" / "v1-clean.jsonl"  # 4 messages, 1.6 KB
    r = _run(str(small), TOO_LONG)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.startswith("not in this file") and "212,345 tokens" in r.stdout
    assert "fails the same way" not in r.stdout
    out = json.loads(_run(str(small), "--json", "--error", TOO_LONG).stdout)
    assert out["kind"] == "length" and out["in_file"] is False and out["tokens"]["named"] == 212345
    assert out["tokens"]["most_sent"] < 212345
    # A count the file's request could come to (with room for the agent's system prompt and tools) is not dismissed.
    fits = _run(str(small), "prompt is too long: 60000 tokens > 50000 maximum")
    assert fits.returncode == 0 and "fails the same way" in fits.stdout


def test_cli_a_document_named_by_reference_leaves_no_bound_to_dismiss_an_error_by(tmp_path: Path) -> None:
    """A PDF sent by its file id is a few bytes in the file and any number of tokens in the
    request: a large count is not said to be another file's."""
    path = tmp_path / "doc.json"
    doc = {"type": "document", "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}}
    path.write_text(
        json.dumps(
            {
                "model": "m",
                "max_tokens": 1,
                "messages": [{"role": "user", "content": [doc, {"type": "text", "text": "sum up"}]}],
            }
        )
    )
    r = _run(str(path), TOO_LONG)
    assert not r.stdout.startswith("not in this file") and "fails the same way" in r.stdout, r.stdout


def _compacted_after(tmp_path: Path) -> Path:
    """broken-resumed.jsonl with its length error recorded before its compaction (line 12, then 13)."""
    lines = CODEX.read_text().splitlines(keepends=True)
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join([*lines[:11], lines[18], *lines[11:18], *lines[19:]]))
    return path


def test_cli_a_length_error_before_a_compaction_is_not_said_to_fail_again(tmp_path: Path) -> None:
    path = _compacted_after(tmp_path)
    r = _run(str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "compacted after it (line 13)" in r.stdout and "fails the same way" not in r.stdout
    out = json.loads(_run(str(path), "--json").stdout)
    assert out["tokens"]["compacted"] == 13 and "Resume it" in out["verdict"]


def test_cli_a_length_error_after_the_compaction_says_so_and_fails_again() -> None:
    r = _run(str(CODEX))
    assert r.returncode == 0
    assert "after its compaction (line 12)" in r.stdout and "fails the same way" in r.stdout


async def test_the_banner_says_a_length_error_before_a_compaction_was_compacted_since(tmp_path: Path) -> None:
    from suture.tui.banner import Banner

    app = SutureApp(_compacted_after(tmp_path), watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await explained(pilot, app)
        said = app.query_one(Banner).render().plain
        assert "compacted since (line 13): resume" in said, said
        assert "compact it" not in said


@pytest.mark.parametrize(
    ("session", "form"),
    [
        (CODEX, "input[N]"),
        (SAMPLES / "recorded" / "pi-0.73.1" / "result-for-errored-turn" / "session.jsonl", "messages[N]"),
        (SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl", "messages.N"),
    ],
)
def test_check_says_the_contract_views_pointers_count_the_file_sent_as_written(session: Path, form: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "suture", "check", str(session)], capture_output=True, text=True, timeout=60
    )
    note = next(line for line in r.stdout.splitlines() if line.startswith(f"  ({form} counts the request"))
    assert note.endswith(f"; in the contract view, {form} counts the file sent as written)"), note
