"""A notification is drawn once, in one place, whatever screen is on top: a dialog over the panes
does not leave the panes' copy of it in sight under its own, and shows it where the panes did."""

from __future__ import annotations

from typing import Any

from suture.tui.app import SutureApp
from suture.tui.screens import ProviderScreen
from tests.helpers.app import WORKED, ready


def racks(app: SutureApp) -> list[tuple[str, bool, int]]:
    """Each screen's toast rack: the screen, whether it is shown with a toast, its bottom margin."""
    out = []
    for screen in app.screen_stack:
        for rack in screen.query("ToastRack"):
            out.append((type(screen).__name__, rack.display and bool(rack.children), rack.styles.margin.bottom))
    return out


async def toasted(pilot: Any, app: SutureApp) -> None:
    """The file shown, and one notification on the screen (it stays a while)."""
    await ready(pilot, app)
    app.notify("wrote somewhere", title="exported", timeout=30)
    await pilot.pause()


async def test_a_toast_is_shown_once_and_in_one_place_when_a_dialog_opens() -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await toasted(pilot, app)
        assert racks(app) == [("PanesScreen", True, 4)]
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ProviderScreen)
        assert racks(app) == [("PanesScreen", False, 4), ("ProviderScreen", True, 4)]
        await pilot.press("escape")
        await pilot.pause()
        assert racks(app) == [("PanesScreen", True, 4)]


async def test_a_toast_reaches_the_right_edge_so_nothing_shows_beside_it() -> None:
    # The rack's empty scrollbar gutter let the column at the screen's edge (a pane's ellipsis)
    # show through beside the toast, as if the toast's own text were cut.
    from textual.widgets._toast import Toast

    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await toasted(pilot, app)
        [toast] = app.screen.query(Toast)
        assert toast.region.right == app.screen.region.right
