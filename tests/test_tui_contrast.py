"""Every text the app draws reads at 4.5:1 or more in every built-in theme, measured on the
colours the screen is actually drawn with (after styles, themes and line filters)."""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.segment import Segment
from textual.strip import Strip
from textual.theme import BUILTIN_THEMES

from suture.tui.app import SutureApp
from suture.tui.contrast import MINIMUM, contrast, readable
from suture.tui.screens import ExportScreen
from tests.helpers.app import ROOT, WORKED, ready, settled
from tests.helpers.explain import paste_error

# ANSI themes are drawn in the terminal's own sixteen colours: only the terminal knows them.
THEMES = [name for name, theme in BUILTIN_THEMES.items() if not theme.ansi]
SHAPES = {chr(c) for c in range(0x2500, 0x25A0)} | {" ", "\u00a0"}


def _segments(item: Any) -> Iterator[Segment]:
    if isinstance(item, Strip):
        yield from item
    else:
        for part in item:
            yield from _segments(part)


def unreadable(app: SutureApp) -> list[tuple[float, str, str, str]]:
    """Text segments of the top screen, as drawn, whose contrast is under the minimum."""
    drawn = app.screen._compositor.render_full_update()
    found = []
    for line in drawn.strips:
        for text, style, control in _segments(line):
            if control or style is None or SHAPES.issuperset(text):
                continue
            fg, bg = (style.bgcolor, style.color) if style.reverse else (style.color, style.bgcolor)
            assert fg is not None and bg is not None, (text, style)  # every text has real colours
            f, b = fg.get_truecolor(), bg.get_truecolor()
            rgb_f = (f.red, f.green, f.blue)
            rgb_b = (b.red, b.green, b.blue)
            if style.dim:
                rgb_f = tuple((x + y) // 2 for x, y in zip(rgb_f, rgb_b, strict=True))  # type: ignore[assignment]
            ratio = contrast(rgb_f, rgb_b)
            if ratio < MINIMUM:
                found.append((round(ratio, 2), text.strip()[:30], f.hex, b.hex))
    return found


def test_readable_moves_a_colour_just_far_enough() -> None:
    light_grey = (0xE0, 0xE0, 0xE0)
    pale_green = (0x8A, 0xD4, 0xA1)
    assert contrast(pale_green, light_grey) < 1.5
    fixed = readable(pale_green, light_grey)
    assert MINIMUM <= contrast(fixed, light_grey) < MINIMUM + 0.2
    assert fixed[1] > fixed[0] and fixed[1] > fixed[2]  # still a green
    assert readable((255, 255, 255), (0, 0, 0)) == (255, 255, 255)
    for bg in [(128, 128, 128), (119, 119, 119), (0, 0, 255), (255, 255, 0)]:
        assert contrast(readable(bg, bg), bg) >= MINIMUM


Step = Callable[[Any, SutureApp], Awaitable[None]]


async def _main(pilot: Any, app: SutureApp) -> None:
    await pilot.press("slash", *"read", "enter")


async def _lists_focused(pilot: Any, app: SutureApp) -> None:
    await pilot.press("tab")


async def _details(pilot: Any, app: SutureApp) -> None:
    await pilot.press("n", "n", "n", "enter")


async def _help(pilot: Any, app: SutureApp) -> None:
    await pilot.press("question_mark")


async def _provider(pilot: Any, app: SutureApp) -> None:
    await pilot.press("p")


async def _export(pilot: Any, app: SutureApp) -> None:
    await pilot.press("e")
    await ready(pilot, app)  # the dialog opens once its worker has made the bytes
    assert isinstance(app.screen, ExportScreen)


async def _search_box(pilot: Any, app: SutureApp) -> None:
    await pilot.press("slash", *"x")


async def _explain(pilot: Any, app: SutureApp) -> None:
    await paste_error(
        pilot, app, "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: y."
    )


async def _goto(pilot: Any, app: SutureApp) -> None:
    await pilot.press("colon", *"#3")


async def _as_written(pilot: Any, app: SutureApp) -> None:
    await pilot.press("n", "n", "n", "enter", "w")
    await pilot.pause(0.3)
    await app.workers.wait_for_complete()


async def _filtered(pilot: Any, app: SutureApp) -> None:
    await pilot.press("v")


STEPS: dict[str, Step] = {
    "explain": _explain,
    "go to box": _goto,
    "as written": _as_written,
    "filter": _filtered,
    "main": _main,
    "lists": _lists_focused,
    "details": _details,
    "help": _help,
    "provider": _provider,
    "export": _export,
    "search box": _search_box,
}


@pytest.mark.parametrize("step", list(STEPS))
async def test_every_text_reads_in_every_theme(tmp_path: Path, step: str) -> None:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await settled(pilot, app)
        await STEPS[step](pilot, app)
        await pilot.pause()
        failures = {}
        for theme in THEMES:
            app.theme = theme
            await pilot.pause()
            bad = unreadable(app)
            if bad:
                failures[theme] = sorted(set(bad))[:3]
        assert not failures, failures


async def test_the_recorded_error_banner_reads_in_every_theme(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, app)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.query_one("#banner").display
        for theme in THEMES:
            app.theme = theme
            await pilot.pause()
            assert not unreadable(app), theme


async def test_states_read_in_every_theme(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b"[")
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        assert app.query_one("#state").display
        for theme in THEMES:
            app.theme = theme
            await pilot.pause()
            assert not unreadable(app), theme
        path.write_bytes(orjson.dumps([]))
        await pilot.press("r")
        await ready(pilot, app)
        for theme in THEMES:
            app.theme = theme
            await pilot.pause()
            assert not unreadable(app), theme


async def test_without_the_filter_some_theme_fails(tmp_path: Path) -> None:
    """The check above can fail: the same screens without the contrast filter do not pass."""
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    app._filters = [f for f in app._filters if type(f).__name__ != "ContrastFilter"]
    async with app.run_test(size=(120, 32)) as pilot:
        await settled(pilot, app)
        app.theme = "textual-light"
        await pilot.pause()
        assert unreadable(app)
