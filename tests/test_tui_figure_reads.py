"""The figure after repair of a session log (what its agent sends from the session ``suture
repair`` writes) is worked out from the bytes the session was read from: they are read in the
checks' child, and only where a provider rejects what is sent, never by the app's own process
before every check; and for a live session, one child at a time, for its latest bytes."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from suture.live import LiveFile
from suture.tui.judged import Figures, Judged, judge_all
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


def _waiting_for_a_figure(tmp_path: Path) -> tuple[LiveFile, Any, dict[str, Judged]]:
    """A rejected session read live, where its bytes are, and its verdict told as waiting for
    its figure after repair."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(TEXT_BEFORE.read_bytes())
    live = LiveFile(path)
    live.poll(whole=True)
    assert live.transcript is not None and live.repair is not None
    shown = live.bytes_as_shown(live.transcript)
    assert shown is not None
    got: dict[str, Judged] = {}
    judge_all(RowModel(live.transcript, live.repair), ("anthropic",), got.__setitem__)
    return live, shown, {"anthropic": replace(got["anthropic"], figure_coming=True)}


def test_figures_asked_while_one_is_worked_out_are_worked_out_once_for_the_latest(tmp_path: Path) -> None:
    # A live session's resumed checks ask for its figure after repair after each settled append:
    # one child at a time, and asks made while it works wait, the latest alone worked out when it
    # ends. Only the verdicts still shown are told again, with the figure.
    live, shown, placed = _waiting_for_a_figure(tmp_path)

    def slowly() -> bytes | None:  # (in the child: long enough for every ask to come)
        time.sleep(0.5)
        return shown.read()

    models = [RowModel(live.transcript, live.repair) for _ in range(5)]
    latest: list[RowModel] = []
    told: list[tuple[RowModel, Judged]] = []
    figures = Figures(lambda model: model is latest[-1])
    for model in models:
        latest.append(model)
        figures.ask(model, placed, lambda _, judged, model=model: told.append((model, judged)), slowly)
        time.sleep(0.05)
    deadline = time.monotonic() + 20
    while not told and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    assert figures.forks == 2  # the first ask's, then the latest's: not one for each
    assert [(model, judged.after_sent, judged.figure_coming) for model, judged in told] == [(models[-1], 0, False)]


def test_a_child_started_after_a_drop_it_did_not_see_is_ended_as_it_starts(tmp_path: Path) -> None:
    # drop() can come between an ask taken from the queue and its child made: the child, which
    # drop() did not find, ends as soon as it is made, and no figure is told.
    live, shown, placed = _waiting_for_a_figure(tmp_path)
    model = RowModel(live.transcript, live.repair)

    def slowly() -> bytes | None:
        time.sleep(5)
        return shown.read()

    told: list[Judged] = []
    figures = Figures(lambda _: True)
    started = time.monotonic()
    figures._work(model, placed, lambda _, judged: told.append(judged), slowly, drops=-1)  # (a drop since)
    assert time.monotonic() - started < 4 and figures.forks == 1
    assert all(judged.after_sent is None for judged in told)  # (told, if at all, without a figure)
