"""``suture check --provider``: grouped by provider, before and after repair; exit codes; JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from suture.checks import PROVIDERS
from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run("check", *args)


def _write(path: Path, messages: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps(messages))
    return path


def _call(call_id: str, name: str = "read") -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "clean.json",
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "fix the build"},
            {"role": "assistant", "content": None, "tool_calls": [_call("abcdefghi")]},
            {"role": "tool", "tool_call_id": "abcdefghi", "content": "ok"},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "thanks"},
        ],
    )


@pytest.fixture
def interrupted(tmp_path: Path) -> Path:
    """A call cut off before its result, then the user typed on."""
    return _write(
        tmp_path / "interrupted.json",
        [
            {"role": "user", "content": "fix the build"},
            {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
            {"role": "user", "content": "hello?"},
        ],
    )


def test_provider_all_on_a_clean_file_exits_0(clean: Path) -> None:
    r = _run(str(clean), "--provider", "all")
    assert r.returncode == 0, r.stdout + r.stderr
    for provider in PROVIDERS:
        assert f"{provider}: no problems" in r.stdout


def test_problems_are_shown_by_provider_with_the_providers_text(interrupted: Path) -> None:
    r = _run(str(interrupted), "--provider", "anthropic")
    assert r.returncode == 1
    assert "anthropic: 1 problem → 0 after repair" in r.stdout
    assert "[1] assistant ($[1]) messages.2  A1: call call_1 has no result in the next message" in r.stdout
    assert (
        "anthropic would say: messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "call_1." in r.stdout
    )
    assert "fixed by repair" in r.stdout
    assert "openai-chat" not in r.stdout


def test_repeatable_and_comma_separated_providers(interrupted: Path) -> None:
    r = _run(str(interrupted), "--provider", "kimi,gemini", "--provider", "openai-chat")
    assert r.returncode == 1
    shown = [p for p in PROVIDERS if f"\n{p}: " in r.stdout]
    assert shown == ["openai-chat", "gemini", "kimi"]


def test_problems_left_after_repair_say_what_to_do(interrupted: Path) -> None:
    r = _run(str(interrupted), "--provider", "mistral")
    assert r.returncode == 1
    assert "not fixed by repair: Rewrite every call id" in r.stdout
    assert "after repair:" in r.stdout
    assert "to do:" in r.stdout


def test_json_is_grouped_by_provider_for_original_and_repaired(interrupted: Path) -> None:
    r = _run(str(interrupted), "--provider", "anthropic,mistral", "--json")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["clean"] is False
    assert out["messages"] == 3 and out["repaired_messages"] == 4
    assert list(out["providers"]) == ["anthropic", "mistral"]
    anthropic = out["providers"]["anthropic"]
    assert (anthropic["problems"], anthropic["after_repair"]) == (1, 0)
    [v] = anthropic["before"]
    assert v["rule"] == "A1" and v["index"] == 1 and v["where"] == "messages.2" and v["fixed_by_repair"] is True
    assert v["source"] == "$[1]"
    assert v["error"].startswith("messages.2: `tool_use` ids were found")
    mistral = out["providers"]["mistral"]
    assert mistral["after_repair"] >= 1
    assert all(not x["fixed_by_repair"] for x in mistral["after"])
    assert {x["rule"] for x in mistral["after"]} >= {"M1"}


def test_json_clean(clean: Path) -> None:
    r = _run(str(clean), "--provider", "all", "--json")
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert out["clean"] is True
    assert all(p["problems"] == 0 and p["before"] == [] for p in out["providers"].values())


def test_worked_example_against_every_provider() -> None:
    r = _run(str(WORKED), "--provider", "all", "--json")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert set(out["providers"]) == set(PROVIDERS)
    # The contract's own rules are what every provider rejects it for; repair leaves only id formats.
    assert out["providers"]["anthropic"]["after_repair"] == 0
    assert out["providers"]["openai-chat"]["after_repair"] == 0
    assert out["providers"]["mistral"]["after_repair"] > 0


def test_without_provider_the_valid_property_is_checked(interrupted: Path, clean: Path) -> None:
    r = _run(str(interrupted))
    assert r.returncode == 1
    assert "1 problem" in r.stdout and "[1]" in r.stdout
    r = _run(str(clean), "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout)["valid"] is True


@pytest.mark.parametrize(
    ("body", "own", "rule", "error"),
    [
        ([], "openai-chat", "O6", "Invalid 'messages': empty array"),
        ({"model": "gpt-4o", "messages": []}, "openai-chat", "O6", "Invalid 'messages': empty array"),
        (
            {"model": "claude-sonnet-4-5", "max_tokens": 64, "system": "be brief", "messages": []},
            "anthropic",
            "A14",
            "messages: at least one message is required",
        ),
        ({"contents": []}, "gemini", "G6", "contents is not specified"),
    ],
)
def test_a_request_with_no_message_is_rejected_by_its_own_provider(
    tmp_path: Path, body: object, own: str, rule: str, error: str
) -> None:
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(body))
    r = _run(str(path))
    assert r.returncode == 1, r.stdout
    assert f"but {own} rejects it" in r.stdout
    r = _run(str(path), "--provider", own)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    # No [n]: the problem is the list's, said at the provider's name for the list.
    problem = [line for line in lines if f"  {rule}: " in line]
    assert len(problem) == 2 and all(line.lstrip().split()[0] in ("messages", "contents") for line in problem)
    assert "[-1]" not in r.stdout and error in r.stdout
    assert "not fixed by repair" in r.stdout and "after repair:" in r.stdout
    r = _run(str(path), "--provider", own, "--json")
    assert r.returncode == 1
    report = json.loads(r.stdout)["providers"][own]
    assert (report["problems"], report["after_repair"]) == (1, 1)
    [before] = report["before"]
    assert (before["rule"], before["index"], before["n"], before["fixed_by_repair"]) == (rule, None, None, False)


def test_a_system_message_alone_is_a_chat_request_openai_takes(tmp_path: Path) -> None:
    path = _write(tmp_path / "system.json", [{"role": "system", "content": "be brief"}])
    assert _run(str(path)).returncode == 0
    r = _run(str(path), "--provider", "openai-chat,anthropic")
    assert r.returncode == 1  # Anthropic takes the system prompt apart, and has no message left
    assert "openai-chat: no problems" in r.stdout and "A14" in r.stdout


def test_unknown_provider_exits_2(clean: Path) -> None:
    r = _run(str(clean), "--provider", "openai")
    assert r.returncode == 2
    assert "unknown provider 'openai'" in r.stderr and "anthropic" in r.stderr
    assert "Traceback" not in r.stderr


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    for path in (tmp_path / "bad.json", tmp_path / "missing.json"):
        r = _run(str(path), "--provider", "all")
        assert r.returncode == 2
        assert r.stderr.startswith("suture: error:") and "Traceback" not in r.stderr


def test_control_characters_in_ids_do_not_reach_the_terminal(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "evil.json",
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [_call("x\x1b[31mred")]},
        ],
    )
    r = _run(str(path), "--provider", "anthropic")
    assert r.returncode == 1
    assert "\x1b" not in r.stdout
    assert "x\\x1b[31mred" in r.stdout


def test_long_lists_are_cut_in_the_terminal_unless_all(tmp_path: Path) -> None:
    messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for i in range(30):
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [_call(f"call_{i}")]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": "ok"},
        ]
    path = _write(tmp_path / "long.json", messages)
    r = _run(str(path), "--provider", "mistral")
    assert r.returncode == 1
    assert r.stdout.count("mistral would say:") == 40  # 20 before, 20 after repair
    assert "… and 40 more (M1); --all lists them" in r.stdout
    r = _run(str(path), "--provider", "mistral", "--all")
    assert r.stdout.count("mistral would say:") == 120
    assert "more" not in r.stdout


def test_a_file_that_reads_as_other_formats_too_says_so(tmp_path: Path) -> None:
    """Detection found other formats that fit: check's header and --json name them."""
    path = _write(tmp_path / "both.json", [{"role": "user", "content": ""}, {"role": "user", "content": []}])
    header = _run(str(path)).stdout.splitlines()[0]
    assert header.endswith(
        "(it reads as Anthropic Messages, OpenAI Responses input items or Vercel AI SDK ModelMessage list just as "
        "well: --format messages, responses or vercel judges it as that format)"
    ), header
    assert "(it reads as Anthropic Messages, OpenAI" in _run("--provider", "anthropic", str(path)).stdout
    assert json.loads(_run("--json", str(path)).stdout)["other_formats"] == ["messages", "responses", "vercel"]
    # Named: no other reading to offer.
    assert json.loads(_run("--json", "--format", "messages", str(path)).stdout)["other_formats"] == []


