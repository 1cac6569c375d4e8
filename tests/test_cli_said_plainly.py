"""What the command line says about a file, in words a user can act on: a scan's agent column,
a header's other reading of the file, standard input's aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suture.cli import main
from tests.helpers.cli import one_error_line, run

SAMPLES = Path(__file__).parent.parent / "sample_sessions"


def test_scan_leaves_the_agent_column_empty_for_a_file_that_is_no_session_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """README: ``agent`` is empty for a file that is not a session log, in the table as in --json."""
    main(["scan", str(SAMPLES / "chat" / "renamed-id.json"), str(SAMPLES / "codex" / "broken-resumed.jsonl")])
    head, *rows = capsys.readouterr().out.splitlines()
    at = head.index("agent")
    agents = {
        row.split("  — ")[0].split()[-1].rsplit("/", 1)[-1]: row[at : head.index("last written")].strip()
        for row in rows
    }
    assert agents == {"renamed-id.json": "", "broken-resumed.jsonl": "codex"}, rows
    main(["scan", "--json", str(SAMPLES / "chat" / "renamed-id.json")])
    assert json.loads(capsys.readouterr().out.splitlines()[0])["agent"] == ""


def test_a_file_that_reads_as_one_other_format_says_what_naming_it_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    main(["check", str(path), "--format", "chat"])  # named: no other reading
    assert "just as well" not in capsys.readouterr().out
    # Every message a plain string: Chat and Anthropic Messages alike (Responses and the AI SDK too).
    main(["check", str(path)])
    header = capsys.readouterr().out.splitlines()[0]
    assert "too: --format NAME" not in header
    assert header.endswith(
        "(it reads as Anthropic Messages, OpenAI Responses input items or Vercel AI SDK ModelMessage "
        "list just as well: --format messages, responses or vercel judges it as that format)"
    ), header


def test_one_other_reading_names_the_rules_it_is_judged_by() -> None:
    from suture.cli.check import _reads_too

    assert _reads_too(["messages"]) == (
        " (it reads as Anthropic Messages just as well: --format messages judges it by the rules of Anthropic Messages)"
    )
    assert _reads_too(["vercel"]).endswith("--format vercel judges it by the Valid property every provider shares)")
    assert _reads_too([]) == ""


def test_check_never_reads_standard_input_again_for_what_repair_writes() -> None:
    """Standard input was read once: the session suture repair writes is worked out from the
    bytes read (``check`` reads nothing again, not even a file, which an agent may be writing)."""
    from suture.cli import check
    from suture.formats import load_bytes
    from suture.repair import repair

    data = (SAMPLES / "real" / "claude-code" / "tool_heavy.jsonl").read_bytes()
    transcript = load_bytes(data)
    said = check._export_aside(transcript, repair(transcript.messages), data)
    assert said is not None and said.startswith("suture repair makes 2 changes (2 moved results) and writes")


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "-dash.jsonl"),
        ("repair", "-dash.jsonl", "-o", "out.jsonl"),
        ("-dash.jsonl",),
        ("check", "--json", "-dash.jsonl"),
    ],
)
def test_a_file_named_with_a_leading_dash_is_said_how_to_name(tmp_path: Path, argv: tuple[str, ...]) -> None:
    """argparse reads it as an option and says an argument is missing or unrecognised: the error
    says why, and how to name the file (both ways it names work)."""
    (tmp_path / "-dash.jsonl").write_bytes((SAMPLES / "real" / "claude-code" / "short.jsonl").read_bytes())
    proc = run(*argv, cwd=tmp_path)
    assert proc.returncode == 2
    assert one_error_line(proc).endswith("; -dash.jsonl is read as an option: name the file ./-dash.jsonl")
    assert run("check", "./-dash.jsonl", cwd=tmp_path).returncode == 0
    assert run("check", "--", "-dash.jsonl", cwd=tmp_path).returncode == 0
    # After --, a word that starts with "-" is no option: an error there is of another word.
    assert "is read as an option" not in one_error_line(run("check", "--bogus", "--", "-dash.jsonl", cwd=tmp_path))
    # What suture prints to run next names such a file so that it runs.
    rejected = SAMPLES / "recorded" / "claude-code-2.1.332" / "text-before-result" / "resumed.jsonl"
    (tmp_path / "-t.jsonl").write_bytes(rejected.read_bytes())
    (command,) = [x.strip() for x in run("explain", "--", "-t.jsonl", cwd=tmp_path).stdout.splitlines() if "$ " in x]
    assert command == "$ suture repair ./-t.jsonl --in-place"
    assert run(*command.split()[2:], cwd=tmp_path).returncode == 0
    # An unknown option that names no file is said as before.
    assert one_error_line(run("check", "--bogus", "x", cwd=tmp_path)).endswith("(see 'suture check --help')")
