"""What ``suture check`` says suture repair does to a Codex session is what ``suture repair``
does to it: an output written before its call is kept as a note and the call answered as
interrupted (nothing is moved), and the contract view's line counts the changes repair makes
where the provider finds no problem."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import run

ROOT = Path(__file__).resolve().parent.parent
DONE = ROOT / "sample_sessions" / "recorded" / "codex-0.171.0" / "tool-done-then-killed" / "session.jsonl"
"""A Codex rollout with one call and its output (line 10 and line 13)."""


def _rollout(tmp_path: Path, how: str) -> Path:
    """``DONE`` with its output line moved before its call (``before``), or written twice (``twice``)."""
    lines = DONE.read_bytes().splitlines(keepends=True)
    kinds = [json.loads(line).get("payload", {}).get("type") for line in lines]
    call, output = kinds.index("function_call"), kinds.index("function_call_output")
    if how == "before":
        lines.insert(call, lines.pop(output))
    else:
        lines.insert(output + 1, lines[output])
    path = tmp_path / f"{how}.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def _changes(path: Path, tmp_path: Path) -> list[str]:
    report = tmp_path / "report.json"
    proc = run("repair", str(path), "-o", str(tmp_path / "out.jsonl"), "--report", str(report))
    assert proc.returncode == 0, proc.stderr
    return [c["kind"] for c in json.loads(report.read_text())["changes"]]


def test_an_output_before_its_call_is_said_to_become_a_note_not_to_move(tmp_path: Path) -> None:
    path = _rollout(tmp_path, "before")
    # What suture repair does to it: the output kept as a note, the call answered as interrupted.
    assert sorted(_changes(path, tmp_path)) == ["orphan_note", "synthetic_interrupt"]
    said = run("check", str(path), "--provider", "openai-responses-strict").stdout
    assert "R7: the output for " in said and "comes before its call" in said
    fixed = [line for line in said.splitlines() if line.startswith("      fixed by repair: ")]
    assert fixed, said
    for line in fixed:
        assert "moves outputs that arrived later" not in line
        assert "keeps an output that comes before its call as a user note" in line
        assert "gives the call an output saying it was interrupted" in line
    report = json.loads(run("check", str(path), "--provider", "openai-responses-strict", "--json").stdout)
    (before,) = report["providers"]["openai-responses-strict"]["contract"]["before"]
    assert before["fixed_by_repair"] and "as a user note" in before["remedy"]


def test_the_contract_view_says_what_repair_changes_where_it_finds_no_problem(tmp_path: Path) -> None:
    for how, changes in (("before", 2), ("twice", 1)):
        path = _rollout(tmp_path, how)
        assert len(_changes(path, tmp_path)) == changes
        proc = run("check", str(path))
        assert proc.returncode == 0, proc.stdout
        (line,) = [line for line in proc.stdout.splitlines() if line.startswith("  contract view (")]
        assert f"; suture repair makes {changes} change{'s' if changes > 1 else ''} (" in line, line
        assert line.endswith("openai-responses: no problems"), line
        report = json.loads(run("check", str(path), "--json").stdout)
        assert report["providers"]["openai-responses"]["contract"]["changes"] == changes
    clean = run("check", str(DONE)).stdout
    assert "; suture repair changes nothing): openai-responses: no problems" in clean


def test_the_contract_view_says_the_turn_repair_writes_reordered_where_it_changes_no_message() -> None:
    """A message item between a call and its output: the repair changes no message, but the
    session it writes has the outputs right after the calls (what fixes it for a strict server),
    which suture repair's own line says too; "changes nothing" said the opposite."""
    path = ROOT / "sample_sessions" / "recorded" / "codex-0.171.0" / "item-between-call-and-output" / "resumed.jsonl"
    (line,) = [x for x in run("check", str(path)).stdout.splitlines() if x.startswith("  contract view (")]
    assert line.startswith(
        "  contract view (suture's repair of the file as written; suture repair changes no message (1 turn "
        "written with the outputs right after the calls)): openai-responses-strict: 1 problem → 0 after repair"
    ), line
    assert "1 turn written with the outputs right after the calls" in run("repair", str(path), "-o", "-").stderr
