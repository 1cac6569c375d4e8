"""No transcript content, id, tool name or file name reaches the terminal as a control.

Each command runs on a pseudo-terminal and the bytes it writes there are searched for what a
hostile file carries: OSC 52 (sets the clipboard), OSC 0 (retitles the window), CSI 2J (clears
the screen), the C1 CSI, a bidi override and a newline that would forge an output line."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from tests.ptyrun import PtyRun, run_on_pty

CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"
TITLE = "\x1b]0;PWNED\x07"
HOSTILE_ID = f"call{CLIPBOARD}\x1b[2J\nFORGED LINE\u202e\x9b31m"
HOSTILE_TOOL = f"tool{TITLE}"
HOSTILE_NAME = f"n{TITLE}\u202e.json"

# What must never be written raw. The app draws with escape sequences of its own (and ends an
# OSC of its own with BEL), so for it these are the hostile file's sequences exactly.
RAW = [b"\x1b]52;c;ZXZpbA", b"\x1b]0;PWNED", b"\x1b[2J", b"\xe2\x80\xae", b"\xc2\x9b"]


def _assert_inert(output: bytes, app: bool = False) -> None:
    if not app:
        assert b"\x1b" not in output and b"\x07" not in output, output[-2000:]
    for raw in RAW:
        assert raw not in output, (raw, output[-2000:])
    lines = re.split(rb"\r?\n", output)
    assert not any(line.lstrip().startswith(b"FORGED") for line in lines), output[-2000:]
    assert b"Traceback" not in output


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    chat = [
        {"role": "user", "content": f"hi {TITLE} \x9b2J"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": HOSTILE_ID, "type": "function", "function": {"name": HOSTILE_TOOL, "arguments": "{}"}}
            ],
        },
        {"role": "user", "content": "next"},
    ]
    (folder / HOSTILE_NAME).write_bytes(orjson.dumps(chat))
    (folder / "second.json").write_bytes(orjson.dumps(chat))
    # pi: an entry whose parent is missing is a load problem that names both ids.
    pi = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"},
        {
            "type": "message",
            "id": f"e1{CLIPBOARD}",
            "parentId": f"gone{TITLE}\nFORGED LINE",
            "timestamp": "2025-01-01T00:00:01Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1},
        },
    ]
    (folder / f"pi{TITLE}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in pi))
    return folder


COMMANDS = {
    "repair to the terminal": ["repair", HOSTILE_NAME],
    "repair with the report on the terminal": ["repair", HOSTILE_NAME, "-o", "out.json", "--report", "-"],
    "repair of several files": ["repair", HOSTILE_NAME, "second.json", "--out-dir", "outs"],
    "check": ["check", HOSTILE_NAME],
    "check --json": ["check", HOSTILE_NAME, "--json"],
    "check every provider": ["check", HOSTILE_NAME, "--provider", "all"],
    "check every provider --json": ["check", HOSTILE_NAME, "--provider", "all", "--json"],
    "explain": ["explain", HOSTILE_NAME, f"No tool output found for function call {HOSTILE_ID}."],
    "explain --json": ["explain", HOSTILE_NAME, f"No tool output found for function call {HOSTILE_ID}.", "--json"],
    "explain, nothing recorded": ["explain", HOSTILE_NAME],
    "explain, not recognised": ["explain", HOSTILE_NAME, f"{TITLE} what"],
    "pi problem": ["check", f"pi{TITLE}.jsonl"],
    "pi problem, repair": ["repair", f"pi{TITLE}.jsonl"],
    "missing file": ["check", f"missing{TITLE}\n.json"],
    "unknown format": ["repair", HOSTILE_NAME, "--format", TITLE],
    "unknown provider": ["check", HOSTILE_NAME, "--provider", TITLE],
    "usage error": ["repair", HOSTILE_NAME, f"--{TITLE}"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_output_on_a_terminal_is_inert(hostile: Path, name: str) -> None:
    code, output = run_on_pty(COMMANDS[name], hostile)
    assert code in (0, 1, 2), output[-2000:]
    _assert_inert(output)
    # What was escaped is still there to read.
    if name.startswith(("check", "explain", "repair")) and "not recognised" not in name:
        assert b"PWNED" in output or b"ZXZpbA" in output, output[-2000:]


def test_export_dialog_shows_the_file_name_escaped(hostile: Path) -> None:
    run = PtyRun([HOSTILE_NAME, "--no-watch"], hostile)
    try:
        assert run.read_until(b"Original", 60), bytes(run.output[-2000:])
        run.send(b"e")
        assert run.read_until(b"Export the repaired", 60), bytes(run.output[-2000:])
        assert run.read_until(b"\\x1b]0;PWNED", 30), bytes(run.output[-3000:])
        run.send(b"\x1b")
        run.read_until(b"\x00never", 2)  # (let the dialog close: an ESC right before q reads as alt+q)
        run.send(b"q")
        assert run.finish(60) == 0
    finally:
        run.kill()
    _assert_inert(bytes(run.output), app=True)
