"""While the view follows the end of the file (``f``), the key bar keeps ``f``, said as what it
does now: stop following."""

from __future__ import annotations

from pathlib import Path

from suture.tui.app import SutureApp
from suture.tui.keys import KeyBar
from tests.helpers.app import SIZE, WORKED, ready


def _keys(app: SutureApp) -> list[tuple[str, str]]:
    bar = app.query_one("#keys", KeyBar)
    return [(key.key, key.description) for key in bar.fitted(bar.size.width)]


async def test_the_key_bar_keeps_f_to_stop_following(tmp_path: Path) -> None:
    path = tmp_path / "worked.json"
    path.write_bytes(WORKED.read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("f")
        await pilot.pause()
        assert app.following
        assert ("f", "Stop following") in _keys(app)
        await pilot.press("f")
        await pilot.pause()
        assert not app.following
        assert ("f", "Stop following") not in _keys(app)
        await pilot.press("f", "k")  # moved off the end: no longer following
        await pilot.pause()
        assert not app.following and ("f", "Stop following") not in _keys(app)


async def test_the_key_bar_keeps_f_while_following_in_a_narrow_window(tmp_path: Path) -> None:
    path = tmp_path / "worked.json"
    path.write_bytes(WORKED.read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press("f")
        await pilot.pause()
        assert ("f", "Stop following") in _keys(app)
