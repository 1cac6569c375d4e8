"""A session whose recorded API error is one only the stricter servers of its provider's API send
(a Codex session resumed against a strict Responses server: "Duplicate function_call_output")
is judged by those servers' rules, on every surface: what the agent sends, the file's own
provider, ``suture check`` (its exit code too) and the app's headline."""

from __future__ import annotations

from pathlib import Path

import pytest

from suture.checks import served_by
from suture.checks.rules import RULES
from suture.formats import load_file, own_provider
from suture.sent import as_sent, verdict
from suture.tui.app import SutureApp
from tests.helpers.app import ROOT, settled
from tests.helpers.cli import run

REPEATED = ROOT / "sample_sessions" / "recorded" / "codex-0.171.0" / "repeated-id"
R9 = RULES["R9"].errors[0].format(call_id="call_x")


def test_an_error_only_the_stricter_servers_send_names_them() -> None:
    assert served_by("openai-responses", ["upstream said no", R9]) == "openai-responses-strict"
    # The last error is the one that stopped the session; errors every such server sends say nothing.
    assert served_by("openai-responses", [R9, "No tool call found for function call output with call_id x."]) == (
        "openai-responses"
    )
    assert served_by("openai-responses", []) == "openai-responses"
    assert served_by("anthropic", [R9]) == "anthropic"  # (no stricter profile of that API)


def test_a_codex_session_that_recorded_a_strict_servers_error_is_judged_by_their_rules() -> None:
    resumed = load_file(REPEATED / "resumed.jsonl")
    assert "Duplicate function_call_output" in resumed.evidence[-1][1]
    assert own_provider(resumed) == as_sent(resumed).provider == "openai-responses-strict"
    assert verdict(resumed).rejected
    crashed = load_file(REPEATED / "session.jsonl")  # (before the resume: no error recorded)
    assert own_provider(crashed) == as_sent(crashed).provider == "openai-responses"


def test_check_says_which_servers_and_why_and_exits_1() -> None:
    done = run("check", REPEATED / "resumed.jsonl")
    assert done.returncode == 1, done.stdout
    assert "\nopenai-responses-strict: rejected, 1 problem in what Codex sends" in done.stdout
    assert "its server is one of them: the API error the file recorded at line" in done.stdout
    before = run("check", REPEATED / "session.jsonl")
    assert before.returncode == 0
    assert "its server is one of them" not in before.stdout


@pytest.mark.parametrize("width", (160, 100))
async def test_the_app_heads_the_session_with_their_verdict(tmp_path: Path, width: int) -> None:
    path = tmp_path / "resumed.jsonl"
    path.write_bytes((REPEATED / "resumed.jsonl").read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        await settled(pilot, app)
        assert app.provider == "openai-responses-strict"
        assert "openai-responses-strict" in app.status.render().plain


async def test_go_to_error_goes_to_the_output_the_server_refused(tmp_path: Path) -> None:
    # "Duplicate function_call_output for call_id X" names X, held by two calls and two outputs:
    # ! goes where the provider's check finds the problem, the second output, not the first call.
    path = tmp_path / "resumed.jsonl"
    path.write_bytes((REPEATED / "resumed.jsonl").read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settled(pilot, app)
        for _ in range(100):  # a bound: the recorded error is explained in a worker
            if app.recorded is not None and app.recorded.explanation is not None:
                break
            await pilot.pause(0.05)
        await pilot.press("!")
        model = app.model
        assert model is not None
        at = model.left[app.view.cursor]
        assert at is not None
        output = model.transcript.messages[at]
        assert output.role == "tool"
        outputs = [i for i, m in enumerate(model.transcript.messages) if m.tool_call_id == output.tool_call_id]
        assert len(outputs) == 2 and at == outputs[1]
        assert f"! goes to Original #{at} " in str(app.banner().render())