def test_a_file_of_one_format_only_names_none(clean: Path) -> None:
    report = json.loads(_run("--json", "--provider", "anthropic", str(clean)).stdout)
    assert report["other_formats"] == []
    assert "reads as" not in _run(str(clean)).stdout


@pytest.mark.parametrize("value", ["", ",", " "])
def test_an_empty_provider_is_refused_as_an_unknown_one_is(clean: Path, value: str) -> None:
    proc = _run(str(clean), "--provider", value)
    assert proc.returncode == 2 and proc.stdout == ""
    assert (
        proc.stderr.startswith("suture: error: --provider ") and "names no provider; known providers: " in proc.stderr
    )
    assert proc.stderr.count("\n") == 1


def test_a_file_not_in_the_format_named_is_refused_saying_why(clean: Path) -> None:
    session = ROOT / "sample_sessions" / "real" / "claude-code" / "short.jsonl"
    proc = _run(str(session), "--format", "messages")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "this file is not in the messages format (line 1: message has no role); it reads as claude-code" in (
        proc.stderr
    )
    proc = _run(str(clean), "--format", "gemini")
    assert proc.returncode == 2
    assert "this file is not in the gemini format (contents[0].parts: must be a list, got null)" in proc.stderr
    assert proc.stderr.rstrip().endswith("it reads as chat (--format chat)")


def test_without_provider_a_long_list_is_cut_as_with_it(tmp_path: Path) -> None:
    """Without --provider the Valid property's problems are listed as --provider lists its own:
    the first 20, then how many more and that --all lists them."""
    messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for k in range(30):
        messages.append({"role": "assistant", "content": None, "tool_calls": [_call(f"call{k:03d}")]})
        messages.append({"role": "user", "content": "next"})
    path = _write(tmp_path / "many.json", messages)
    lines = _run(str(path)).stdout.splitlines()
    assert lines[0].startswith(f"{path}: 30 problems")
    listed = [line for line in lines if line.startswith("  [")]
    assert len(listed) == 20
    assert "  … and 10 more; --all lists them, --json gives every field" in lines
    every = _run("--all", str(path)).stdout.splitlines()
    assert len([line for line in every if line.startswith("  [")]) == 30 and not any("more;" in x for x in every)
