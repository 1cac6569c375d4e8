"""The app's explain screen driven with Pilot: waiting for the recorded error's explanation, and a
provider's error pasted into the screen's box as a person does it (E, the paste, the wait)."""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea

from suture.tui.app import SutureApp
from suture.tui.explain import ExplainScreen
from tests.helpers.app import ready


async def explained(pilot: Any, app: SutureApp) -> None:
    """The file shown and checked, and the error it records (if any) explained."""
    await ready(pilot, app)
    for _ in range(100):  # a bound: the recorded error is read in a worker after the first frame
        if app.recorded is None or app.recorded.explanation is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause()


async def paste_error(pilot: Any, app: SutureApp, text: str) -> ExplainScreen:
    """E opens the explain screen with its empty box focused, ``text`` lands in it as a paste does
    (``q`` and ``:`` are text there, not keys), and the explanation is waited for; the screen."""
    await pilot.press("E")
    screen = app.screen
    assert isinstance(screen, ExplainScreen)
    area = screen.query_one(TextArea)
    assert area.has_focus and area.text == ""
    area.insert(text)
    await pilot.pause(0.5)
    await ready(pilot, app)
    await pilot.pause()
    return screen
