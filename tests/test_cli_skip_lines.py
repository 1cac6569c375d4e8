"""``suture repair --skip-bad-lines`` of a session log whose last line is cut off mid-write: the
session written leaves that line out (an agent appending to it would glue its next record to
the fragment), and the summary and ``--report`` say what became of each line skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import one_error_line, run

SAMPLES = Path(__file__).parent.parent / "sample_sessions"
SESSIONS = [
    "claude-code/interrupted-then-api-error.jsonl",
    "claude-code/parallel-calls.jsonl",
    "codex/broken-resumed.jsonl",
    "pi/branched-aborted.jsonl",
    "real/claude-code/short.jsonl",
]
CUT = b'{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "te'


def _cut(tmp_path: Path, sample: str) -> tuple[Path, Path]:
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes((SAMPLES / sample).read_bytes())
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(whole.read_bytes() + CUT)
    return whole, cut


@pytest.mark.parametrize("sample", SESSIONS)
def test_the_cut_off_last_line_is_left_out_of_the_session_written(tmp_path: Path, sample: str) -> None:
    whole, cut = _cut(tmp_path, sample)
    before = cut.read_bytes()
    proc = run("repair", cut, "--skip-bad-lines", "--report", tmp_path / "report.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == run("repair", whole).stdout  # what the whole lines alone give
    assert proc.stdout.endswith("\n") and CUT.decode() not in proc.stdout
    line = before.count(b"\n") + 1
    summary = proc.stderr.splitlines()[-1]
    assert summary.endswith(f"; 1 unreadable line left out (line {line})"), summary
    assert "session written unchanged" not in summary  # (not so: the cut-off line is not written)
    bad = json.loads((tmp_path / "report.json").read_text())["bad_lines"]
    assert [(b["line"], b["left_out"]) for b in bad] == [(line, True)]
    assert cut.read_bytes() == before


def test_in_place_keeps_the_cut_off_line_in_the_copy_only(tmp_path: Path) -> None:
    whole, cut = _cut(tmp_path, "claude-code/parallel-calls.jsonl")
    before = cut.read_bytes()
    proc = run("repair", cut, "--skip-bad-lines", "--in-place")
    assert proc.returncode == 0, proc.stderr
    assert cut.read_text() == run("repair", whole).stdout
    assert (tmp_path / "cut.jsonl.bak").read_bytes() == before


def test_without_the_flag_it_is_refused_as_before(tmp_path: Path) -> None:
    _, cut = _cut(tmp_path, "claude-code/parallel-calls.jsonl")
    assert "--skip-bad-lines" in one_error_line(run("repair", cut))


def test_a_bad_line_inside_a_session_is_kept_as_written_and_said_so(tmp_path: Path) -> None:
    # (as the app's export keeps it: a session is edited only where the repair changes it)
    lines = (SAMPLES / "claude-code/parallel-calls.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join([lines[0], b"garbage{{{\n", *lines[1:]]))
    proc = run("repair", path, "--skip-bad-lines")
    assert proc.returncode == 0, proc.stderr
    assert "garbage{{{\n" in proc.stdout
    assert proc.stderr.splitlines()[-1].endswith(
        "; 1 unreadable line kept as written, as every line the repair does not change (line 2)"
    )


def test_a_request_file_says_the_lines_it_leaves_out(tmp_path: Path) -> None:
    lines = (SAMPLES / "vercel/broken-restarted-ids.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "v.jsonl"
    path.write_bytes(b"".join([lines[0], b"{bad\n", *lines[1:]]) + b'{"role": "us')
    proc = run("repair", path, "--skip-bad-lines", "-o", tmp_path / "out.jsonl")
    assert proc.returncode == 0, proc.stderr
    n = len(lines) + 2
    assert proc.stderr.splitlines()[-1].endswith(f"; 2 unreadable lines left out (lines 2, {n})")


def test_check_says_what_suture_repair_writes_of_a_session_cut_off(tmp_path: Path) -> None:
    """What check says suture repair writes is what it writes: its whole lines, not the cut-off one."""
    _, cut = _cut(tmp_path, "real/claude-code/tool_heavy.jsonl")
    line = cut.read_bytes().count(b"\n") + 1
    said = run("check", cut, "--skip-bad-lines").stdout
    assert f"writes its whole lines (not line {line}, cut off) unchanged" in said, said
    assert "writes the file unchanged" not in said
