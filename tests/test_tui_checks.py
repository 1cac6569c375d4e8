"""The app's provider checks in their child process: a child that dies is said once, in the
status line and the problems list; a child still at work is ended with the app."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import suture.tui.judged
from suture.tui.app import SutureApp
from suture.tui.changes import ProblemList
from tests.helpers.app import SIZE, WORKED, settle
from tests.helpers.checks import checks_done
from tests.helpers.processes import gone

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here: the checks run in the app's process")


async def test_a_checks_process_that_dies_is_said_once(monkeypatch: pytest.MonkeyPatch) -> None:
    def dies(*_: Any) -> Iterator[Any]:
        os.kill(os.getpid(), signal.SIGKILL)  # as the system's out-of-memory killer would
        yield from ()

    monkeypatch.setattr(suture.tui.judged, "verdict_parts", dies)
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app)
        await checks_done(pilot, app)
        said = "provider checks failed: the checks' process was ended by SIGKILL before it was done"
        assert app.checks_error == said and app.verdicts is None
        status = app.status.render().plain
        assert status.count(said) == 1
        assert app.query_one("#problems", ProblemList).empty == said
        await pilot.press("p")  # no verdicts to pick from: said, not a crash
        await pilot.pause()
        assert app.screen is app.screen_stack[0]


async def test_a_checks_process_at_work_ends_with_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*_: Any) -> Iterator[Any]:
        time.sleep(120)
        yield from ()

    monkeypatch.setattr(suture.tui.judged, "verdict_parts", slow)
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(500):  # a bound: 10 s for the checks to start
            if app._checks_child is not None:
                break
            await pilot.pause(0.02)
        child = app._checks_child
        assert child is not None and not gone(child.pid)
    for _ in range(500):  # a bound: 10 s for the worker to reap it
        if child._reaped:
            break
        time.sleep(0.02)
    assert child.ended and child._reaped and gone(child.pid)


async def test_a_new_model_ends_the_checks_of_the_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(WORKED.read_bytes())
    real = suture.tui.judged.verdict_parts
    calls = {"n": 0}

    def first_slow(*args: Any) -> Iterator[Any]:
        if calls["n"] == 0:
            time.sleep(120)
        yield from real(*args)

    def counted(*args: Any) -> Iterator[Any]:
        gen = first_slow(*args)
        calls["n"] += 1
        return gen

    monkeypatch.setattr(suture.tui.judged, "verdict_parts", counted)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(500):
            if app._checks_child is not None:
                break
            await pilot.pause(0.02)
        old = app._checks_child
        assert old is not None
        path.write_bytes(WORKED.read_bytes().replace(b'"content"', b'"content" ', 1))
        await pilot.press("r")
        for _ in range(500):
            if old._reaped:
                break
            await pilot.pause(0.02)
        assert old.ended and old._reaped and gone(old.pid)
        await checks_done(pilot, app, limit=60)
        assert app.verdicts is not None


async def test_a_verdict_that_lands_while_the_app_closes_is_dropped(tmp_path: Path) -> None:
    # The app's close removes its widgets one by one while messages still arrive: a verdict that
    # comes in then must not take the app down looking for the status bar (as the lists go too).
    from suture.tui.checking import Checked

    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await checks_done(pilot, app)
        assert app.model is not None and app.verdicts is not None
        model, verdicts = app.model, app.verdicts
        await app.screen_stack[0].query_one("#status").remove()
        app.on_checked(Checked(model, dict(verdicts)))
        app.on_checked(Checked(model, None, "provider checks failed: gone"))
        assert app.verdicts is verdicts
