"""Waiting, in a Pilot test, for the app's provider checks to be over."""

from __future__ import annotations

import time
from typing import Any

from suture.tui.app import SutureApp

LIMIT = 60.0
"""Seconds the checks of a test's file may take, at most, before the test says they never ended."""


async def checks_done(pilot: Any, app: SutureApp, limit: float = LIMIT) -> None:
    """Return once every provider's verdict on the model shown is handled by the app (or why
    there is none), the checks run in a child process and their results come one provider at
    a time; raise if that takes more than ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while not app.checks_done:
        if time.monotonic() > deadline:
            workers = ", ".join(f"{w.group}:{w.state.name}" for w in app.workers)
            raise AssertionError(f"the provider checks did not end in {limit:.0f} s (workers: {workers})")
        await pilot.pause(0.02)
    await pilot.pause()
