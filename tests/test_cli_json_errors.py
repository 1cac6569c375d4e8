"""Bad input with ``--json``: the one ``suture: error:`` line on stderr, exit code 2, and the
same line on stdout as one JSON object, for every command that has ``--json``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from suture.cli import build_parser
from tests.helpers.cli import one_error_line, run

SAMPLE = Path(__file__).parent.parent / "sample_sessions" / "messages" / "clean-request.json"


def _commands_with_json() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    return {name for name, p in sub.choices.items() if "--json" in p._option_string_actions}


def _said_as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, object]:
    line = one_error_line(proc)
    value: dict[str, object] = json.loads(proc.stdout)
    assert proc.stdout.count("\n") == 1  # one object, on one line (JSON Lines too)
    assert value == {"error": line.removeprefix("suture: error: "), "exit_code": 2}
    return value


def test_every_command_with_json_is_covered_here() -> None:
    assert _commands_with_json() == {"check", "explain", "scan", "formats", "keys"}  # (keys: test_keys_command.py)


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "--json", "{missing}"),
        ("check", "{missing}", "--json", "--provider", "anthropic"),
        ("check", "--json", "--provider", "nobody", str(SAMPLE)),
        ("explain", "--json", "{missing}", "messages.1: x"),
        ("scan", "--json", "{empty}"),
    ],
)
def test_an_error_is_given_on_stdout_as_json_too(tmp_path: Path, argv: tuple[str, ...]) -> None:
    (tmp_path / "empty").mkdir()
    args = [a.format(missing=tmp_path / "missing.json", empty=tmp_path / "empty") for a in argv]
    value = _said_as_json(run(*args))
    assert isinstance(value["error"], str) and value["error"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("check", "--json"), "required: IN (see 'suture check --help')"),
        (("formats", "--json", "--bogus"), "unrecognized arguments: --bogus (see 'suture formats --help')"),
        (("scan", "--json", "-j", "0"), "--jobs must be 1 or more"),
    ],
)
def test_a_usage_error_is_given_as_json_too(argv: tuple[str, ...], said: str) -> None:
    assert said in str(_said_as_json(run(*argv))["error"])


def test_a_file_that_is_not_a_transcript(tmp_path: Path) -> None:
    path = tmp_path / "package.json"
    path.write_text('{"name": "x", "version": "1.0.0"}')
    assert "not a transcript" in str(_said_as_json(run("check", "--json", path))["error"])


@pytest.mark.parametrize(
    "argv",
    [("check", "{missing}"), ("repair", "--json", "{missing}"), ("sent", "{missing}"), ("explain", "{missing}", "x")],
)
def test_without_json_stdout_stays_empty(tmp_path: Path, argv: tuple[str, ...]) -> None:
    # (repair has no --json: its stdout is the transcript written, never an error object; nor is
    # a request body printed by sent one to add it to)
    (tmp_path / "empty").mkdir()
    args = [a.format(missing=tmp_path / "missing.json", empty=tmp_path / "empty") for a in argv]
    proc = run(*args)
    one_error_line(proc)
    assert proc.stdout == ""
