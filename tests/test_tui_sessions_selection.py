"""The sessions browser keeps the file a person selected as files come and go, and its detail
under the list never splits a path across lines."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
from textual.geometry import Region

from suture.tui.sessions import SessionsApp, SessionsScreen
from tests.fakehome import SAMPLES
from tests.helpers.app import until

LONG = "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))


def folder_of(tmp_path: Path, names: dict[str, str]) -> Path:
    """A folder holding a copy of each sample (``name: sample``), each a minute older than the
    one before it."""
    folder = tmp_path / "ss"
    folder.mkdir()
    now = time.time()
    for i, (name, sample) in enumerate(names.items()):
        shutil.copyfile(SAMPLES / sample, folder / name)
        os.utime(folder / name, (now - 3600 - 60 * i, now - 3600 - 60 * i))
    return folder


def detail_lines(app: SessionsApp) -> list[str]:
    detail = app.browser.query_one("#sessions-detail")
    strips = detail.render_lines(Region(0, 0, detail.size.width, detail.size.height))
    return [strip.text.strip() for strip in strips]


async def test_a_long_path_under_the_list_is_cut_in_its_middle_never_split(tmp_path: Path) -> None:
    folder = folder_of(tmp_path, {LONG: "real/claude-code/short.jsonl"})
    app = SessionsApp(SessionsScreen([str(folder)], [], watch=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.browser.finished)
        await pilot.pause()
        lines = [line for line in detail_lines(app) if line]
        where = next(line for line in lines if "…" in line)  # its start and its end, on one line
        assert where.startswith(str(folder)[:20]) and where.endswith("5122611a9569.jsonl")
        assert any(line.startswith("session ") for line in lines)  # the session id on a line of its own
        assert not any(line.startswith(("nl", "l  ·", "jsonl")) for line in lines)
        # A word longer than the line (an API error's URL) ends in an ellipsis, on a line of its own.
        [(path, row)] = app.browser.all.items()
        app.browser.all[path] = replace(row, last_error="see https://example.com/" + "x" * 120)
        app.browser.refilter()
        await pilot.pause()
        lines = [line for line in detail_lines(app) if line]
        assert "last API error: see" in lines and any(line.endswith("x…") for line in lines)
        assert not any(line.startswith("x") for line in lines)
        await pilot.resize_terminal(160, 45)
        await pilot.pause(0.1)
        assert any(line.endswith(LONG) for line in detail_lines(app))  # whole where it fits


async def test_the_selected_file_stays_selected_as_a_newer_one_appears_above_it(tmp_path: Path) -> None:
    # (Request files hold no time of their own: each is as new as the folder says.)
    folder = folder_of(tmp_path, {"a.json": "chat/clean.json", "b.json": "chat/moved-result.json"})
    app = SessionsApp(SessionsScreen([str(folder)], [], watch=True, debounce_ms=50))
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: app.browser.finished)
        table = app.browser.table
        assert table.cursor == 0
        chosen = table.selected.path if table.selected else ""
        assert chosen.endswith("a.json")
        await pilot.pause(0.3)  # the watcher starts once the scan is done
        shutil.copyfile(SAMPLES / "chat" / "orphan-note.json", folder / "new.json")
        await until(pilot, lambda: len(table.rows) == 3)
        assert table.rows[0].path.endswith("new.json")  # newest first, above the one selected
        assert table.selected is not None and table.selected.path == chosen
        (folder / "a.json").unlink()  # the file selected goes: its neighbour below is selected
        await until(pilot, lambda: len(table.rows) == 2)
        assert table.selected is not None and table.selected.path.endswith("b.json")
