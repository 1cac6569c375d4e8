"""Killing ``suture repair -o`` at any moment leaves the old output or the whole new one, never a mix.

The process is SIGKILLed at spread-out moments of a large repair many times; after every kill the
output is byte-for-byte the old file or the complete new one, and the input is untouched.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

KILLS = 14


def _big_chat(n_turns: int) -> bytes:
    messages: list[object] = [{"role": "system", "content": "You are a careful coding agent."}]
    for t in range(n_turns):
        messages.append({"role": "user", "content": f"step {t}: look at module_{t}.py"})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"call_{t % 50}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
                ],
            }
        )
        if t % 3:
            messages.append({"role": "tool", "tool_call_id": f"call_{t % 50}", "content": "x = 1\n" * 300})
    return orjson.dumps(messages)


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    folder = tmp_path_factory.mktemp("kill")
    path = folder / "big.json"
    path.write_bytes(_big_chat(12_000))
    expected = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(path), "-q"], capture_output=True, check=True
    ).stdout
    return path, expected


def _repair_cmd(src: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "suture", "repair", str(src), "-o", str(out), "-q"]


def test_sigkill_during_export_leaves_old_or_new(big_input: tuple[Path, bytes], tmp_path: Path) -> None:
    src, expected = big_input
    src_before = (src.read_bytes(), os.stat(src).st_mtime_ns)
    out = tmp_path / "out.json"
    old = b'{"old": "output that must survive a killed export"}\n'
    # How long a whole run takes, to spread the kills over it.
    start = time.monotonic()
    subprocess.run(_repair_cmd(src, tmp_path / "timing.json"), check=True)
    whole = time.monotonic() - start
    for i in range(KILLS):
        out.write_bytes(old)
        proc = subprocess.Popen(_repair_cmd(src, out))
        time.sleep(whole * (i + 0.5) / KILLS)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        got = out.read_bytes()
        assert got in (old, expected), f"kill {i}: output is neither the old file nor the whole new one"
    assert (src.read_bytes(), os.stat(src).st_mtime_ns) == src_before
    # Leftover temporary files are the only trace a kill may leave; they never replace the output.
    left = [p.name for p in tmp_path.iterdir() if p.name not in ("out.json", "timing.json")]
    assert all(name.startswith(".out.json.") and name.endswith(".suture-tmp") for name in left)
    # The next write of the same file removes those its killed processes left.
    subprocess.run(_repair_cmd(src, out), check=True)
    assert out.read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "timing.json"]


def test_a_temporary_file_of_a_write_still_running_is_left_alone(tmp_path: Path) -> None:
    """Only those whose process is gone are removed: another process writing the same file, and
    files that are not suture's own temporary files of that name, stay."""
    src = tmp_path / "in.json"
    src.write_bytes(_big_chat(5))
    out = tmp_path / "out.json"
    dead = 2**22 + 1  # (above the highest PID Linux can give)
    kept = [
        f".out.json.{os.getpid()}.abcd1234.suture-tmp",  # (a write running now)
        ".out.json.abcd1234.suture-tmp",  # (no process named)
        f".out.json.5.{dead}.abcd1234.suture-tmp",  # (of another file, out.json.5)
        f".other.json.{dead}.abcd1234.suture-tmp",
        f".out.json.{dead}.abcd1234.kept",
        ".out.json.9999999999.abcd1234.suture-tmp",  # (a number no process can have)
        ".out.json.99999999999.abcd1234.suture-tmp",
    ]
    for name in [*kept, f".out.json.{dead}.abcd1234.suture-tmp"]:
        (tmp_path / name).write_bytes(b"partial")
    subprocess.run(_repair_cmd(src, out), check=True)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == sorted(kept)


def test_export_keeps_existing_permissions(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_bytes(_big_chat(5))
    out = tmp_path / "out.json"
    out.write_bytes(b"[]")
    os.chmod(out, 0o640)
    subprocess.run(_repair_cmd(src, out), check=True)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert orjson.loads(out.read_bytes())[0]["role"] == "system"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".suture-tmp")] == []
