"""The command line on what is sent: ``suture sent``, ``suture check`` on a session log, and
``suture explain`` beside a recorded error, as a person runs them, on every recorded shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import REAL
from tests.helpers.cli import run
from tests.helpers.sent import FOLDERS, IDS, STRICT, blank_second_prompt, compared, shape
from tools.agents.record import CORPUS


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_suture_sent_prints_the_history_the_real_agent_sent(folder: Path) -> None:
    proc = run("sent", folder / "session.jsonl")
    assert proc.returncode == 0, proc.stderr
    real, predicted = compared(folder, json.loads(proc.stdout))
    assert predicted == real
    assert proc.stderr.startswith("suture: ") and proc.stderr.count("\n") == 1


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_suture_check_exits_1_exactly_when_the_real_request_was_rejected(folder: Path) -> None:
    meta = shape(folder)
    provider = meta["provider"]
    rejected = meta["resume"]["outcome"] == "rejected"
    # The mock's Responses endpoint is strict: suture's strict profile is the one to compare.
    proc = run("check", "--provider", STRICT.get(provider, provider), folder / "session.jsonl")
    assert proc.returncode == (1 if rejected else 0), proc.stdout + proc.stderr


@pytest.mark.parametrize("path", sorted(REAL.rglob("*.jsonl")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_check_finds_no_problem_in_what_the_real_agents_send(path: Path) -> None:
    proc = run("check", path)
    assert proc.returncode == 0, proc.stdout
    assert "no problems in what" in proc.stdout
    assert "resume is assumed" in proc.stdout  # these versions are not the modelled ones


def test_check_lists_the_agents_own_fixes_as_notes_and_labels_the_contract_view() -> None:
    proc = run("check", REAL / "claude-code" / "tool_heavy.jsonl")
    assert proc.returncode == 0
    assert "Claude Code repairs this itself (not a problem):" in proc.stdout
    assert "whitespace-only text block" in proc.stdout
    assert "contract view (suture's repair of the file as written" in proc.stdout
    report = json.loads(run("check", "--json", REAL / "claude-code" / "tool_heavy.jsonl").stdout)
    anthropic = report["providers"]["anthropic"]
    assert (anthropic["verdict"], anthropic["problems"]) == ("accepted", 0)
    assert [n["kind"] for n in anthropic["notes"]] == ["inserted_reply", "dropped_block"]
    assert anthropic["contract"]["problems"] == 2  # the file as written, judged as a request
    assert report["assumed"] == "Claude Code 2.1.38 wrote this file; Claude Code 2.1.332's resume is assumed"


def test_check_names_each_problem_of_the_contract_view_as_the_app_does() -> None:
    # The file as written breaks A7 and A12 (a whitespace-only text block before a thinking
    # block) and suture's repair leaves both: each is listed under the contract view's line,
    # before and after repair, with the rule and the problem the app's list shows.
    path = REAL / "claude-code" / "short.jsonl"
    lines = run("check", path, "--provider", "anthropic").stdout.splitlines()
    head = lines.index(
        "  contract view (suture's repair of the file as written; suture repair changes nothing): "
        "anthropic: 2 problems → 2 after repair"
    )
    listed = [line for line in lines[head + 1 :] if line.startswith("  [")]
    assert [line.split("  ")[2].split(":")[0] for line in listed] == ["A7", "A12", "A7", "A12"]
    assert listed[0].endswith("A7: a text block holding only whitespace")
    assert listed[1].startswith("  [1] assistant (line 5, merged with 4 more lines through line 10)")
    assert "  anthropic would say, of the file sent as written: messages.1.content.0: If an assistant" in "\n".join(
        lines
    )
    assert "  after suture's repair (the error counts the repaired file):" in lines
    # Numbered as every line of the file's is: the message as written it came from.
    assert listed[2].startswith("  [1] assistant (line 5, merged with 4 more lines through line 10)")
    report = json.loads(run("check", "--json", path).stdout)
    contract = report["providers"]["anthropic"]["contract"]
    assert [x["rule"] for x in contract["before"]] == [x["rule"] for x in contract["after"]] == ["A7", "A12"]


def test_check_names_the_problem_where_it_is_in_the_file() -> None:
    folder = CORPUS / "claude-code-2.1.328" / "text-before-result"
    proc = run("check", folder / "session.jsonl")
    assert proc.returncode == 1
    assert "anthropic: rejected, 1 problem in what Claude Code sends" in proc.stdout
    assert "A1a" in proc.stdout
    report = json.loads(run("check", "--json", folder / "session.jsonl").stdout)
    (problem,) = report["providers"]["anthropic"]["sent"]
    assert problem["rule"] == "A1a" and problem["source"] == "line 22, message.content[1]"


def test_a_damaged_line_the_agent_skips_is_reported_and_the_rest_is_judged(tmp_path: Path) -> None:
    folder = CORPUS / "claude-code-2.1.328" / "killed-during-tool"
    lines = (folder / "session.jsonl").read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"".join([*lines[:5], b'{"type": "user", "messa\n', *lines[5:]]))
    proc = run("check", damaged)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "skipped line 6" in proc.stderr and "the agent skips it too" in proc.stderr
    assert "no problems in what Claude Code sends" in proc.stdout


def test_explain_shows_the_request_behind_the_recorded_400() -> None:
    folder = CORPUS / "claude-code-2.1.328" / "text-before-result"
    proc = run("explain", folder / "resumed.jsonl")
    assert "The request behind it (recorded at line" in proc.stdout
    assert "every message rebuilt from the file" in proc.stdout
    assert "messages.3 of that request: user: text 'Note added by hand.', tool_result" in proc.stdout
    report: dict[str, Any] = orjson.loads(run("explain", "--json", folder / "resumed.jsonl").stdout)
    request = report["request"]
    assert request["complete"] and request["named"]["index"] == 3
    assert [b["type"] for b in request["named"]["message"]["content"]] == ["text", "tool_result"]
    assert "A1a" in {p["rule"] for p in request["problems"]}
    assert request["body"]["messages"][3] == request["named"]["message"]


def test_sent_of_a_request_file_is_its_own_history(tmp_path: Path) -> None:
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    path = tmp_path / "chat.json"
    path.write_bytes(orjson.dumps(history))
    proc = run("sent", path)
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == history
    assert json.loads(run("sent", "--body", "-q", path).stdout) == {"messages": history}


def test_check_names_every_record_a_rejected_joined_message_came_from(tmp_path: Path) -> None:
    path = blank_second_prompt(tmp_path)
    proc = run("check", path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "  [0] user (line 3; joined on resume with line 22) messages.0.content.2  A7:" in proc.stdout
    report = json.loads(run("check", "--json", path).stdout)
    (problem,) = report["providers"]["anthropic"]["sent"]
    assert problem["rule"] == "A7"
    assert problem["written_index"] == 0 and problem["written"] == [0, 2]
    assert problem["source"] == "line 3; joined on resume with line 22"


def test_check_names_one_record_where_the_message_is_one_record() -> None:
    report = json.loads(
        run("check", "--json", CORPUS / "claude-code-2.1.328" / "text-before-result" / "session.jsonl").stdout
    )
    (problem,) = report["providers"]["anthropic"]["sent"]
    assert problem["written"] == [2, 3] and problem["source"] == "line 22, message.content[1]"


def test_suture_sent_names_the_places_of_what_the_agent_adds() -> None:
    """The list is what the file gives; the message the agent adds (Claude Code's system message,
    the second of its recorded request) is not in it, and the summary says where the request
    holds it, as the provider's index counts it."""
    folder = CORPUS / "claude-code-2.1.328" / "text-before-result"
    last = orjson.loads((folder / "requests.jsonl").read_bytes().splitlines()[-1])
    body = last.get("body", last)
    assert body["messages"][1]["role"] == "system"
    proc = run("sent", folder / "session.jsonl")
    assert "this list has 4 of them, leaving out what Claude Code adds (messages.1: the system message" in proc.stderr
    assert "--body puts it in)" in proc.stderr
    assert all(m["role"] != "system" for m in json.loads(proc.stdout))
    # With --body it is there, a stand-in at its place: messages.N of the provider's error is
    # the body's Nth message.
    proc = run("sent", "--body", folder / "session.jsonl")
    sent = json.loads(proc.stdout)["messages"]
    assert [m["role"] for m in sent[:3]] == [m["role"] for m in body["messages"][:3]]
    assert "the system message Claude Code adds" in sent[1]["content"]
    assert "this list has all 5, with a stand-in for what Claude Code adds (messages.1: " in proc.stderr


