"""The recorder ends what the agent it killed started, in a process group of its own too (pi
runs each tool command in one): nothing it started outlives a recording."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools.agents.record import descendants

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="no process table to read here")

SPAWNS = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
print(child.pid, flush=True)
time.sleep(60)
"""


def test_the_processes_an_agent_started_are_found_in_groups_of_their_own() -> None:
    agent = subprocess.Popen([sys.executable, "-c", SPAWNS], stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert agent.stdout is not None
    tool = int(agent.stdout.readline())
    try:
        assert os.getpgid(tool) not in (os.getpgid(agent.pid), os.getpgrp())
        assert tool in descendants(agent.pid)
        assert descendants(tool) == []
    finally:
        for pid in (tool, agent.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        agent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and Path(f"/proc/{tool}").exists():
            time.sleep(0.05)  # (reaped by init once its parent is gone)
