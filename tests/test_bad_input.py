"""Every bad input ends in one clear line and exit code 2, never a traceback; the input is not touched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import suture
from suture.io import InputError
from tests.badfiles import CASES, make_corpus
from tests.helpers.cli import run

# (The FIFO no one writes to is waited for: tests/test_write_safety.py has it with a short wait.)
ALL_CASES = [*CASES, "missing", "folder", "dangling-link", "unreadable", "device"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_corpus(tmp_path_factory.mktemp("bad"))


def _fingerprint(path: Path) -> tuple[bytes, int] | None:
    if not path.is_file():
        return None
    return path.read_bytes(), os.stat(path).st_mtime_ns


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run(*args, quiet_warnings=True)


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
    with pytest.raises(suture.InputError, match=r"line 3: .*; pass skip_bad_lines=True to leave them out"):
        suture.load_file(corpus["jsonl-broken-middle-line"])
    transcript = suture.load_file(corpus["jsonl-broken-middle-line"], skip_bad_lines=True)
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
        ("device", "is a device"),
        ("utf-16", "UTF-16 text"),
        ("utf-16-no-bom", "UTF-16LE text"),
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
    doc = parse_document(line * 2 + tail, live=True)
    assert (doc.kind, len(doc.records), doc.pending, doc.problems) == ("jsonl", 2, tail, [])
    # Read as a finished file, the line is damaged (cut off), not the file's encoding.
    doc = parse_document(line * 2 + tail)
    assert (doc.kind, len(doc.records), doc.pending) == ("jsonl", 2, b"")
    assert [p.line for p in doc.problems] == [3]
    assert doc.problems[0].message.startswith("cut off: the file ends inside this line")
    for live in (False, True):
        with pytest.raises(InputError, match="byte 0xff at line 3"):
            parse_document(line * 2 + b'{"a": "\xff', live=live)


# -- inputs that block or never end ----------------------------------------------------------------


def test_a_fifo_no_one_writes_to_is_given_up(tmp_path: Path) -> None:
    from suture.io import read_input

    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="nothing came through"):
        read_input(fifo, wait=0.2)


def test_a_fifo_no_one_writes_to_from_the_command_line(corpus: dict[str, Path]) -> None:
    proc = _run("check", str(corpus["fifo"]))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("suture: error: ") and proc.stderr.count("\n") == 1
    assert "nothing came through" in proc.stderr


def test_an_endless_fifo_is_refused_past_the_limit(tmp_path: Path) -> None:
    import threading

    from suture.io import read_input

    fifo = tmp_path / "endless.json"
    os.mkfifo(fifo)
    stop = threading.Event()

    def write() -> None:
        with open(fifo, "wb") as f:  # (blocks until the reader opens: it does, just below)
            try:
                while not stop.is_set():
                    f.write(b'{"role": "user", "content": "more"}\n' * 1000)
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        with pytest.raises(InputError, match="more than 1 MB without an end"):
            read_input(fifo, wait=30, limit=1 << 20)
    finally:
        stop.set()
        writer.join(30)


def test_a_pipe_is_read_to_its_end(tmp_path: Path) -> None:
    """``cat x | suture repair /dev/stdin`` (through a link made here to /proc/self/fd/0)."""
    link = tmp_path / "stdin-link"
    link.symlink_to("/proc/self/fd/0")
    data = (Path(__file__).parent.parent / "sample_sessions" / "chat" / "worked-example.json").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "suture", "check", str(link)],
        input=data,
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert b"problems" in proc.stdout


def test_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.json")
    path = tmp_path / name
    path.write_bytes(b'[{"role": "user", "content": "hi"}]')
    for args in (["check", "--json"], ["check"], ["repair", "-q"], ["explain", "--json"]):
        proc = subprocess.run(
            [sys.executable, "-m", "suture", args[0], os.fsencode(path), *args[1:]],
            capture_output=True,
            timeout=120,
        )
        assert b"Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 1, 2)
    proc = subprocess.run(
        [sys.executable, "-m", "suture", "check", os.fsencode(path), "--json"], capture_output=True, timeout=120
    )
    assert proc.returncode == 0
    assert orjson.loads(proc.stdout)["file"].endswith("caf\\xe9.json")


def test_usage_errors_point_at_the_command_in_use(tmp_path: Path) -> None:
    for args, hint in (
        (["--bogus"], "'suture --help'"),
        (["repair", "--bogus", "x.json"], "'suture repair --help'"),
        (["x.json", "--bogus"], "'suture view --help'"),
        (["check"], "'suture check --help'"),
    ):
        proc = _run(*args)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and hint in proc.stderr, proc.stderr
        assert "suture suture" not in proc.stderr


def test_a_codex_error_names_the_line_and_the_field(tmp_path: Path) -> None:
    from tests.conftest import SAMPLES

    clean = SAMPLES / "codex" / "clean-rollout.jsonl"
    records = [orjson.loads(line) for line in clean.read_bytes().splitlines()]
    n = next(
        k
        for k, r in enumerate(records)
        if isinstance(r.get("payload"), dict) and r["payload"].get("type") == "function_call_output"
    )
    records[n]["payload"]["call_id"] = 5
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    with pytest.raises(InputError) as info:
        suture.load_file(path)
    assert f"line {n + 1}, call_id: must be a string" in str(info.value)
