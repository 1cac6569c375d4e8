"""An error that is not about the request's history (the provider overloaded or failing, a stream
cut, a timeout, a rate limit or quota) is told as such: the provider's side or a limit, resume
after a wait, and no closest rules, in the library, ``suture explain`` (text and ``--json``)
and the app's explain screen. A history longer than the model's context window is told as that,
even inside a stream error's words: resumed as it is, it fails again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suture.checks.explain import elsewhere, explain
from suture.tui.app import SutureApp
from tests.helpers.app import WORKED
from tests.helpers.explain import explained, paste_error

RECORDED = Path(__file__).resolve().parent.parent / "sample_sessions" / "recorded"

# Texts as providers and agents send them (see the sources beside ``_ELSEWHERE`` in suture.checks.explain).
PASTED = [
    ('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}', "server"),
    ("unexpected status 529 <unknown status code>: The server is overloaded. Please try again later.", "server"),
    ('API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}', "server"),
    ("The server had an error while processing your request. Sorry about that!", "server"),
    ("stream disconnected before completion: Transport error: network error: error decoding response body", "server"),
    (
        "API Error: Connection dropped (ECONNRESET). Check the gateway set in ANTHROPIC_BASE_URL, then try again.",
        "server",
    ),
    ("Request timed out.", "server"),
    (
        '{"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}',
        "server",
    ),
    (
        '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit '
        'for your organization of 50,000 input tokens per minute."}}',
        "limit",
    ),
    ("Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000.", "limit"),
    ("You exceeded your current quota, please check your plan and billing details.", "limit"),
    ("ThrottlingException: Too many requests, please wait before trying again.", "limit"),
]


@pytest.mark.parametrize(("text", "kind"), PASTED)
def test_an_error_not_about_the_history_is_told_as_such(text: str, kind: str) -> None:
    found = explain([], text)
    assert found.kind == kind and not found.recognised
    assert found.closest == []
    said = found.verdict()
    assert said.startswith("Not a problem with the history") and "resume " in said.lower()
    assert "as it is" not in said  # (whether the history itself is accepted is the check's to say)
    assert "does not recognise" not in said


TOO_LONG = [
    # Codex's stream error around OpenAI's words (sample_sessions/codex/broken-resumed.jsonl, line 19)
    "stream disconnected before completion: Your input exceeds the context window of this model. "
    "Please adjust your input and try again.",
    '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > '
    '200000 maximum"}}',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. "
    "Please reduce the length of the messages.",
    '{"error": {"code": "context_length_exceeded", "message": "Input tokens exceed the configured limit"}}',
    "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
    "ValidationException: Input is too long for requested model.",
    "Your input exceeds the model's context window.",
    '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed '
    'context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again"}}',
]


def test_a_400_about_one_field_being_long_is_not_the_context_window() -> None:
    assert explain([], "messages.3.content.0.tool_result: input is too long").kind != "length"


@pytest.mark.parametrize("text", TOO_LONG)
def test_a_history_longer_than_the_context_window_is_told_as_that(text: str) -> None:
    found = explain([], text)
    assert found.kind == "length" and not found.recognised and found.closest == []
    assert found.elsewhere is not None and found.elsewhere.about_history
    said = found.verdict()
    assert said.startswith(
        "Not a problem suture's repair fixes: the history was longer than the model's context window"
    )
    assert "fails the same way" in said and "compact it" in said and "after a wait" not in said
    # suture checks the request's shape, not its length: what resuming does is said on a condition.
    assert "suture checks a request's shape, not its length in tokens" in said
    assert (
        "If nothing was removed from it since, sending it again sends at least as much and fails the same way" in said
    )
    assert "Resumed as it is" not in said


def test_cli_a_codex_session_cut_for_its_length_is_told_to_compact() -> None:
    r = _run(str(Path(__file__).resolve().parent.parent / "sample_sessions" / "codex" / "broken-resumed.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "the history was longer than the model's context window" in r.stdout
    assert "If nothing was removed from it since, resuming it sends at least as much and fails the same way" in r.stdout
    assert "after a wait" not in r.stdout and "Closest rules" not in r.stdout
    out = json.loads(_run(str(WORKED), "--json", "--error", TOO_LONG[1]).stdout)
    assert out["kind"] == "length" and out["closest"] == [] and out["matched"] == "prompt is too long"


def test_a_rules_text_is_still_the_rule_where_it_names_a_status_too() -> None:
    text = (
        "API Error: 400 messages.529: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
    found = explain([], text)
    assert found.kind == "rule" and found.recognition is not None and found.recognition.rule.id == "A1"


@pytest.mark.parametrize("text", ["the weather is nice today", "messages.500 has something about a tool_result"])
def test_other_texts_stay_unrecognised_with_closest_rules(text: str) -> None:
    assert elsewhere(text) is None
    found = explain([], text)
    assert found.kind == "unrecognised" and found.verdict() == "suture does not recognise this error text."


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "suture", "explain", *args], capture_output=True, text=True, timeout=60
    )


SESSIONS = sorted(
    p
    for shape in ("overloaded-5xx", "stream-cut-after-call")
    for p in RECORDED.glob(f"*/{shape}/session.jsonl")
    if not p.parent.parent.name.startswith("codex")  # Codex's session logs record no API error suture reads
)


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_cli_a_recorded_overload_or_stream_cut_is_not_about_the_history(session: Path) -> None:
    r = _run(str(session))
    assert r.returncode == 0, r.stderr
    assert "Not a problem with the history" in r.stdout and "resume after a wait" in r.stdout
    assert "Closest rules" not in r.stdout and "does not recognise" not in r.stdout
    out = json.loads(_run(str(session), "--json").stdout)
    assert out["kind"] == "server" and out["recognised"] is False and out["closest"] == []
    assert out["verdict"].startswith("Not a problem with the history")


def test_the_recorded_samples_cover_both_shapes() -> None:
    assert {p.parent.name for p in SESSIONS} == {"overloaded-5xx", "stream-cut-after-call"}


def test_cli_json_kind_of_a_pasted_rate_limit_and_of_a_rule() -> None:
    out = json.loads(_run(str(WORKED), "--json", "--error", PASTED[8][0]).stdout)
    assert out["kind"] == "limit"
    unknown = json.loads(_run(str(WORKED), "--json", "--error", "the weather is nice today").stdout)
    assert unknown["kind"] == "unrecognised"


async def test_the_app_says_it_is_not_about_the_history(tmp_path: Path) -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await explained(pilot, app)
        screen = await paste_error(pilot, app, PASTED[0][0])
        said = str(screen.query_one("#explained").content)
        assert "Not a problem with the history" in said and "does not recognise" not in said
        assert "closest rules" not in said


@pytest.mark.parametrize("agent", ["claude-code-2.1.332", "codex-0.171.0"])
async def test_the_banner_says_a_recorded_overload_is_not_about_the_history(tmp_path: Path, agent: str) -> None:
    from suture.tui.banner import Banner

    path = tmp_path / "session.jsonl"
    path.write_bytes((RECORDED / agent / "overloaded-5xx" / "session.jsonl").read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await explained(pilot, app)
        assert app.recorded is not None and app.recorded.explanation is not None
        said = app.query_one(Banner).render().plain
        assert "not about the history: resume after a wait" in said, said
        assert "not a rule suture knows" not in said


SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"


async def test_the_banner_and_explain_say_a_history_rejected_for_itself_is_rejected_too(tmp_path: Path) -> None:
    """pi's stream was cut ("error: terminated"): not about the history, but what pi sends on
    resume is rejected for a problem of its own, so neither the banner nor E says to resume."""
    from suture.tui.banner import Banner
    from suture.tui.explain import ExplainScreen

    path = tmp_path / "session.jsonl"
    path.write_bytes((SAMPLES / "pi" / "branched-aborted.jsonl").read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await explained(pilot, app)
        for _ in range(100):  # (the verdict comes from the checks, after the first frame)
            if app.history_rejected():
                break
            await pilot.pause(0.05)
        assert app.history_rejected()
        await pilot.pause()
        said = app.query_one(Banner).render().plain
        assert "not about the history, but the history is rejected too: x goes to its problems" in said, said
        assert "resume" not in said
        await pilot.press("E")
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        for _ in range(100):
            if screen.explanation is not None:
                break
            await pilot.pause(0.05)
        told = str(screen.query_one("#explained").content)
        assert "the response stream was cut" in told and "But the history is rejected too" in told
        assert (
            "resume after a wait" not in told and "\nx goes to its problems in the panes" in told
        )  # (the key as it is: x)


async def test_the_banner_says_a_history_too_long_is_to_be_compacted(tmp_path: Path) -> None:
    from suture.tui.banner import Banner

    path = tmp_path / "rollout.jsonl"
    path.write_bytes((SAMPLES / "codex" / "broken-resumed.jsonl").read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await explained(pilot, app)
        said = app.query_one(Banner).render().plain
        assert "the history was too long for the model: compact it" in said, said
        assert "resume" not in said


def test_cli_the_error_text_may_come_after_the_options() -> None:
    """``suture explain IN --json ERROR``: options go anywhere, as they do before IN; an error text
    given twice, or a second one, is one usage line."""
    after, before = _run(str(WORKED), "--json", TOO_LONG[1]), _run(str(WORKED), TOO_LONG[1], "--json")
    assert after.stderr == "" and after.returncode == before.returncode
    assert json.loads(after.stdout) == json.loads(before.stdout)
    dashed = _run(str(WORKED), "--json", "--", "-32600 Invalid Request")  # (after --, whatever it starts with)
    assert dashed.stderr == "" and json.loads(dashed.stdout)["error"] == "-32600 Invalid Request"
    twice = _run(str(WORKED), "--json", TOO_LONG[1], "another")
    assert twice.returncode == 2 and twice.stderr.startswith("suture: error: unrecognized arguments: another")


def test_cli_beside_an_error_not_about_the_history_it_says_the_file_s_provider_accepts_it() -> None:
    """The file's own provider was asked (it rejects nothing): said, not left to another command."""
    clean = Path(__file__).resolve().parent.parent / "sample_sessions" / "chat" / "clean.json"
    r = _run(str(clean), "overloaded_error")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith("openai-chat accepts the history itself (")
    assert "to see whether the history itself is accepted" not in r.stdout


def test_explain_says_the_session_went_on_after_the_error_it_recorded() -> None:
    from tests.helpers.cli import run

    pi = Path(__file__).parent.parent / "sample_sessions" / "real" / "pi" / "large-session.jsonl"
    said = run("explain", str(pi)).stdout.splitlines()
    assert said[0] == "The API error recorded at line 33; the session went on: 863 messages after it:"
    # (No wait to advise: the session went on; the E screen says the same, from the same verdict.)
    assert "the session went on: 863 messages after it, so there is nothing to wait for" in said[3]
    assert "resume after a wait" not in "\n".join(said)
    claude = Path(__file__).parent.parent / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"
    assert run("explain", str(claude)).stdout.splitlines()[0] == "The API error recorded at line 8:"
