"""``suture repair`` of a session log, as a person runs it: the session written back by default,
``--to`` for a request body, ``--in-place`` with a copy kept, ``-o`` whose ending must fit."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import suture
from suture.checks import check
from suture.cli import main
from suture.model import Message, text_of
from suture.repair import repair
from suture.sent import as_sent
from suture.writeback import write_back
from tests.held import history_of, missing, sent_ids
from tests.helpers.cli import one_error_line, run
from tests.helpers.sent import STRICT
from tools.agents.corpus import shape_folders
from tools.agents.rules import CHECKS

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "sample_sessions" / "recorded"
TEXT_BEFORE = CORPUS / "claude-code-2.1.328" / "text-before-result" / "session.jsonl"
KILLED = CORPUS / "claude-code-2.1.328" / "killed-during-tool" / "session.jsonl"
CODEX = CORPUS / "codex-0.169.0" / "item-between-call-and-output" / "session.jsonl"
PI = CORPUS / "pi-0.73.1" / "orphan-result" / "session.jsonl"
CLEAN = CORPUS / "claude-code-2.1.328" / "tool-done-then-killed" / "session.jsonl"


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "a7aa0778.jsonl"
    shutil.copyfile(TEXT_BEFORE, path)
    return path


@pytest.mark.parametrize("path", [TEXT_BEFORE, KILLED, CODEX, PI], ids=lambda p: p.parent.parent.name)
def test_a_session_is_written_back_as_a_session_of_its_agent(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "fixed.jsonl"
    proc = run("repair", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    data = path.read_bytes()
    written = out.read_bytes()
    assert written == write_back(data, suture.load_bytes(data)).data
    assert suture.load_file(out).format == suture.load_bytes(data).format
    assert "session: " in proc.stderr.splitlines()[0]


def test_the_summary_says_what_changed_in_the_file(session: Path, tmp_path: Path) -> None:
    proc = run("repair", session, "-o", tmp_path / "fixed.jsonl")
    assert proc.stderr.splitlines() == [
        "suture: 1 change (1 moved result); 3 messages and 1 tool result, in and out; Claude Code session: 1 line changed"
    ]


ENTRY_LIKE = CORPUS / "claude-code-2.1.328" / "entry-like-id" / "session.jsonl"


def test_a_session_the_repair_leaves_but_the_agent_would_misread_is_said_once(tmp_path: Path) -> None:
    """The entry-like-id session: the repair changes no message, but the file is written with the
    call Claude Code would take for a batch entry renamed. One line says both, and why, in words."""
    out = tmp_path / "fixed.jsonl"
    proc = run("repair", ENTRY_LIKE, "-o", out)
    assert proc.returncode == 0, proc.stderr
    first, second = (c.id for m in suture.load_file(ENTRY_LIKE).messages for c in m.tool_calls)
    assert second == f"{first}_1"
    assert proc.stderr.splitlines() == [
        "suture: the history needs no repair (3 messages and 2 tool results), but the Claude Code session is "
        f"written with 2 lines changed for how Claude Code reads it: call {second} is written {first}-1 in the "
        f"call and its result, since Claude Code would read {second} (call {first}'s id and _1) as an entry of a "
        f"batch call {first} and send '[Tool result missing due to internal error]' in place of its result"
    ]
    assert out.read_bytes().count(f'"{first}-1"'.encode()) == 2
    # Replaced in place, the same line, then where the original is kept.
    path = tmp_path / "session.jsonl"
    shutil.copyfile(ENTRY_LIKE, path)
    proc = run("repair", "--in-place", path)
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("suture: the history needs no repair (3 messages and 2 tool results), but the Claude")
    assert "no changes needed" not in line and "; the original is kept as " in line


def test_a_codex_turn_written_with_its_output_after_the_call_says_so_without_a_change(tmp_path: Path) -> None:
    """The item-between-call-and-output rollout: the repair changes no message, but the rollout
    is written with the output moved up to its call (what strict servers require), as a Responses
    export writes it; the line says that, not "no changes needed"."""
    proc = run("repair", CODEX, "-o", tmp_path / "fixed.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "suture: the history needs no repair (4 messages and 1 tool result); 1 turn written with the outputs "
        "right after the calls; Codex session: 1 line moved, 4 lines renumbered"
    ]


def test_a_repair_the_file_names_otherwise_says_why_on_a_line_of_its_own(tmp_path: Path) -> None:
    """The repeated-id session: the repair renames the repeated call ``{id}_1``, which the file
    writes ``{id}-1``: the summary counts the change, a note says why the file names it otherwise."""
    path = CORPUS / "claude-code-2.1.328" / "repeated-id" / "session.jsonl"
    proc = run("repair", path, "-o", tmp_path / "fixed.jsonl")
    assert proc.returncode == 0, proc.stderr
    summary, note = proc.stderr.splitlines()
    assert summary == (
        "suture: 1 change (1 renamed id); 3 messages and 2 tool results, in and out; Claude Code session: 2 lines changed"
    )
    assert note.startswith("suture: call ") and "-1 in the call and its result, since Claude Code would read" in note


def test_what_the_agent_does_itself_is_named_not_written(tmp_path: Path) -> None:
    sample = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
    out = tmp_path / "fixed.jsonl"
    proc = run("repair", sample, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == sample.read_bytes()
    lines = proc.stderr.splitlines()
    assert lines[0].endswith("Claude Code session written unchanged")
    assert lines[1].startswith("suture: 2 results left where written among the results of their turns: Claude Code")


def test_among_several_inputs_every_line_names_its_input(tmp_path: Path) -> None:
    """A batch's notes (results left where written, a call the file names otherwise) name their
    input as its summary does: the output searched for one file gives all of its lines."""
    heavy = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
    repeated = CORPUS / "claude-code-2.1.328" / "repeated-id" / "session.jsonl"
    proc = run("repair", heavy, repeated, "--out-dir", tmp_path / "out", "--report", f"{tmp_path / 'reports'}{os.sep}")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 4
    assert all(line.startswith((f"suture: {heavy}: ", f"suture: {repeated}: ")) for line in lines), lines
    assert lines[1].startswith(f"suture: {heavy}: 2 results left where written among the results of their turns")
    assert lines[3].startswith(f"suture: {repeated}: call ") and "-1 in the call and its result" in lines[3]


def test_to_still_gives_the_request_body(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "body.json"
    proc = run("repair", session, "--to", "messages", "-o", out)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(out.read_bytes())
    assert [m["role"] for m in body] == ["user", "assistant", "user"]
    assert body[2]["content"][0]["type"] == "tool_result"


def test_an_ending_that_says_json_for_a_session_log_is_refused(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "fixed.json"
    line = one_error_line(run("repair", session, "-o", out))
    assert line == (
        f"suture: error: {out}: suture writes a Claude Code session log here, one JSON record a line (JSONL): "
        "name the file .jsonl, or pass --to messages for a request body"
    )
    assert not out.exists()


def test_an_ending_that_says_jsonl_for_a_request_body_is_refused(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "body.jsonl"
    line = one_error_line(run("repair", session, "--to", "messages", "-o", out))
    assert "suture writes an Anthropic request body (messages) here, one JSON document: name the file .json" in line
    assert "leave out --to to write the session itself" in line
    assert not out.exists()


def test_other_endings_are_not_judged(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "fixed.txt"
    assert run("repair", session, "-o", out).returncode == 0
    assert out.read_bytes().count(b"\n") > 5


def test_the_input_is_never_written_without_in_place(session: Path) -> None:
    before = session.read_bytes()
    assert run("repair", session).returncode == 0
    one_error_line(run("repair", session, "-o", session))
    assert session.read_bytes() == before
    assert sorted(p.name for p in session.parent.iterdir()) == [session.name]


def test_in_place_keeps_a_copy_and_replaces_the_session(session: Path) -> None:
    before = session.read_bytes()
    proc = run("repair", session, "--in-place")
    assert proc.returncode == 0, proc.stderr
    backup = session.with_name(session.name + ".bak")
    assert backup.read_bytes() == before
    assert session.read_bytes() == write_back(before, suture.load_bytes(before)).data
    [line] = proc.stderr.splitlines()
    assert f"the original is kept as {backup}" in line
    assert line.endswith(
        "resume it: cd /tmp/suture-claude-code-337iy2ll/work && claude --resume a7aa0778-e605-5581-ad0f-9c6d5b91ad90"
    )
    # Again: nothing to change, nothing written, no second copy.
    again = run("repair", session, "--in-place")
    assert again.returncode == 0, again.stderr
    assert again.stderr.rstrip().endswith(
        f"{session} left as it is: what repair writes is what it holds, byte for byte"
    )
    assert sorted(p.name for p in session.parent.iterdir()) == [session.name, backup.name]


def test_in_place_never_replaces_an_earlier_copy(session: Path) -> None:
    (session.parent / (session.name + ".bak")).write_bytes(b"an earlier copy\n")
    proc = run("repair", session, "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert (session.parent / (session.name + ".bak")).read_bytes() == b"an earlier copy\n"
    assert (session.parent / (session.name + ".bak.2")).read_bytes() == TEXT_BEFORE.read_bytes()


def test_in_place_through_a_link_writes_the_file_it_points_at(session: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(session)
    proc = run("repair", link, "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert session.read_bytes() != TEXT_BEFORE.read_bytes()
    assert (tmp_path / "link.jsonl.bak").read_bytes() == TEXT_BEFORE.read_bytes()


def test_in_place_of_a_pi_session_names_the_file_to_resume(tmp_path: Path) -> None:
    path = tmp_path / "pi.jsonl"
    shutil.copyfile(PI, path)
    proc = run("repair", path, "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.rstrip().endswith(f"resume it: pi --session {path}")


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["-o", "x.jsonl"], "--in-place writes the input itself; leave out -o"),
        (["--to", "messages"], "--in-place keeps the file's format and --to messages converts it"),
    ],
)
def test_in_place_with_another_output_is_refused(session: Path, extra: list[str], said: str) -> None:
    before = session.read_bytes()
    line = one_error_line(run("repair", session, "--in-place", *extra, cwd=session.parent))
    assert said in line
    assert session.read_bytes() == before
    assert sorted(p.name for p in session.parent.iterdir()) == [session.name]


def test_in_place_of_several_inputs_is_refused(session: Path, tmp_path: Path) -> None:
    other = tmp_path / "b.jsonl"
    shutil.copyfile(KILLED, other)
    line = one_error_line(run("repair", session, other, "--in-place", "--out-dir", tmp_path / "out"))
    assert "--in-place replaces one input" in line


def test_in_place_refuses_a_session_that_changed_while_it_was_read(
    session: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent still writing the session: what it appended would be lost, so nothing is written."""
    import suture.cli.repair as command

    read = command.read_strict

    def read_then_append(*args: object, **kwargs: object) -> object:
        found = read(*args, **kwargs)  # type: ignore[arg-type]
        with session.open("ab") as f:
            f.write(b'{"type":"queue-operation","operation":"enqueue"}\n')
        return found

    monkeypatch.setattr(command, "read_strict", read_then_append)
    appended = None
    assert main(["repair", str(session), "--in-place"]) == 2
    appended = session.read_bytes()
    assert appended == TEXT_BEFORE.read_bytes() + b'{"type":"queue-operation","operation":"enqueue"}\n'
    err = capsys.readouterr().err
    assert "changed while suture read it (is the agent still running?); nothing written" in err
    assert not session.with_name(session.name + ".bak").exists()