@pytest.mark.parametrize("name", ["short.jsonl", "tool_heavy.jsonl"])
def test_check_and_sent_count_the_messages_sent_alike(name: str) -> None:
    """The request's messages before the new prompt, as the provider numbers them: one count in
    check's header, check's JSON and sent's line (not the neutral messages, where each tool
    result is one of its own)."""
    path = REAL / "claude-code" / name
    header = run("check", path).stdout.splitlines()[0]
    report = json.loads(run("check", "--json", path).stdout)
    n = report["sent_messages"]
    assert n == report["request"]["history"]
    assert f", {n} messages in the request Claude Code sends on resume" in header
    sent = run("sent", path)
    assert f"sends anthropic a request of {n} messages before the new prompt" in sent.stderr
    assert f"this list has {len(json.loads(sent.stdout))} of them" in sent.stderr


COMPACTED = [
    (CORPUS / "claude-code-2.1.332" / "compaction" / "session.jsonl", "lines 1–27 are before a compaction (line 28)"),
    (
        REAL / "claude-code" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
        "lines 1–753 are before a compaction (line 754) and are not sent",
    ),
]


@pytest.mark.parametrize(("path", "said"), COMPACTED, ids=["recorded", "real"])
def test_check_and_sent_say_the_lines_before_a_compaction_are_not_sent(path: Path, said: str) -> None:
    from suture.cli._common import load_sent
    from suture.formats import before_compaction, skipped

    transcript = load_sent(str(path), None, False)
    (sentence,) = skipped(transcript)  # the words the app's banner says
    assert sentence.startswith(said)
    proc = run("check", path)
    head, under = proc.stdout.splitlines()[:2]
    assert head.startswith(f"{path}: Claude Code") and under == f"  {sentence}"
    report = json.loads(run("check", "--json", path).stdout)
    assert report["history_not_sent"] == [sentence]
    records = report["before_compaction"]
    assert len(records) == len(before_compaction(transcript)) and records[0]["source"] == "line 1"
    assert {r["kind"] for r in records} <= {"compacted", "compaction"}
    sent = run("sent", path)
    assert sent.returncode == 0 and sentence in sent.stderr and sent.stderr.count("\n") == 1


def test_check_of_a_session_without_a_compaction_names_none() -> None:
    path = CORPUS / "claude-code-2.1.332" / "killed-during-tool" / "session.jsonl"
    report = json.loads(run("check", "--json", path).stdout)
    assert report["history_not_sent"] == [] and report["before_compaction"] == []
    assert "before a compaction" not in run("check", path).stdout
