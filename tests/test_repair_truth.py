"""What ``suture repair`` writes and says agrees with the file written: a diff of a chat JSONL
file and its repair shows only the lines the repair changed."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from suture.checks import check
from suture.formats import load_file
from tests.helpers.cli import run
from tests.helpers.sent import thinking_after_text

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"


def _spaced_jsonl(records: list[object]) -> bytes:
    """JSONL as Python's json module writes it (spaces after ``:`` and ``,``), which suture's own
    writer does not: a line suture wrote again would differ from it."""
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_chat_jsonl_repair_changes_only_the_lines_it_repairs(tmp_path: Path) -> None:
    records = orjson.loads(WORKED.read_bytes())
    path = tmp_path / "worked.jsonl"
    path.write_bytes(_spaced_jsonl(records))
    out = tmp_path / "out.jsonl"
    proc = run("repair", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    before = path.read_bytes().splitlines()
    after = out.read_bytes().splitlines()
    # The worked example: 4 (a placeholder) is dropped; 6 (call x renamed x_1) and 8 (a result
    # made a note) are changed; a synthetic result is added; every other line is kept as it was.
    kept = [before[i] for i in (0, 1, 2, 3, 5, 7)]
    assert [line for line in after if line in before] == [before[i] for i in (0, 1, 5, 3, 2, 7)]
    assert set(kept) <= set(after)
    new = [orjson.loads(line) for line in after if line not in before]
    assert [(r["role"], r.get("tool_call_id")) for r in new] == [("assistant", None), ("tool", "x_1"), ("user", None)]
    # The renamed call's line keeps every byte outside the calls it renames.
    renamed = next(line for line in after if b"x_1" in line and b'"assistant"' in line)
    assert renamed.startswith(b'{"role": "assistant", "content": null, "tool_calls": [')
    assert orjson.loads(renamed)["tool_calls"][0]["id"] == "x_1"
    assert after[-1].startswith(b'{"role": "user"')  # (a line added is spaced as the file's lines are)


def test_chat_jsonl_a_repair_does_not_change_is_written_byte_for_byte(tmp_path: Path) -> None:
    records = [
        {"content": "run the tests", "role": "user"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"arguments": "{}", "name": "t"}}]},
        {"tool_call_id": "c1", "role": "tool", "content": "12 passed"},
        {"role": "assistant", "content": "All green.", "extra": {"b": 1, "a": [1, 2]}},
    ]
    path = tmp_path / "clean.jsonl"
    path.write_bytes(_spaced_jsonl(records).replace(b"\n", b"\r\n"))
    out = tmp_path / "out.jsonl"
    proc = run("repair", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "no changes needed" in proc.stderr
    assert out.read_bytes() == path.read_bytes()


# -- a call the session written back names otherwise than the repair -----------------------------

REPEATED = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328" / "repeated-id" / "session.jsonl"


def _written_call_ids(data: bytes) -> list[str]:
    return [
        block["id"]
        for line in data.splitlines()
        if (record := orjson.loads(line)).get("type") == "assistant"
        for block in record["message"]["content"]
        if block.get("type") == "tool_use"
    ]


def test_the_report_and_the_summary_name_the_id_the_session_is_written_with(tmp_path: Path) -> None:
    out, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    proc = run("repair", REPEATED, "-o", out, "--report", report)
    assert proc.returncode == 0, proc.stderr
    [change] = orjson.loads(report.read_bytes())["changes"]
    final, written = change["new_id"], change["written_id"]
    assert final.endswith("_1") and written == final[:-2] + "-1"
    assert written in _written_call_ids(out.read_bytes()) and final not in _written_call_ids(out.read_bytes())
    assert (
        f"renamed to {written}:" in change["summary"] and f"(not {final}: Claude Code would read" in change["summary"]
    )


def test_a_request_body_keeps_the_final_id_and_says_it(tmp_path: Path) -> None:
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    proc = run("repair", REPEATED, "--to", "messages", "-o", out, "--report", report)
    assert proc.returncode == 0, proc.stderr
    [change] = orjson.loads(report.read_bytes())["changes"]
    assert "written_id" not in change and f"renamed to {change['new_id']}:" in change["summary"]
    assert change["new_id"].encode() in out.read_bytes()


async def test_the_apps_details_show_the_id_the_session_is_written_with(tmp_path: Path) -> None:
    from suture.tui.app import SutureApp
    from suture.tui.details import DetailScreen
    from tests.helpers.app import ready

    app = SutureApp(REPEATED, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        [change] = model.repair.changes
        assert change.new_id is not None
        written = change.new_id[:-2] + "-1"
        app.view.select(model.row_of_output[change.output_index or 0])
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        why = str(screen.query_one("#detail-why").content)
        assert f"renamed to {written}:" in why
        repaired = screen.query_one("#detail-body-1").content
        calls = str(repaired).split("calls\n", 1)[1].splitlines()[0]
        assert calls.endswith(f" {written}")


# -- a request body the provider would reject -----------------------------------------------------

SESSIONS = sorted((ROOT / "sample_sessions" / "claude-code").glob("*.jsonl")) + sorted(
    (ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328").glob("*/session.jsonl")
)
PARALLEL = ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl"


def test_a_request_body_anthropic_would_reject_is_said_on_stderr(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = run("repair", PARALLEL, "--to", "messages", "-o", out, "-q")
    assert proc.returncode == 0
    [warning] = proc.stderr.splitlines()
    assert warning.startswith(f"suture: warning: {out}: Anthropic Messages would reject it: 2 problems")
    assert "(A7, A12)" in warning and "messages.1.content.0 A7: a text block holding only whitespace" in warning


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: p.parent.name if p.name == "session.jsonl" else p.stem)
def test_what_repair_says_of_a_request_body_is_what_check_says_of_the_file(tmp_path: Path, session: Path) -> None:
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    proc = run("repair", session, "--to", "messages", "-o", out, "--report", report)
    assert proc.returncode == 0, proc.stderr
    said = [(v["rule"], v["where"], v["problem"]) for v in orjson.loads(report.read_bytes())["provider_check"]]
    found = [(v.rule, v.where, v.problem) for v in check(load_file(out).messages, "anthropic")]
    assert said == found
    assert ("would reject it" in proc.stderr) == bool(found)


_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_SHOT = {"type": "tool_use", "id": "toolu_1", "name": "screenshot", "input": {}}
_PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
CONVERSIONS = {
    # Two calls with one id (the second renamed), written for Gemini: calls from another format go
    # with Gemini's placeholder signature, so neither verdict asks for one (G4).
    "chat-to-gemini": (
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [_CALL, {**_CALL, "function": {"name": "g"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "A1"},
            {"role": "tool", "tool_call_id": "c1", "content": "A2"},
            {"role": "assistant", "content": "done"},
        ],
        "gemini",
        "gemini",
        [],
    ),
    # A screenshot in a tool result, written for OpenAI Chat: an image in a tool message (O7).
    "messages-to-chat": (
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_SHOT]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [_PNG]}]},
        ],
        "chat",
        "openai-chat",
        ["O7"],
    ),
}


@pytest.mark.parametrize("name", CONVERSIONS)
def test_what_a_conversion_says_of_its_body_is_what_check_says_of_the_file(tmp_path: Path, name: str) -> None:
    records, to, provider, rules = CONVERSIONS[name]
    path, out, report = tmp_path / "in.json", tmp_path / "out.json", tmp_path / "report.json"
    path.write_bytes(orjson.dumps(records))
    proc = run("repair", path, "--to", to, "-o", out, "--report", report)
    assert proc.returncode == 0, proc.stderr
    said = [(v["rule"], v["where"], v["problem"]) for v in orjson.loads(report.read_bytes())["provider_check"]]
    found = [(v.rule, v.where, v.problem) for v in check(load_file(out).messages, provider)]
    assert said == found
    assert [rule for rule, _, _ in found] == rules
    assert ("would reject it" in proc.stderr) == bool(rules)


def test_a_session_written_back_is_judged_as_suture_check_judges_it(tmp_path: Path) -> None:
    # By what its agent sends on resume from it: this one, accepted, gets no warning.
    out, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    proc = run("repair", PARALLEL, "-o", out, "--report", report)
    assert proc.returncode == 0 and "warning" not in proc.stderr
    assert orjson.loads(report.read_bytes())["provider_check"] == []


def test_a_session_its_agent_would_still_send_rejected_gets_a_warning(tmp_path: Path) -> None:
    # Text, then thinking, in one assistant message (A12): neither suture's repair nor Claude
    # Code mends it (Claude Code leaves out only a whitespace-only text block there). The repair
    # changes nothing; it says so, and that Anthropic would reject what Claude Code sends.
    path, out, report = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "report.json"
    path.write_bytes(thinking_after_text(ROOT / "sample_sessions" / "real" / "claude-code" / "short.jsonl"))
    checked = run("check", path, "--json")
    assert checked.returncode == 1
    assert [v["rule"] for v in orjson.loads(checked.stdout)["providers"]["anthropic"]["sent"]] == ["A12"]
    proc = run("repair", path, "-o", out, "--report", report)
    assert proc.returncode == 0, proc.stderr
    warning, summary = proc.stderr.splitlines()
    assert warning.startswith(
        f"suture: warning: {out}: Anthropic Messages would reject what Claude Code sends on resume from it: "
        "1 problem the repair does not fix (A12); the first, messages.2.content.0 A12: "
    )
    assert warning.endswith("; suture check on the written file lists them")
    assert summary.startswith("suture: the repair changes nothing")
    assert [v["rule"] for v in orjson.loads(report.read_bytes())["provider_check"]] == ["A12"]
    assert run("check", out).returncode == 1  # as the warning says


# -- a valid history the contract still changes ------------------------------------------------

NO_ID = [
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "", "type": "function", "function": {"name": "ls"}}]},
    {"role": "tool", "tool_call_id": "", "content": "a b"},
    {"role": "assistant", "content": " \n"},
    {"role": "assistant", "content": "two files"},
]


def test_check_and_repair_agree_on_a_valid_history_its_provider_rejects(tmp_path: Path) -> None:
    path, out = tmp_path / "no-id.json", tmp_path / "out.json"
    path.write_bytes(orjson.dumps(NO_ID))
    checked = run("check", path)
    # Valid, but its own provider rejects it (an empty id, a whitespace-only message): not clean.
    assert checked.returncode == 1
    assert checked.stdout.startswith(f"{path}: valid (5 messages, chat), but openai-chat rejects it\n")
    proc = run("repair", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    # The changes mend what openai-chat rejects: the summary does not call the input valid.
    assert proc.stderr.rstrip() == (
        "suture: 2 changes (1 dropped placeholder, 1 renamed id); "
        "4 messages and 1 tool result in, 3 messages and 1 tool result out"
    )
    assert orjson.loads(out.read_bytes())[1]["tool_calls"][0]["id"] == "call_1_0"
    assert run("check", out).returncode == 0


def test_repair_says_why_it_changes_a_valid_history_no_provider_rejects(tmp_path: Path) -> None:
    # An AI SDK file (written for no single provider) with a whitespace-only assistant message:
    # valid, clean, and the contract still drops the message (rule 1).
    text = [{"type": "text", "text": t} for t in ("list the files", " \n", "two files")]
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "ls", "input": {}}
    result = {"type": "tool-result", "toolCallId": "c1", "toolName": "ls", "output": {"type": "text", "value": "a b"}}
    history = [
        {"role": "user", "content": [text[0]]},
        {"role": "assistant", "content": [call]},
        {"role": "tool", "content": [result]},
        {"role": "assistant", "content": [text[1]]},
        {"role": "assistant", "content": [text[2]]},
    ]
    path = tmp_path / "sdk.json"
    path.write_bytes(orjson.dumps(history))
    checked = run("check", path)
    assert checked.returncode == 0 and checked.stdout.startswith(f"{path}: valid (5 messages, vercel)")
    proc = run("repair", path, "-o", tmp_path / "out.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.rstrip().endswith(
        "; the input was already valid (suture check says so), and the contract still changes it: "
        "rule 1 drops 1 empty assistant message"
    )


def test_a_repair_that_mends_a_broken_history_does_not_call_it_valid(tmp_path: Path) -> None:
    # Two calls share an id: a breach of the Valid property, mended by a rename alone.
    call = {"id": "a", "type": "function", "function": {"name": "ls"}}
    answered = [{"role": "assistant", "content": None, "tool_calls": [call]}, {"role": "tool", "tool_call_id": "a"}]
    path = tmp_path / "broken.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": "hi"}, *answered, *answered]))
    assert run("check", path).returncode == 1
    proc = run("repair", path, "-o", tmp_path / "out.json")
    assert proc.returncode == 0 and "1 change (1 renamed id)" in proc.stderr
    assert "already valid" not in proc.stderr


def test_an_interrupted_call_written_under_another_id_is_named_by_it(tmp_path: Path) -> None:
    # The repeated-id session without the second call's result: renamed, and interrupted.
    lines = REPEATED.read_bytes().splitlines(keepends=True)
    [answer] = [n for n, line in enumerate(lines) if b"done-b" in line and b'"tool_result"' in line]
    path, out, report = tmp_path / "s.jsonl", tmp_path / "out.jsonl", tmp_path / "report.json"
    path.write_bytes(b"".join(lines[:answer] + lines[answer + 1 :]))
    proc = run("repair", path, "-o", out, "--report", report)
    assert proc.returncode == 0, proc.stderr
    value = orjson.loads(report.read_bytes())
    [renamed, made] = value["changes"]
    written = renamed["written_id"]
    assert made["kind"] == "synthetic_interrupt" and made["written_id"] == written
    assert made["summary"].startswith(f"call {written} (Bash) had no result")
    assert value["interrupted"] == [written] and f"; interrupted: {written};" in proc.stderr
    assert out.read_bytes().count(written.encode()) == 2  # the call and its made-up result


def test_sessions_converted_into_an_out_dir_are_named_for_what_is_written(tmp_path: Path) -> None:
    folder, out = tmp_path / "in", tmp_path / "out"
    folder.mkdir()
    for session in (PARALLEL, REPEATED):
        (folder / f"{session.parent.name}.jsonl").write_bytes(session.read_bytes())
    proc = run("repair", folder, "--to", "messages", "--out-dir", out)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["claude-code.json", "repeated-id.json"]
    assert all(isinstance(orjson.loads(p.read_bytes()), list) for p in out.iterdir())
    assert f"written to {out / 'claude-code.json'}" in proc.stderr
    # The warning names the input, as every line of a batch does, and the file written.
    named = f"suture: warning: {folder / 'claude-code.jsonl'}: {out / 'claude-code.json'}: Anthropic Messages would"
    assert named in proc.stderr
    # Written back (no --to), a session keeps its name.
    again = run("repair", folder, "--out-dir", tmp_path / "back", "-q")
    assert again.returncode == 0 and sorted(p.name for p in (tmp_path / "back").iterdir()) == [
        "claude-code.jsonl",
        "repeated-id.jsonl",
    ]


def test_converting_into_an_out_dir_refuses_two_inputs_one_name_would_take(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(PARALLEL.read_bytes())
    (folder / "a.json").write_bytes(orjson.dumps(NO_ID))
    proc = run("repair", folder, "--to", "messages", "--out-dir", tmp_path / "out")
    assert proc.returncode == 2 and "has the same name as" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_input_given_twice_is_said_once(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(orjson.dumps(NO_ID))
    proc = run("repair", path, path, "--out-dir", tmp_path / "out")
    assert proc.returncode == 2
    assert proc.stderr == f"suture: error: {path}: is given twice; give each input once; nothing written\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("spelled", [".", "./", "in", "in/"])
def test_an_out_dir_that_holds_the_inputs_is_one_error(tmp_path: Path, spelled: str) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.json", "b.json", "c.jsonl"):
        (folder / name).write_bytes(orjson.dumps(NO_ID) if name.endswith(".json") else PARALLEL.read_bytes())
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    cwd = folder if spelled.startswith(".") else tmp_path
    proc = run(
        "repair",
        *sorted(p.name if cwd == folder else f"in/{p.name}" for p in folder.iterdir()),
        "--out-dir",
        spelled,
        cwd=cwd,
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"suture: error: --out-dir {spelled}: holds the inputs")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
