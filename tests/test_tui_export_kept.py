"""A write that fails keeps the export dialog open, the typed path in it and why under it, as a
path refused before the write does: the person fixes the path rather than typing it again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from suture.tui.app import SutureApp
from suture.tui.screens import ConfirmScreen, ExportScreen
from tests.helpers.app import SIZE, WORKED, export, ready


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


@pytest.mark.parametrize("through_link", [False, True])
async def test_a_failed_write_asks_again_with_the_path_typed(worked: Path, tmp_path: Path, through_link: bool) -> None:
    locked = tmp_path / "locked.json"
    locked.write_bytes(b"{}\n")
    locked.chmod(0o444)  # suture does not replace a read-only file (found when it writes)
    typed = locked
    if through_link:
        typed = tmp_path / "link.json"
        typed.symlink_to(locked)
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(typed))
        assert isinstance(app.screen, ConfirmScreen)  # it exists: overwrite it?
        await pilot.press("y")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        assert app.screen.query_one("#export-path", Input).value == str(typed)
        why = str(app.screen.query_one("#export-why").render())
        assert why.startswith("Nothing written: ") and "read-only" in why
        assert not [n for n in app._notifications if n.title == "export failed"]
        assert locked.read_bytes() == b"{}\n"
        # Fixed, the path writes.
        fixed = tmp_path / "out.json"
        app.screen.query_one("#export-path", Input).value = str(fixed)
        await pilot.press("enter")
        await ready(pilot, app)
        assert fixed.exists()
        assert not isinstance(app.screen, ExportScreen)
