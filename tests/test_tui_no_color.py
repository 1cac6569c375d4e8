"""NO_COLOR: the app draws its screens in grey, every line through Textual's monochrome filter,
and the lists' lines keep their own styles (a line Rich renders with no spans kept none, which
the filter cannot take: the first frame ended in a traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from textual.filter import Monochrome

from suture.tui.app import SutureApp
from suture.tui.changes import ProblemList
from tests.helpers.app import SIZE, WORKED, ready


def drawn(app: SutureApp) -> list[tuple[str, Style | None]]:
    """Every segment of the screen as the terminal gets it (after the line filters)."""
    update = app.screen._compositor.render_full_update()
    return [(s.text, s.style) for line in update.strips for strip in line for s in strip]


async def test_no_color_draws_the_first_screen_and_the_lists(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for path in (WORKED, empty):
        app = SutureApp(path, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert any(isinstance(f, Monochrome) for f in app._filters)
            segments = drawn(app)  # (before the provider checks: the problems list says it waits)
            assert any(text.strip() for text, _ in segments)
            await ready(pilot, app)
            segments = drawn(app)
            colours = {c for _, style in segments if style for c in (style.color, style.bgcolor) if c is not None}
            assert all(c.triplet is None or len(set(c.triplet)) == 1 for c in colours), colours  # grey only


async def test_a_lists_line_without_spans_keeps_its_style() -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        problems = app.query_one(ProblemList)
        problems.items = []
        problems.empty = "nothing here"
        problems.refresh()
        first = list(problems.render_line(0))
        said = [s for s in first if "nothing here" in s.text]
        assert said and said[0].style is not None
        muted = problems.get_component_rich_style("changes--empty", partial=True)
        assert said[0].style.color == (problems.rich_style + muted).color
