"""Run ``suture serve`` as a person does, in a subprocess on 127.0.0.1 and a free port, and stop it
by its PID. Every wait is bounded."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tools.agents.record import descendants

START_SECONDS = 60.0
STOP_SECONDS = 30.0
_SERVING = re.compile(r"^suture: serving .* at (http://\S+) ")


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)

    def descendants(self) -> set[int]:
        """The PIDs of every process below the server (the apps it started), from /proc."""
        return set(descendants(self.process.pid))


def _pump(stream: object, into: list[str], lines: queue.Queue[str] | None) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.append(line)
        if lines is not None:
            lines.put(line)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@contextmanager
def serving(*args: str | Path, cwd: Path) -> Iterator[Served]:
    """``suture serve --port 0 ARGS`` in ``cwd``: yields once it says where it listens; stops it
    (SIGINT, then SIGKILL if it has not ended in time) on the way out."""
    process = subprocess.Popen(
        [sys.executable, "-m", "suture", "serve", "--port", "0", *map(str, args)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    out: list[str] = []
    err: list[str] = []
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_pump, args=(process.stdout, out, lines), daemon=True).start()
    threading.Thread(target=_pump, args=(process.stderr, err, None), daemon=True).start()
    try:
        deadline = time.monotonic() + START_SECONDS
        url = None
        while url is None:
            left = deadline - time.monotonic()
            if left <= 0 or process.poll() is not None:
                raise AssertionError(f"suture serve did not start: exit {process.poll()}, stderr: {''.join(err)}")
            try:
                match = _SERVING.match(lines.get(timeout=min(left, 0.5)))
            except queue.Empty:
                continue
            if match:
                url = match.group(1)
        yield Served(process, url, out, err)
    finally:
        stop(process)


def stop(process: subprocess.Popen[str]) -> int:
    """End the server we started, by its PID; its exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_SECONDS)
    return process.returncode
