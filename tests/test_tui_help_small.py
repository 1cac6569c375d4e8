"""The help in a terminal too narrow for its columns: each key on a line of its own, its name
beside it, its tooltip under it, every line broken between words; the box scrolls."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.text import Text
from textual.binding import Binding

from suture.tui.app import SutureApp
from tests.helpers.app import WORKED, help_text


@pytest.mark.parametrize("size", [(20, 8), (30, 12)])
async def test_the_help_in_a_tiny_terminal_breaks_lines_only_between_words(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    path = tmp_path / WORKED.name
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=size) as pilot:
        body = await help_text(pilot, app)
        shown = body.content
        assert isinstance(shown, Text) and body.laid == body.content_region.width
        laid = shown.plain.split("\n")
        assert max(len(line) for line in laid) <= body.laid  # the box wraps none of them again
        words = {w for line in laid for w in line.split()}
        for _title, bindings in app.help_groups():
            for binding in bindings:
                if isinstance(binding, Binding):
                    for said in (binding.description, binding.tooltip):
                        assert set(said.split()) <= words, said  # every word whole
        # Each key starts a line, its name beside it where that fits.
        assert "n Next change" in [line.strip() for line in laid]
        box = app.screen.query_one("#help-box")
        assert box.max_scroll_y > 0
        await pilot.press("G")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y


async def test_the_help_at_160_columns_says_each_tooltip_beside_its_name() -> None:
    """Every key with a tooltip says its first line beside its name, in one column: a name as long
    as tab's and esc's in a list too, and the command palette's key as the others are."""
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        body = await help_text(pilot, app)
        shown = body.content
        assert isinstance(shown, Text)
        laid = shown.plain.split("\n")
    column = {line.index(said) for line in laid for said in ("Jump to the next change", "Every key") if said in line}
    assert len(column) == 1
    (at,) = column
    for name, said in [
        ("Next pane, list", "Move between the panes"),
        ("Back to panes", "The panes again"),
        ("Command palette", "Every action by name"),
    ]:
        (line,) = [line for line in laid if name in line]
        assert line.find(said) == at, line
