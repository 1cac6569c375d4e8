"""The app driven with Pilot: the sample it opens, the window size, waiting until what it started
has finished, what the panes show, and the export as a person does it."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from textual.widgets import Input
from textual.worker import WorkerCancelled, WorkerFailed

from suture.tui.app import SutureApp
from suture.tui.screens import ExportScreen
from tests.helpers.checks import checks_done

ROOT = Path(__file__).resolve().parents[2]
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"
SIZE = (160, 45)


async def settle(app: SutureApp) -> None:
    """Let workers finish and the messages they posted be handled."""
    for _ in range(3):
        # Every worker but the file watcher, which runs until the app ends.
        # A read cancelled by a newer one (exclusive workers) is fine to skip.
        for worker in [w for w in app.workers if w.group != "watch"]:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await asyncio.sleep(0)
        await app._animator.wait_until_complete()
    # A pause lets queued messages (Loaded, Checked) run.
    await asyncio.sleep(0.01)


async def ready(pilot: object, app: SutureApp) -> None:
    """The file read and shown, and the provider checks of what is shown over (they run in a
    child process, their verdicts come as messages), unless they wait for the file to be quiet."""
    await settle(app)
    model = app.model
    if model is not None and not model.partial and app.is_running and not app.checks_settling:
        await checks_done(pilot, app)
    await pilot.pause()  # type: ignore[attr-defined]


def screen_text(app: SutureApp) -> str:
    """The plain text of the visible panes, row by row, as drawn by render_line."""
    view = app.view
    lines = []
    for y in range(view.size.height):
        strip = view.render_line(y)
        lines.append("".join(segment.text for segment in strip))
    return "\n".join(lines)


def app_on_copy(sample: Path, tmp_path: Path, name: str = "session.jsonl") -> SutureApp:
    """The app (not watching) on a copy of ``sample`` named ``name`` in ``tmp_path``: the sample
    itself is never written."""
    path = tmp_path / name
    path.write_bytes(sample.read_bytes())
    return SutureApp(path, watch=False)


def line(record: dict[str, object]) -> bytes:
    return orjson.dumps(record) + b"\n"


USER = {"role": "user", "content": "hi"}


async def settled(pilot: Any, app: SutureApp) -> None:
    """As :func:`ready`, and the provider checks landed too."""
    await ready(pilot, app)
    for _ in range(100):  # a bound: the checks of every provider land one by one
        if app.verdicts is not None and not app.checks_pending:
            break
        await pilot.pause(0.05)


def suture_repair(path: Path, *args: str) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(path), *args], capture_output=True, check=True, cwd=path.parent
    )
    return done.stdout


async def export(pilot: object, app: SutureApp, path: str | None = None) -> None:
    await pilot.press("e")  # type: ignore[attr-defined]
    # The dialog opens once a worker has made the bytes from the file as it is now.
    await ready(pilot, app)
    assert isinstance(app.screen, ExportScreen)
    if path is not None:
        app.screen.query_one("#export-path", Input).value = path
    await pilot.press("enter")  # type: ignore[attr-defined]
    await ready(pilot, app)


async def until(pilot: Any, check: Any) -> None:
    """Wait (a bounded while) for ``check()`` to hold (the sessions browser catching up)."""
    for _ in range(200):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("the browser did not catch up")


async def help_text(pilot: Any, app: SutureApp) -> Any:
    """``?`` pressed on a file shown: the help's body (its ``HelpText``), once it is open."""
    from suture.tui.screens import HelpScreen, HelpText

    await ready(pilot, app)
    await pilot.press("question_mark")
    await pilot.pause()
    assert isinstance(app.screen, HelpScreen)
    return app.screen.query_one("#help-text", HelpText)
