"""Keys a person binds otherwise (the settings file's ``[keymap]``, by binding id): the app acts on
them, and the footer, the help and the command palette say them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from suture.tui.app import SutureApp
from suture.tui.keys import KeyBar, every_binding
from suture.tui.screens import HelpScreen
from tests.helpers.app import SIZE, WORKED, ready


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


def toasts(app: SutureApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_key_bound_otherwise_acts_and_its_old_key_does_not(worked: Path) -> None:
    app = SutureApp(worked, watch=False, keymap={"app.next_change": "ctrl+n", "view.down": "down,ctrl+j"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.model is not None
        first, second = app.model.changed_rows[:2]
        assert app.view.cursor == first  # (the app opens on the first change)
        await pilot.press("n")  # no longer bound
        assert app.view.cursor == first
        await pilot.press("ctrl+n")
        assert app.view.cursor == second
        before = app.view.cursor
        await pilot.press("j")  # view.down is now down and ctrl+j only
        assert app.view.cursor == before
        await pilot.press("ctrl+j")
        assert app.view.cursor == before + 1
        footer = app.screen.query_one(KeyBar).render().plain
        assert "^n Next change" in footer
        assert not [t for t in toasts(app) if "keymap" in t]  # every id named is a binding's


async def test_the_help_and_the_palette_say_the_keys_bound_otherwise(worked: Path) -> None:
    app = SutureApp(worked, watch=False, keymap={"app.next_change": "ctrl+n", "view.open": "o"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert commands["Next change"] == "Jump to the next change (ctrl+n)"
        assert commands["Message details"] == "Show the selected message whole (o)"
        assert commands["Previous change"] == "Jump to the previous change (N)"
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        entries = dict(app.screen.entries())
        assert ("ctrl+n", "Next change", "Jump to the next change") in entries["Anywhere"]
        assert not [e for e in entries["Anywhere"] if e[0] == "n"]
        assert "Message details (o)" in entries
        await pilot.press("escape")
        await pilot.press("o")  # the panes' enter, bound to o: the message whole
        await pilot.pause()
        assert type(app.screen).__name__ == "DetailScreen"


async def test_an_id_no_binding_has_and_a_key_taken_from_another_are_said(worked: Path) -> None:
    app = SutureApp(worked, watch=False, keymap={"app.next_chnage": "ctrl+n", "app.toggle_changes": "n"})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.pause()
        said = toasts(app)
        assert any("app.next_chnage" in t and "suture keys" in t for t in said), said
        sidebar = app.query_one("#sidebar")
        assert sidebar.display
        at = app.view.cursor
        await pilot.press("n")  # now the lists' key: next change loses it, and that is said once
        await pilot.pause()
        assert not sidebar.display
        assert app.view.cursor == at
        await pilot.press("n")
        await pilot.pause()
        assert sidebar.display
        clashes = [t for t in toasts(app) if "takes keys from other bindings" in t]
        assert len(clashes) == 1 and "n from app.next_change, which has no key left" in clashes[0], clashes
        help_keys = {b.id: b.key for _, group in app.help_groups() for b in group if getattr(b, "id", None)}
        assert help_keys["app.next_change"] == "" and help_keys["app.toggle_changes"] == "n"
        assert app.key_of("app.next_change") == "no key"


@pytest.mark.parametrize(
    ("keymap", "key", "said"),
    [
        # The settings file gives the panes a key the app's next problem has.
        ({"view.down": "x"}, "x", "x does view.down there, not app.next_problem"),
        # It gives the app's next problem a key the panes and the lists have of their own.
        (
            {"app.next_problem": "j"},
            "j",
            "j does changes.down, list.down, scroll.down, sessions.down, view.down there, not app.next_problem",
        ),
    ],
)
async def test_a_key_an_app_binding_shares_with_the_panes_goes_to_the_panes_and_is_said(
    worked: Path, keymap: dict[str, str], key: str, said: str
) -> None:
    """Where the panes have focus their binding goes before the app's (of another place, which
    keeps the key): said once, as ``suture keys`` marks it."""
    app = SutureApp(worked, watch=False, keymap=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.pause()
        at = app.view.cursor
        await pilot.press(key)
        await pilot.pause()
        assert app.view.cursor == at + 1  # down, not the next problem
        (over,) = [t for t in toasts(app) if "its keys go before the app's" in t]
        assert over.startswith("where a widget or dialog has focus, its keys go before the app's: ")
        assert over.endswith(said), over


def test_every_binding_of_suture_s_screens_is_there_by_id() -> None:
    """What a keymap can name (``suture keys`` lists it): the bindings of every screen, the app's
    first."""
    found = every_binding()
    assert next(iter(found)).startswith("app.")
    assert {"app.next_change", "view.down", "changes.choose", "detail.back", "sessions.open", "scroll.down"} <= set(
        found
    )
    assert all(found[name].id == name for name in found)


async def test_the_demo_says_the_keys_bound_otherwise() -> None:
    from suture.cli.view import DEMO_HINT, demo_path

    app = SutureApp(demo_path(), watch=False, title="demo", hint=DEMO_HINT, keymap={"app.next_change": "ctrl+n,n"})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        [said] = [n.message for n in app._notifications if n.title == "what to try"]
        assert "ctrl+n goes to each change" in said and "{" not in said
