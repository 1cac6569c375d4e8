"""The figure after repair of a session log (what its agent sends from the session ``suture
repair`` writes) is worked out from the bytes the session was read from: they are read in the
checks' child, and only where a provider rejects what is sent, never by the app's own process
before every check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from suture.live import LiveFile
from suture.tui.judged import Judged, judge_all
from suture.tui.rows import RowModel
from tests.helpers.app import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the checks run in the calling thread")

TEXT_BEFORE = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328" / "text-before-result" / "session.jsonl"
"""A session Anthropic rejects (a result after text in its message); suture's repair mends it."""
ACCEPTED = ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"
"""A session whose agent mends what Anthropic would reject itself."""


@pytest.mark.parametrize(("source", "rejected"), [(TEXT_BEFORE, True), (ACCEPTED, False)], ids=["rejected", "accepted"])
def test_the_session_is_read_for_its_figure_in_the_child_and_only_where_rejected(
    tmp_path: Path, source: Path, rejected: bool
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(source.read_bytes())
    live = LiveFile(path)
    live.poll(whole=True)
    assert live.transcript is not None and live.repair is not None
    model = RowModel(live.transcript, live.repair)
    shown = live.bytes_as_shown(model.transcript)
    assert shown is not None
    readers = tmp_path / "read by"

    def data() -> bytes | None:
        with readers.open("a") as f:  # (the child's own memory is not the test's)
            f.write(f"{os.getpid()}\n")
        return shown.read()

    got: dict[str, Judged] = {}
    judge_all(model, ("anthropic",), got.__setitem__, data=data)
    judged = got["anthropic"]
    pids = readers.read_text().split() if readers.exists() else []
    assert judged.rejected == rejected and not judged.figure_coming
    if rejected:
        assert len(pids) == 1 and pids[0] != str(os.getpid()), pids  # once, in the checks' child
        assert judged.after_sent == 0
    else:
        assert pids == [] and judged.after_sent is None  # nothing to work out: the file is not read