def test_the_report_says_what_was_written(session: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    proc = run("repair", session, "-o", tmp_path / "fixed.jsonl", "--report", report)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(report.read_bytes())
    assert found["written"]["agent"] == "claude-code"
    [edit] = found["written"]["edits"]
    assert edit == {
        "kind": "changed",
        "line": 22,
        "at": 22,
        "summary": "its tool_result blocks put first, before what came before them",
    }


def test_a_clean_session_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "same.jsonl"
    proc = run("repair", CLEAN, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == CLEAN.read_bytes()
    assert os.path.getsize(out) == os.path.getsize(CLEAN)


# -- every recorded shape, as a person runs it: repair, then what the agent sends -----------------

FOLDERS = shape_folders(CORPUS)


def _texts(messages: list[Message]) -> list[str]:
    return [t for m in messages if (t := text_of(m.content).strip())]


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.name}/{f.name}" for f in FOLDERS])
def test_repair_then_sent_gives_a_history_the_provider_accepts_holding_every_message(
    folder: Path, tmp_path: Path
) -> None:
    """``suture repair session.jsonl -o fixed.jsonl`` then ``suture sent --body fixed.jsonl``: the
    body the agent sends on resume passes suture's checks of its provider (the strict profile
    for Responses, as the mock is strict) and the mock's own validator, and holds every call,
    result and text of the original history (a result that answers no call, as the note the
    repair made of it)."""
    meta = json.loads((folder / "shape.json").read_text())
    provider = meta["provider"]
    session = folder / "session.jsonl"
    fixed = tmp_path / "fixed.jsonl"
    report = tmp_path / "report.json"
    proc = run("repair", session, "-o", fixed, "--report", report)
    assert proc.returncode == 0, proc.stderr
    ids = json.loads(report.read_text())["written"]["ids"]  # the calls the file names otherwise
    assert suture.load_file(fixed).format == meta["agent"]
    proc = run("sent", "--body", fixed)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    sent = history_of(provider, body)
    assert check(sent, STRICT[provider]) == []
    prompt: dict[str, Any] = {"role": "user", "content": "continue"}
    if provider == "openai-responses":
        prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "continue"}]}
    elif provider == "gemini":
        prompt = {"role": "user", "parts": [{"text": "continue"}]}
    key = {"openai-responses": "input", "gemini": "contents"}.get(provider, "messages")
    assert CHECKS[provider]({**body, key: [*body[key], prompt]}) is None
    original = suture.load_file(session)
    after = suture.load_file(fixed)
    assert missing(repair(original.messages).messages, sent, sent_ids(after, as_sent(after), ids)) == []
    held = "\n".join(_texts(sent))
    history = [m for m in original.messages if m.role not in ("system", "developer")]  # the agent's own
    assert [t for t in _texts(history) if t not in held] == []
