"""Standard input (``-``) as what suture prints names it: ``standard input`` in a line, ``-`` in
``--json`` and in a command to run; never the ``/dev/stdin`` it is read through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import one_error_line, run

SAMPLES = Path(__file__).parent.parent / "sample_sessions"
REQUEST = SAMPLES / "messages" / "interrupted-and-restarted.json"
SESSION = SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl"


@pytest.mark.parametrize("sample", [REQUEST, SESSION])
def test_check_names_standard_input_in_its_headline(sample: Path) -> None:
    proc = run("check", "-", stdin=sample.read_text())
    assert proc.stdout.startswith("standard input: "), proc.stdout
    assert "/dev/stdin" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("sample", [REQUEST, SESSION])
@pytest.mark.parametrize("command", [("check", "--json"), ("check", "--json", "--provider", "anthropic")])
def test_json_names_standard_input_as_typed(sample: Path, command: tuple[str, ...]) -> None:
    proc = run(*command, "-", stdin=sample.read_text())
    assert json.loads(proc.stdout)["file"] == "-"


def test_a_skipped_line_of_standard_input_is_named_so(tmp_path: Path) -> None:
    text = SESSION.read_text() + '{"type": "user", "mess'  # the last line cut off mid-write
    proc = run("check", "-", "--skip-bad-lines", stdin=text)
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("suture: warning: ")]
    assert warnings and all(line.startswith("suture: warning: standard input: skipped line") for line in warnings)


def test_an_error_reading_standard_input_names_it() -> None:
    assert one_error_line(run("check", "-", stdin="{}")).startswith("suture: error: standard input: ")
    first, rest = SESSION.read_text().split("\n", 1)
    broken = f"{first}\n{{bad\n{rest}"
    assert one_error_line(run("repair", "-", stdin=broken)).startswith("suture: error: standard input: line 2: ")


def test_sent_and_repair_say_standard_input_on_stderr(tmp_path: Path) -> None:
    sent = run("sent", "-", stdin=REQUEST.read_text())
    assert sent.stderr.startswith("suture: standard input: "), sent.stderr
    out = tmp_path / "a"
    out.mkdir()
    repaired = run("repair", "-", REQUEST, "--out-dir", out, stdin=REQUEST.read_text())
    assert repaired.returncode == 0, repaired.stderr
    assert repaired.stderr.startswith("suture: standard input: "), repaired.stderr
    assert "/dev/stdin" not in repaired.stderr + sent.stderr


def test_a_path_typed_stays_as_typed() -> None:
    proc = run("check", "/dev/stdin", stdin=REQUEST.read_text())
    assert proc.stdout.startswith("/dev/stdin: "), proc.stdout
    proc = run("check", "--json", "/dev/stdin", stdin=REQUEST.read_text())
    assert json.loads(proc.stdout)["file"] == "/dev/stdin"


def test_check_of_standard_input_says_what_suture_repair_writes_as_for_the_file() -> None:
    """Standard input is read once: what the session written does otherwise than the repair's
    changes is worked out from the bytes read (it was not said at all for ``-``)."""
    session = SAMPLES / "real" / "claude-code" / "tool_heavy.jsonl"
    said = "suture repair makes 2 changes (2 moved results) and writes the file unchanged"
    of_file = run("check", str(session))
    of_stdin = run("check", "-", stdin=session.read_text())
    assert of_file.returncode == of_stdin.returncode == 0
    assert of_stdin.stdout.split("\n", 1)[1] == of_file.stdout.split("\n", 1)[1]
    assert said in of_stdin.stdout
    as_json = json.loads(run("check", "--json", "-", stdin=session.read_text()).stdout)
    assert as_json["export"].startswith(said)


def test_explain_of_standard_input_says_the_session_written_is_put_in_place() -> None:
    """No file of its own to write in place: the command writes it beside, and the sentence says
    it must then take the session's place (not that --in-place writes it there)."""
    session = SAMPLES / "recorded" / "claude-code-2.1.332" / "text-before-result" / "resumed.jsonl"
    said = run("explain", "-", stdin=session.read_text()).stdout
    assert "which Claude Code resumes once it is put in place of the session's file." in said
    assert "--in-place" not in said
    assert "  $ suture repair - -o stdin.repaired.jsonl" in said.splitlines()
