"""Every bad input ends in one clear line and exit code 2, never a traceback; the input is not touched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import suture
from suture.io import InputError
from tests.badfiles import CASES, make_corpus

ALL_CASES = [*CASES, "missing", "folder", "dangling-link", "unreadable"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_corpus(tmp_path_factory.mktemp("bad"))


def _fingerprint(path: Path) -> tuple[bytes, int] | None:
    if not path.is_file():
        return None
    return path.read_bytes(), os.stat(path).st_mtime_ns


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "suture", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


@pytest.mark.parametrize("command", ["repair", "check"])
@pytest.mark.parametrize("case", ALL_CASES)
def test_command_line_says_one_line_and_exits_2(corpus: dict[str, Path], case: str, command: str) -> None:
    path = corpus[case]
    before = _fingerprint(path)
    proc = _run(command, str(path))
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-300:], proc.stderr[-1000:])
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("suture: error: ")
    assert proc.stdout == ""
    assert _fingerprint(path) == before


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c != "jsonl-broken-middle-line"])
def test_library_raises_input_error(corpus: dict[str, Path], case: str) -> None:
    with pytest.raises(InputError) as info:
        suture.load_file(corpus[case])
    message = str(info.value)
    assert "\n" not in message
    assert str(corpus[case]) in message


def test_broken_jsonl_line_keeps_the_readable_part(corpus: dict[str, Path]) -> None:
    transcript = suture.load_file(corpus["jsonl-broken-middle-line"])
    assert [m.role for m in transcript.messages] == ["user", "assistant", "assistant"]
    assert [p.line for p in transcript.problems] == [3]


def test_broken_jsonl_line_can_be_skipped_on_request(corpus: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    proc = _run("repair", str(corpus["jsonl-broken-middle-line"]), "--skip-bad-lines", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "line 3" in proc.stderr
    assert out.read_text().count("\n") == 4  # user, assistant, synthetic result, assistant


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("empty", "empty"),
        ("not-utf8", "UTF-8"),
        ("bom", "byte order mark"),
        ("truncated-json", "line 1, column"),
        ("truncated-pretty-json", "line "),
        ("nan", "not valid JSON"),
        ("nested-100000-deep", "not valid JSON"),
        ("content-a-number", "$[1].content"),
        ("tool-calls-an-object", "$[1].tool_calls"),
        ("call-id-an-integer", "$[1].tool_calls[0].id"),
        ("result-id-an-integer", "tool_call_id"),
        ("role-missing", "$[1]"),
        ("binary", "binary"),
        ("missing", "no such file"),
        ("folder", "folder"),
        ("unreadable", "is a socket"),
    ],
)
def test_message_says_what_is_wrong(corpus: dict[str, Path], case: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        suture.load_file(corpus[case])
    assert words in str(info.value)


def test_character_cut_off_in_a_pending_last_line_is_not_an_error() -> None:
    from suture.io import parse_document

    line = '{"role": "user", "content": "café"}\n'.encode()
    tail = '{"role": "user", "content": "é'.encode()[:-1]  # half of a two-byte character
    doc = parse_document(line * 2 + tail)
    assert (doc.kind, len(doc.records), doc.pending) == ("jsonl", 2, tail)
    with pytest.raises(InputError, match="byte 0xff at line 3"):
        parse_document(line * 2 + b'{"a": "\xff')
