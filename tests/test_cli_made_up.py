"""What an agent makes up on resume (Claude Code's interrupted result and its reply, Codex's
"aborted" output, pi's "No result provided") is ``[new]`` wherever suture numbers a message:
``suture check`` (text and ``--json``), its header, and ``suture explain``; with the call of the
file it answers, never numbered as that call's message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suture import load_file
from suture.sent import agent_name
from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "sample_sessions" / "recorded"
KILLED = {
    "claude-code": RECORDED / "claude-code-2.1.328" / "killed-during-tool" / "session.jsonl",
    "codex": RECORDED / "codex-0.171.0" / "killed-during-tool" / "session.jsonl",
    "pi": RECORDED / "pi-0.73.1" / "killed-during-tool" / "session.jsonl",
}
"""A session of each agent whose last call never got a result: the agent makes one up on resume."""


def _calls(path: Path) -> dict[str, int]:
    """The call ids of the file as written, each with its message's number (check's ``[n]``)."""
    messages = load_file(str(path)).messages
    return {c.id: i for i, m in enumerate(messages) for c in m.tool_calls}


@pytest.mark.parametrize("agent", sorted(KILLED))
def test_check_json_numbers_a_made_up_result_new_with_the_call_it_answers(agent: str) -> None:
    path = KILLED[agent]
    calls = _calls(path)
    report = json.loads(run("check", str(path), "--provider", "mistral", "--json").stdout)
    problems = report["providers"]["mistral"]["sent"]
    # Mistral's id rule finds the call and the result the agent makes up for it, at two places.
    made = [p for p in problems if p["made_up"] is not None]
    assert made, problems
    for p in made:
        call = calls[p["call_id"]]
        assert (p["n"], p["written_index"], p["written"]) == (None, None, [])
        assert p["made_up"] == f"{agent_name(agent)}'s result for call {p['call_id']} of [{call}]"
        assert p["source"] == f"{p['made_up']}, made up on resume"
    own = [p for p in problems if p["made_up"] is None and p["call_id"] in {q["call_id"] for q in made}]
    assert own and all(p["n"] == calls[p["call_id"]] for p in own)
    # One problem a place: the call's message is not numbered twice.
    assert len({p["place"] for p in problems}) == len(problems)


@pytest.mark.parametrize("agent", sorted(KILLED))
def test_check_text_says_new_and_the_header_names_what_the_agent_writes_itself(agent: str) -> None:
    path = KILLED[agent]
    who = agent_name(agent)
    report = json.loads(run("check", str(path), "--provider", "mistral", "--json").stdout)
    (made,) = [p for p in report["providers"]["mistral"]["sent"] if p["made_up"] is not None]
    text = run("check", str(path), "--provider", "mistral").stdout
    call = _calls(path)[made["call_id"]]
    assert f"  [new] tool ({made['made_up']}, made up on resume) {made['where']}  M1: " in text
    assert f"  [{call}] tool " not in text and f"  [{call}] assistant " in text
    # The provider's line names what the agent writes itself at that place, as it names what it adds.
    assert f"; {made['where']} is {who}'s result for call {made['call_id']} of [{call}], which it writes itself" in text


def test_claude_codes_header_names_its_result_and_its_reply() -> None:
    path = KILLED["claude-code"]
    text = run("check", str(path)).stdout
    call_id, call = next(iter(_calls(path).items()))
    assert f"messages.3 is Claude Code's result for call {call_id} of [{call}], which it writes itself" in text
    assert 'messages.4 is Claude Code\'s reply "No response requested.", which it writes itself' in text


def test_explain_names_a_made_up_result_new_not_the_calls_message() -> None:
    path = KILLED["claude-code"]
    call_id, call = next(iter(_calls(path).items()))
    error = (
        f"messages.3.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {call_id}. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message."
    )
    proc = run("explain", str(path), error)
    said = proc.stdout
    assert f"  messages.3 there is [new]: Claude Code's result for call {call_id} of [{call}]" in said, said
    assert "there is written as" not in said and "wrong file" not in said
    assert f"it answers:\n  [{call}] assistant " in said
    report = json.loads(run("explain", "--json", str(path), error).stdout)
    assert report["sent"]["index"] == 3 and report["sent"]["written"] == []
    assert report["sent"]["made_up"].startswith(f"Claude Code's result for call {call_id} of [{call}]")
