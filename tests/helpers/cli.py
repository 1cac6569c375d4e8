"""The ``suture`` command run in a fresh interpreter, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(
    *args: str | Path, cwd: Path | None = None, stdin: str | None = None, quiet_warnings: bool = False
) -> subprocess.CompletedProcess[str]:
    """``suture ARGS`` with its output captured as text; ``quiet_warnings`` hides Python's own
    warnings so that stderr holds only what suture says."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"} if quiet_warnings else None
    return subprocess.run(
        [sys.executable, "-m", "suture", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """Bad input's answer: exit code 2 and one line on stderr, ``suture: error: …``, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("suture: error: ")
    return lines[0]
