"""Run suture on a pseudo-terminal and collect every byte it writes there, as a terminal would
receive them. Every wait is bounded; the child is ended by its own process id."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path


class PtyRun:
    """``python -m suture ARGS`` with stdin, stdout and stderr on one pseudo-terminal."""

    def __init__(self, args: Sequence[str], cwd: Path, size: tuple[int, int] = (120, 40)) -> None:
        self.master, slave = pty.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "PYTHONWARNINGS": "ignore", "COLUMNS": str(cols)}
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "suture", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.output = bytearray()

    def read_until(self, marker: bytes | None, timeout: float = 60.0) -> bool:
        """Collect output until ``marker`` appears (or, with None, until the child closes the
        terminal). Returns whether that happened within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if marker is not None and marker in self.output:
                return True
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every process holding the terminal has closed it
                return marker is None
            if not chunk:
                return marker is None
            self.output += chunk
        return False

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def finish(self, timeout: float = 60.0) -> int:
        """Read to the end and return the exit code; a child still running then is killed."""
        self.read_until(None, timeout)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.wait(timeout=10)
        finally:
            with contextlib.suppress(OSError):
                os.close(self.master)

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGKILL)


def run_on_pty(args: Sequence[str], cwd: Path, timeout: float = 120.0) -> tuple[int, bytes]:
    run = PtyRun(args, cwd)
    code = run.finish(timeout)
    return code, bytes(run.output)
