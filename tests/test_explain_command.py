"""The repair command ``suture explain`` prints is one the user can run as it is.

Where the repair fixes what an error is about, explain ends with the command that writes the fix.
Pasted into a shell, in the folder the user ran explain from, it must write it where it is used: a
session log in its own place, for its agent to resume (``$ suture repair IN --in-place``, the
original kept as IN.bak), a request file as a request body beside it (``-o OUT``).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from suture.formats import load_file
from tests.helpers.cli import run
from tools.agents.corpus import read_requests, shape_folders
from tools.agents.record import CORPUS

REJECTED = [f for f in shape_folders(CORPUS) if any(r.get("status") == 400 for r in read_requests(f))]


def _error(folder: Path) -> str:
    error: str = json.loads((folder / "shape.json").read_text())["resume"]["error"]
    return error


@pytest.mark.parametrize("folder", REJECTED, ids=[f"{f.parent.name}/{f.name}" for f in REJECTED])
def test_the_printed_repair_command_runs(folder: Path, tmp_path: Path) -> None:
    shutil.copy(folder / "session.jsonl", tmp_path / "session.jsonl")
    explained = run("explain", "session.jsonl", _error(folder), cwd=tmp_path)
    assert explained.returncode == 0, explained.stdout + explained.stderr
    commands = [line.strip() for line in explained.stdout.splitlines() if line.strip().startswith("$ suture repair ")]
    if "Repair: fixes it" not in explained.stdout:
        assert not commands, explained.stdout
        return
    assert len(commands) == 1, explained.stdout
    argv = shlex.split(commands[0])[2:]  # after "$ suture"
    assert argv == ["repair", "session.jsonl", "--in-place"], commands  # (written elsewhere, it is not resumed)
    before = (tmp_path / "session.jsonl").read_bytes()
    written = run(*argv, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "session.jsonl.bak").read_bytes() == before
    assert load_file(tmp_path / "session.jsonl").format == load_file(tmp_path / "session.jsonl.bak").format
    # What the agent sends from the session written is no longer what the provider rejected.
    checked = run("check", "session.jsonl", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
