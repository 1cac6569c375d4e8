"""The sessions browser, driven with Pilot: rows appear, filter, open side by side, come back, and
keep up with the folders."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from suture.scan import REJECTED, UNREADABLE
from suture.sessions import agent_places
from suture.tui.sessions import SessionList, SessionsApp, SessionsScreen, matches
from tests.fakehome import SAMPLES, env_for, home_with_sessions

SIZE = (160, 45)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home with every agent's sample sessions (and the real ones), its own cache, and
    clocks shown in UTC."""
    home = tmp_path / "home"
    home_with_sessions(home, real=True)
    for key, value in env_for(home).items():
        if key in ("HOME", "SUTURE_CACHE_DIR"):
            monkeypatch.setenv(key, value)
    for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    return home


def browser(home: Path, **options: Any) -> SessionsApp:
    env = {"HOME": str(home)}
    return SessionsApp(SessionsScreen([], agent_places(env), **options))


async def scanned(pilot: Any, screen: SessionsScreen) -> None:
    """Wait (a bounded while) for the first full scan to be shown."""
    for _ in range(400):
        if screen.finished:
            break
        await pilot.pause(0.05)
    assert screen.finished
    await pilot.pause()


def shown(app: SessionsApp) -> list[str]:
    return [os.path.basename(r.path) for r in app.browser.table.rows]


async def test_every_session_appears_newest_first(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        rows = app.browser.table.rows
        expected = {str(p) for p in home.rglob("*.jsonl")}
        assert {r.path for r in rows} == expected
        assert [r.when for r in rows] == sorted((r.when for r in rows), reverse=True)
        assert {r.agent for r in rows} == {"claude-code", "codex", "pi"}
        assert app.screen is app.browser
        assert isinstance(app.focused, SessionList)
        status = str(app.browser.query_one("#sessions-status").render())
        assert f"Sessions: {len(rows)}" in status
        assert "~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions" in status


async def test_the_first_rows_come_from_the_cache_before_any_file_is_read(home: Path) -> None:
    first = browser(home, watch=False)
    async with first.run_test(size=SIZE) as pilot:
        await scanned(pilot, first.browser)
        before = list(first.browser.table.rows)
    again = browser(home, watch=False)
    async with again.run_test(size=SIZE) as pilot:
        await scanned(pilot, again.browser)
        assert again.browser.progress.cached == len(before)
        assert again.browser.table.rows == before


async def test_filter_by_text_and_by_verdict(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        everything = list(app.browser.table.rows)
        await pilot.press("slash", "s", "p", "o", "t")
        await pilot.pause()
        rows = app.browser.table.rows
        assert rows and all("spot" in r.project.lower() or "spot" in r.path.lower() for r in rows)
        assert len(rows) < len(everything)
        await pilot.press("enter")  # back to the list, the filter kept
        assert isinstance(app.focused, SessionList)
        await pilot.press("v")
        assert app.browser.verdict == REJECTED
        assert all(r.verdict == REJECTED for r in app.browser.table.rows)
        await pilot.press("v")
        assert app.browser.verdict == UNREADABLE
        assert app.browser.table.rows == []
        empty = app.browser.query_one("#sessions-empty")
        assert empty.display
        assert "no session passes the filter" in str(empty.render())
        await pilot.press("escape")
        assert app.browser.table.rows == everything
        assert (app.browser.words, app.browser.verdict) == ([], "")


async def test_enter_opens_the_session_side_by_side_and_esc_comes_back(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        target = next(
            i for i, r in enumerate(app.browser.table.rows) if r.path.endswith("interrupted-then-api-error.jsonl")
        )
        for _ in range(target):
            await pilot.press("down")
        await pilot.press("enter")
        for _ in range(200):
            if app.model is not None:
                break
            await pilot.pause(0.05)
        assert app.screen is app.screen_stack[0]
        assert app.path is not None and app.path.name == "interrupted-then-api-error.jsonl"
        assert app.model is not None and app.model.repair.changes
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.browser
        assert app.browser.table.cursor == target
        # Another session opens in the same view, built anew.
        await pilot.press("up", "enter")
        for _ in range(200):
            if app.model is not None and app.path is not None and app.path.name != "interrupted-then-api-error.jsonl":
                break
            await pilot.pause(0.05)
        assert app.path == Path(app.browser.table.rows[target - 1].path)
        assert app.model is not None and app.model.transcript.format == app.browser.table.rows[target - 1].format


async def test_sessions_that_appear_grow_or_go_are_shown_as_they_change(home: Path) -> None:
    app = browser(home, watch=True, debounce_ms=50)
    project = home / ".claude" / "projects" / "-home-dev-shop"
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        n = len(app.browser.table.rows)
        await pilot.pause(0.3)  # the watcher starts once the scan is done
        new = project / "appeared.jsonl"
        shutil.copyfile(SAMPLES / "claude-code" / "interrupted-then-api-error.jsonl", new)

        async def until(check: Any) -> None:
            for _ in range(200):
                if check():
                    return
                await pilot.pause(0.05)
            raise AssertionError("the browser did not catch up")

        await until(lambda: len(app.browser.table.rows) == n + 1)
        with open(new, "ab") as f:
            f.write(
                b'{"type":"user","uuid":"u9","parentUuid":null,"sessionId":"s","timestamp":"2030-01-01T00:00:00Z",'
                b'"message":{"role":"user","content":"and now?"}}\n'
            )
        await until(lambda: app.browser.table.rows[0].path == str(new))
        assert app.browser.table.rows[0].when == "2030-01-01T00:00:00Z"
        new.unlink()
        await until(lambda: len(app.browser.table.rows) == n)


async def test_no_sessions_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    app = browser(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        empty = app.browser.query_one("#sessions-empty")
        assert empty.display
        assert "no sessions found in ~/.claude/projects" in str(empty.render())


def test_matches_every_word_in_any_field() -> None:
    from suture.scan import Row

    row = Row(path="/h/a.jsonl", verdict=REJECTED, agent="codex", project="/work/shop", last_error="API Error 400")
    assert matches(row, ["shop", "codex"])
    assert matches(row, ["400"], REJECTED)
    assert not matches(row, ["shop", "claude"])
    assert not matches(row, [], UNREADABLE)


def test_the_browser_snapshot(home: Path, snap_compare: Any) -> None:
    async def ready(pilot: Any) -> None:
        await scanned(pilot, pilot.app.browser)
        await pilot.press("down", "down")
        await pilot.pause()

    assert snap_compare(browser(home, watch=False, cache=False), terminal_size=SIZE, run_before=ready)


def test_the_command_refuses_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "suture", "sessions", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        env=env_for(tmp_path),
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"suture: error: {tmp_path / 'nowhere'}: no such file or folder\n"


def test_suture_alone_without_a_terminal_prints_the_usage(tmp_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "suture"], capture_output=True, text=True, env=env_for(tmp_path), timeout=60
    )
    assert proc.returncode == 2
    assert "sessions" in proc.stderr and "scan" in proc.stderr


async def test_at_80_columns_a_row_keeps_its_verdict_and_why(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        k = next(i for i, r in enumerate(table.rows) if r.path.endswith("interrupted-then-api-error.jsonl"))
        line = table.render_line(k - int(table.scroll_y)).text
        assert line.startswith(" rejected    claude-code  ")
        assert "anthropic A1 message" in line
        assert len(line) == table.size.width
        header = app.browser.query_one("#sessions-header").render_line(0).text
        assert "project" not in header and header.rstrip().endswith("why")
