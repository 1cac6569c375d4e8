"""The sessions browser, driven with Pilot: rows appear, filter, open side by side, come back, and
keep up with the folders."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Input

from suture.scan import LISTED, OK, OTHER, REJECTED, UNREADABLE
from suture.sessions import agent_places
from suture.tui.keys import KeyBar
from suture.tui.sessions import SessionHeader, SessionList, SessionsApp, SessionsScreen, _note, matches
from tests.fakehome import SAMPLES, env_for, use_home
from tests.helpers.app import until

SIZE = (160, 45)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home with every agent's sample sessions (and the real ones), its own cache, and
    clocks shown in UTC."""
    return use_home(tmp_path / "home", monkeypatch, real=True)


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


def list_text(table: SessionList) -> str:
    return "\n".join(table.render_line(y).text for y in range(table.size.height))


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
        await pilot.press("slash", "d", "e", "v", "/")
        await pilot.pause()
        rows = app.browser.table.rows
        assert rows and all("dev/" in r.project.lower() or "dev/" in r.path.lower() for r in rows)
        assert len(rows) < len(everything)
        await pilot.press("enter")  # back to the list, the filter kept
        assert isinstance(app.focused, SessionList)
        await pilot.press("v")
        assert app.browser.verdict == REJECTED
        assert [os.path.basename(r.path) for r in app.browser.table.rows] == [
            "2025-11-20T10-00-00-000Z_branched-aborted.jsonl"
        ]
        await pilot.press("v")
        assert app.browser.verdict == UNREADABLE
        assert app.browser.table.rows == []
        # The empty list says why, and keeps the focus: the next keys are still the list's.
        assert isinstance(app.focused, SessionList)
        assert "no session passes the filter (esc clears it)" in list_text(app.browser.table)
        await pilot.press("escape")
        assert app.browser.table.rows == everything
        assert (app.browser.words, app.browser.verdict) == ([], "")


async def test_r_says_at_once_that_it_rescans(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await scanned(pilot, app.browser)
        assert "listing…" not in app.browser.status_text(150) and "scanning" not in app.browser.status_text(150)
        app.browser.action_rescan()  # (what r does; read before the scan's worker has run)
        assert "listing…" in app.browser.status_text(150)
        await pilot.pause()
        assert any(n.message.startswith("rescanning") for n in app._notifications)
        await scanned(pilot, app.browser)


async def test_the_text_filter_finds_what_the_rows_show(home: Path) -> None:
    """A verdict's word and the last column's words are text the filter finds, as the rows show
    them ("filter by any text")."""
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        await pilot.press("slash", *"rejected", "enter")
        await pilot.pause()
        assert [r.verdict for r in app.browser.table.rows] == [REJECTED]
        await pilot.press("escape")
        noted = next(r for r in app.browser.table.rows if r.verdict == OK and "repairs" in _note(r))
        await pilot.press("slash", *"itself", "enter")
        await pilot.pause()
        assert noted in app.browser.table.rows
        assert all("itself" in _note(r) for r in app.browser.table.rows)


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
        for _ in range(200):  # (a bound: the browser comes back once the escape is handled)
            if app.screen is app.browser:
                break
            await pilot.pause(0.05)
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

        await until(pilot, lambda: len(app.browser.table.rows) == n + 1)
        with open(new, "ab") as f:
            f.write(
                b'{"type":"user","uuid":"u9","parentUuid":null,"sessionId":"s","timestamp":"2030-01-01T00:00:00Z",'
                b'"message":{"role":"user","content":"and now?"}}\n'
            )
        await until(pilot, lambda: app.browser.table.rows[0].path == str(new))
        assert app.browser.table.rows[0].when == "2030-01-01T00:00:00Z"
        new.unlink()
        await until(pilot, lambda: len(app.browser.table.rows) == n)


async def test_no_sessions_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    app = browser(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        assert "no sessions found in ~/.claude/projects" in list_text(app.browser.table)


async def test_a_folder_whose_sessions_are_in_a_hidden_folder_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another home given as a folder: its sessions are under .claude, which is not walked. The
    # list says so, and how to look in it, as suture scan does.
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    other = tmp_path / "other"
    (other / ".claude" / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude-code" / "parallel-calls.jsonl", other / ".claude" / "p")
    (other / ".git").mkdir()
    app = SessionsApp(SessionsScreen([str(other)], [], watch=False))
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        assert "skipped hidden folders: .claude, .git; to look in one, name it:" in list_text(app.browser.table)
        assert app.browser.empty_text().splitlines()[1].endswith(f"suture sessions {other / '.claude'}")


async def test_a_folder_given_that_holds_no_session_is_warned_of_beside_those_found(home: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / ".codex").mkdir(parents=True)
    app = SessionsApp(SessionsScreen([str(empty)], agent_places({"HOME": str(home)}), watch=False))
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        assert app.browser.table.rows
        warned = [n.message for n in app._notifications if n.severity == "warning"]
        assert warned == [
            f"no session files found in {empty} (skipped hidden folders: .codex; "
            f"to look in one, name it: suture sessions {empty / '.codex'})"
        ]


async def test_no_agent_folder_at_all_is_said_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A machine where no agent ran yet: not "no sessions found in nowhere".
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    app = browser(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        shown = list_text(app.browser.table)
        assert "no sessions found: no agent's folder is on this machine" in shown
        status = str(app.browser.query_one("#sessions-status").render())
        assert "nowhere" not in shown + status and not status.rstrip().endswith(" in")


async def test_a_verdict_no_session_has_says_what_is_shown_and_that_none_passes(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=(50, 24)) as pilot:
        await scanned(pilot, app.browser)
        assert not any(r.verdict == OTHER for r in app.browser.all.values())
        await pilot.press("v", "v", "v", "v")
        await pilot.pause()
        assert app.browser.verdict == OTHER and app.browser.table.rows == []
        said = " ".join(list_text(app.browser.table).split())
        assert "showing other only: no session passes the filter (esc clears it)" in said
        # The text filter too, in the status line's words.
        await pilot.press("slash", *"zzz", "enter")
        await until(pilot, lambda: "'zzz'" in list_text(app.browser.table))
        assert "showing other only, 'zzz': no session passes" in " ".join(list_text(app.browser.table).split())
        assert "showing 0 (other only, 'zzz')" in str(app.browser.query_one("#sessions-status").render())


def test_a_filter_before_the_scan_found_a_session_says_what_it_shows(tmp_path: Path) -> None:
    screen = SessionsScreen([str(tmp_path)])
    assert screen.empty_text() == ""  # (nothing found yet, no filter: the list waits)
    screen.verdict = OTHER
    assert screen.empty_text() == "showing other only: no session passes the filter (esc clears it)"


async def test_what_an_empty_list_says_paints_whole_lines(home: Path) -> None:
    # Each line the list draws is as wide as the list, so nothing drawn there before (a session's
    # panes, opened from it) shows through beside the words.
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        await pilot.press("slash", *"zzz", "enter")
        table = app.browser.table
        await until(pilot, lambda: not table.rows)
        lines = [table.render_line(y) for y in range(table.size.height)]
        assert any("no session passes the filter" in line.text for line in lines)
        assert {len(line.text) for line in lines} == {table.row_width}


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


def test_suture_alone_without_a_terminal_says_so_as_suture_sessions_does(tmp_path: Path) -> None:
    """``suture > out.txt`` is ``suture sessions > out.txt``: one line on stderr, exit 2 (not the
    whole usage)."""
    import subprocess
    import sys

    said = []
    for args in ([], ["sessions"]):
        proc = subprocess.run(
            [sys.executable, "-m", "suture", *args], capture_output=True, text=True, env=env_for(tmp_path), timeout=60
        )
        assert proc.returncode == 2 and proc.stdout == ""
        said.append(proc.stderr)
    assert said[0] == said[1]
    assert said[0].startswith("suture: error: the app needs a terminal") and said[0].count("\n") == 1


async def test_at_80_columns_a_row_keeps_its_verdict_and_file_and_why_is_under_the_list(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        k = next(i for i, r in enumerate(table.rows) if r.path.endswith("branched-aborted.jsonl"))
        table.cursor = k
        await pilot.pause()
        line = table.render_line(k - int(table.scroll_y)).text
        assert line.startswith(" rejected    pi  ")
        assert line.endswith("  2025-11-20…rted.jsonl") and "anthropic" not in line  # the file name, its middle cut
        assert len(line) == table.scrollable_content_region.width  # the scrollbar hides none of it
        header = app.browser.query_one("#sessions-header").render_line(0).text
        assert "project" not in header and header.rstrip().endswith("file")
        detail = str(app.browser.query_one("#sessions-detail").render())
        assert "anthropic would reject it: A2 line 14" in detail


@pytest.mark.parametrize(("width", "project"), [(100, False), (120, True), (160, True)])
async def test_the_file_column_stays_from_100_columns(home: Path, width: int, project: bool) -> None:
    # From 100 columns each row names its file (a long name cut in its middle, its start and
    # end kept), under a header whose titles stand over the columns; the project joins at 120.
    app = browser(home, watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        header = app.browser.query_one(SessionHeader).render_line(0).text
        assert "file" in header.split() and ("project" in header.split()) == project
        start = header.index("  file  ") + 2
        lines = [table.render_line(y).text for y in range(min(table.size.height, len(table.rows)))]
        for row, line in zip(table.rows, lines, strict=False):
            assert len(line) == table.scrollable_content_region.width
            name = ("↳ " if row.subagent else "") + os.path.basename(row.path)
            cell = line[start:].split("  ")[0]
            if "…" in cell:
                head, tail = cell.split("…")
                assert len(cell) >= 12 and name.startswith(head) and name.endswith(tail) and len(tail) >= 4
            else:
                assert cell == name


def test_a_long_file_name_keeps_its_start_and_end() -> None:
    from suture.tui.sessions import _cut_middle

    name = "rollout-2025-11-20T12-00-00-3f2a9c4e-1b7d-4e8a-9c2f-5d6e7f8a9b0c.jsonl"
    for width in (8, 12, 20, 28):
        cut = _cut_middle(name, width)
        head, tail = cut.split("…")
        assert len(cut) == width and name.startswith(head) and name.endswith(tail)
    assert _cut_middle("session.jsonl", 20) == "session.jsonl"
    wide = _cut_middle("日本語の名前のセッション.jsonl", 15)
    assert cell_len(wide) <= 15 and wide.endswith(".jsonl") and wide.startswith("日本")


def many_sessions(folder: Path, n: int = 120) -> list[Path]:
    """``n`` copies of a Claude Code session: enough for every process of a pool to take some."""
    folder.mkdir(parents=True, exist_ok=True)
    source = (SAMPLES / "claude-code" / "parallel-calls.jsonl").read_bytes()
    made = []
    for i in range(n):
        path = folder / f"copy-{i:03d}.jsonl"
        path.write_bytes(source)
        made.append(path)
    return made


async def test_the_browser_scans_on_every_core(home: Path, tmp_path: Path) -> None:
    """The rows come from a process pool of one process per core, none of them the app's own,
    and are the rows one process makes."""
    from suture.scan import scan_path
    from suture.scan_pool import cores

    made = many_sessions(tmp_path / "many")
    app = SessionsApp(SessionsScreen([str(tmp_path / "many")], [], cache=False, watch=False))
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        progress = app.browser.progress
        rows = {r.path: r for r in app.browser.table.rows}
        status = str(app.browser.query_one("#sessions-status").render())
    assert progress.pool_error == ""
    pids = {pid for _, pid in progress.processes}
    assert len(pids) == cores() > 1 or cores() == 1
    assert os.getpid() not in pids or cores() == 1
    assert rows == {str(p): scan_path(p) for p in made}
    assert "the scan stopped" not in status


def test_without_the_pool_server_started_first_the_app_scans_on_one_core(tmp_path: Path) -> None:
    """Why the app starts the pool's helpers before it runs: inside the running app,
    ``sys.stderr`` has no file descriptor and ``multiprocessing`` cannot start its resource
    tracker. Started from there, no pool starts; every row still comes, from the app's process,
    and the status line says why."""
    import subprocess
    import sys

    many_sessions(tmp_path / "many")
    script = f"""
import asyncio, os
import suture.scan_pool
from suture.tui.sessions import SessionsApp, SessionsScreen

suture.scan_pool.start_pool_server = lambda: None  # as before the fix: nothing started first

async def main():
    app = SessionsApp(SessionsScreen([{str(tmp_path / "many")!r}], [], cache=False, watch=False))
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(1200):
            if app.browser.finished:
                break
            await pilot.pause(0.05)
        p = app.browser.progress
        status = str(app.browser.query_one("#sessions-status").render())
        print(len(app.browser.all), p.done, sorted(pid for _, pid in p.processes) == [os.getpid()], p.pool_error)

asyncio.run(main())
"""
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env_for(tmp_path), timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    count, done, here, error = proc.stdout.split(" ", 3)
    assert (count, done, here) == ("120", "120", "True")
    assert error.strip() == "no process pool (ValueError: bad value(s) in fds_to_keep)"


async def test_files_are_listed_before_any_is_read(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each session shows as soon as its folder is listed (agent, when, file), its verdict
    filled in once it is scanned."""
    import threading

    import suture.scan_pool

    release = threading.Event()
    real = suture.scan_pool.scan_all

    def held(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(30)
        yield from real(*args, **kwargs)

    monkeypatch.setattr(suture.scan_pool, "scan_all", held)
    app = browser(home, watch=False, cache=False)
    expected = {str(p) for p in home.rglob("*.jsonl")}
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            if len(app.browser.table.rows) == len(expected) and not app.browser.listing:
                break
            await pilot.pause(0.05)
        table = app.browser.table
        assert {r.path for r in table.rows} == expected
        assert all(r.verdict == LISTED and r.agent in ("claude-code", "codex", "pi") for r in table.rows)
        assert [r.when for r in table.rows] == sorted((r.when for r in table.rows), reverse=True)
        line = table.render_line(0).text
        assert line.startswith(" …           ") and line.rstrip().endswith("scanning…")
        assert "scanning 0" in str(app.browser.query_one("#sessions-status").render())
        release.set()
        await scanned(pilot, app.browser)
        assert {r.path for r in table.rows} == expected
        assert all(r.verdict in (OK, REJECTED) for r in table.rows)


async def test_an_agent_folder_made_after_the_start_is_scanned_and_watched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex is run for the first time while the browser is open: its sessions folder appears,
    and its sessions show, and keep up as they grow."""
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(SessionsScreen, "LOOK_EVERY", 0.1)
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    app = browser(tmp_path, watch=True, debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        assert "once the agents make ~/.codex/sessions, ~/.pi/agent/sessions" in list_text(app.browser.table)
        day = tmp_path / ".codex" / "sessions" / "2026" / "11" / "18"
        day.mkdir(parents=True)
        first = day / "rollout-one.jsonl"
        shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", first)

        await until(pilot, lambda: [r.path for r in app.browser.table.rows] == [str(first)])
        await until(pilot, lambda: app.browser.table.rows[0].verdict == OK)
        assert "~/.codex/sessions" in str(app.browser.query_one("#sessions-status").render())
        await pilot.pause(0.3)  # the watcher on the new folder starts
        second = day / "rollout-two.jsonl"
        shutil.copyfile(SAMPLES / "codex" / "broken-resumed.jsonl", second)
        await until(pilot, lambda: {r.path for r in app.browser.table.rows} == {str(first), str(second)})


async def test_files_that_are_no_transcript_come_after_every_session(tmp_path: Path) -> None:
    """A folder holding sessions and other JSON (a settings file newer than every session): the
    sessions lead the list, the other file comes last, muted, and is not counted as a session."""
    folder = tmp_path / "work"
    folder.mkdir()
    session = folder / "rollout.jsonl"
    shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", session)
    settings = folder / "settings.json"
    settings.write_bytes(b'{"theme": "dark"}')
    os.utime(session, (1_700_000_000, 1_700_000_000))
    app = SessionsApp(SessionsScreen([str(folder)], [], watch=False))
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        assert shown(app) == ["rollout.jsonl", "settings.json"]
        assert [r.verdict for r in app.browser.table.rows] == [OK, OTHER]
        status = str(app.browser.query_one("#sessions-status").render())
        assert status.startswith("Sessions: 1  ·  ")
        assert "1 other file" in status
        last = app.browser.table.render_line(1).text
        assert last.split()[0] == "other" and "not a transcript suture knows" in last
        # Filtered, what is shown is counted as the total is: the sessions, the other files apart.
        await pilot.press("slash", *"json", "enter")
        await pilot.pause()
        assert "showing 1 and 1 other ('json')" in str(app.browser.query_one("#sessions-status").render())
        app.browser.query_one("#sessions-filter", Input).value = ""
        await pilot.pause()
        for _ in range(4):
            await pilot.press("v")
        assert app.browser.verdict == OTHER
        assert shown(app) == ["settings.json"]
        assert "showing 1 other (other only)" in str(app.browser.query_one("#sessions-status").render())


@pytest.mark.parametrize("width", [160, 100])
async def test_the_files_of_a_folder_named_are_shown_by_their_path_in_it(tmp_path: Path, width: int) -> None:
    """A tree of sessions of one name (a recording per folder): each row whose name another row
    shares shows where in the folder named its file is, its end kept where the column is short;
    a file whose name is its own (as an agent names its sessions) keeps its name alone."""
    tree = tmp_path / "recorded"
    cases = ("compaction", "fork-in-chain", "repeated-id")
    for case in cases:
        (tree / "claude-code" / case).mkdir(parents=True)
        shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", tree / "claude-code" / case / "session.jsonl")
    shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", tree / "claude-code" / "3f2a9c4e-rollout.jsonl")
    app = SessionsApp(SessionsScreen([str(tree)], [], watch=False))
    async with app.run_test(size=(width, 30)) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        # (The folder they all are in, claude-code, is left out: it tells none from another.)
        assert sorted(table.name_of(r.path) for r in table.rows) == [
            "3f2a9c4e-rollout.jsonl",
            *(f"{case}/session.jsonl" for case in cases),
        ]
        lines = [table.render_line(y).text for y in range(4)]
        for case in cases:  # the end of each path, which tells them apart, is on one row
            assert sum(f"{case[-4:]}/session.jsonl" in line for line in lines) == 1
        assert len(set(lines)) == 4
        # Filtered down to one of them, its name alone says which it is.
        await pilot.press("slash", *"compaction", "enter")
        await pilot.pause()
        [row] = table.rows
        assert table.name_of(row.path) == "session.jsonl"


def test_a_narrow_list_keeps_the_year_of_each_session() -> None:
    # Narrow, the time goes and the year stays: 2025-11-20 is not taken for a day after 2026-01-08.
    from suture.tui.sessions import Columns

    assert Columns(80).when_shown("2025-11-20T12:00:00Z") == "2025-11-20"
    assert Columns(80).when == len("2025-11-20") + 1
    assert Columns(160).when_shown("2025-11-20T12:00:00Z").startswith("2025-11-20 ")


@pytest.mark.parametrize(("width", "title"), [(100, "written"), (160, "last written")])
async def test_the_date_columns_title_is_whole_at_any_width(home: Path, width: int, title: str) -> None:
    app = browser(home)
    async with app.run_test(size=(width, 30)) as pilot:
        await pilot.pause()
        header = app.screen.query_one(SessionHeader)
        words = header.render_line(0).text.split("  ")
        assert title in [w.strip() for w in words if w.strip()]
        assert "…" not in header.render_line(0).text


@pytest.mark.parametrize("width", [80, 120, 160])
async def test_help_from_the_browser_lays_out_its_key_table_cleanly(home: Path, width: int) -> None:
    # The help over a session opened from the browser: each line as laid out is drawn whole (none
    # wraps again), and a tooltip that takes more lines than one takes them evenly: no word left
    # alone on a line.
    app = browser(home, watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        await open_session(pilot, app, "interrupted-then-api-error.jsonl")
        await pilot.press("question_mark")
        await pilot.pause()
        body = app.screen.query_one("#help-text")
        laid = body.lay_out(body, body.laid).plain.splitlines()  # type: ignore[attr-defined]
        drawn = [body.render_line(y).text.rstrip() for y in range(body.size.height)]
        assert body.laid == body.content_region.width and drawn == [line.rstrip() for line in laid]
        assert all(len(line) <= body.laid for line in drawn)
        under = [line for line in drawn if line.startswith("    ") and line.strip()]
        assert under and all(len(line.split()) > 1 for line in under), under
        if width >= 120:  # room for the browser's own tooltip on one line
            assert any(
                line.endswith("Back to the sessions (clears the search and the row filter first)") for line in drawn
            )


async def test_each_row_shows_its_file_name_in_an_80_column_terminal(home: Path) -> None:
    # Sessions of one agent on one day differ by their file name: an 80-column list keeps it
    # (its middle cut where it is long: its start and its end stay) and leaves why out.
    app = browser(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        header = app.screen.query_one(SessionHeader).render_line(0).text.split()
        assert header[-1] == "file" and "why" not in header
        lines = [table.render_line(y).text.rstrip() for y in range(table.size.height)]
        rows = table.rows[: len([line for line in lines if line.strip()])]
        assert len(rows) >= 8
        for row, line in zip(rows, lines, strict=False):
            name = os.path.basename(row.path)
            cell = line.split("  ")[-1].strip().removeprefix("↳ ")
            assert cell == name or (cell.startswith(name[:8]) and cell.endswith(name[-8:]) and "…" in cell), line
        assert len(set(lines[: len(rows)])) == len(rows)


def test_the_columns_share_the_row_and_never_pass_its_end() -> None:
    # At every width the fixed columns fit in, the columns shown, two spaces apart after a
    # leading space, fill the row at most; wherever 12 cells are left after the fixed columns
    # the file name has a column, before why has any.
    from suture.tui.sessions import Columns

    for width, paths in ((w, p) for w in range(54, 240) for p in (False, True)):
        columns = Columns(width, paths)
        shown = [w for w in columns.widths if w > 0]
        assert 1 + sum(shown) + len(Columns.GAP) * (len(shown) - 1) <= width, width
        least = 1 + sum(columns.fixed) + len(Columns.GAP) * 5 + Columns.FILE_LEAST
        assert (columns.file >= Columns.FILE_LEAST) == (width >= least), width
        assert columns.file == 0 or columns.file >= Columns.FILE_LEAST, width
        assert columns.why == 0 or columns.why >= Columns.WHY_LEAST
        assert columns.why == 0 or columns.file == Columns.FILE_MOST or width >= Columns.NARROW, width
        assert columns.project == 0 or columns.project >= Columns.PROJECT_LEAST


async def open_session(pilot: Any, app: SessionsApp, name: str) -> None:
    """Open the session ``name`` from the browser, and wait (a bounded while) for its checks."""
    await scanned(pilot, app.browser)
    target = next(i for i, r in enumerate(app.browser.table.rows) if os.path.basename(r.path) == name)
    app.browser.table.cursor = target
    await pilot.press("enter")
    await until(pilot, lambda: app.model is not None and app.verdicts is not None)
    await pilot.pause()


async def test_a_key_of_a_session_opened_from_the_browser_says_why_it_cannot_act(home: Path) -> None:
    # As in a file opened directly: s with nothing left out of what is sent, n with no change,
    # each says why rather than doing nothing.
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_session(pilot, app, "parallel-calls.jsonl")
        assert app.screen is app.screen_stack[0]
        for key, why in (
            ("s", "the file holds nothing that is left out of what is sent"),
            ("n", "the repair changes nothing here"),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert [n.message for n in app._notifications][-1:] == [why], key


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_a_narrow_session_opened_from_the_browser_keeps_esc_back_to_it(home: Path, size: tuple[int, int]) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=size) as pilot:
        await open_session(pilot, app, "interrupted-then-api-error.jsonl")
        shown = [(k.key, k.description) for k in app.screen.query_one(KeyBar).fitted(size[0])]
        assert ("esc", "Sessions") in shown and ("q", "Quit") in shown


async def test_a_session_opened_from_the_browser_keeps_explain_and_go_to_at_160_columns(home: Path) -> None:
    # The room "esc Sessions" takes comes out of keys a user can find in the help (copy, follow),
    # not out of explaining the session's error or going to a place in it.
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_session(pilot, app, "interrupted-then-api-error.jsonl")
        await until(pilot, lambda: app.why_not("go_error") is None)  # (the recorded error read)
        shown = [(k.key, k.description) for k in app.screen.query_one(KeyBar).fitted(SIZE[0])]
        for key in (("esc", "Sessions"), ("!", "Go to error"), ("E", "Explain"), (":", "Go to"), ("e", "Export")):
            assert key in shown


def help_lines(app: SessionsApp) -> list[str]:
    body = app.screen.query_one("#help-text")
    return [body.render_line(y).text.strip() for y in range(body.size.height)]


async def test_help_lists_only_the_keys_that_act_where_it_is_opened(home: Path) -> None:
    app = browser(home, watch=False)
    async with app.run_test(size=(160, 100)) as pilot:
        await scanned(pilot, app.browser)
        await pilot.press("question_mark")
        await pilot.pause()
        over_list = help_lines(app)
        assert any(line.startswith("r") and "Rescan" in line for line in over_list)
        assert any(line.startswith("⏎") or line.startswith("enter") for line in over_list), over_list
        for view_key in ("Next change", "Reload", "Not sent", "Explain", "Go to error", "Export", "Anywhere"):
            assert not any(view_key in line for line in over_list), view_key
        await pilot.press("escape")
        await open_session(pilot, app, "interrupted-then-api-error.jsonl")
        await pilot.press("question_mark")
        await pilot.pause()
        over_view = help_lines(app)
        for view_key in ("Next change", "Reload", "Not sent", "Explain", "Go to error", "Export"):
            assert any(view_key in line for line in over_view), view_key
        assert any(line.startswith("esc") and "Sessions" in line for line in over_view)
        assert not any("Rescan" in line or "Verdict" in line for line in over_view)


def test_a_session_only_a_stricter_server_rejects_says_so_in_its_row() -> None:
    from suture.scan import scan_path
    from suture.tui.sessions import _note

    row = scan_path(SAMPLES / "recorded" / "codex-0.171.0" / "repeated-id" / "session.jsonl")
    assert row.verdict == OK
    assert _note(row).startswith("stricter servers of the same API, openai-responses-strict, reject it: R9 line ")


async def test_the_status_timer_firing_while_the_screen_closes_does_nothing(home: Path) -> None:
    # The screen's widgets go before its timer stops: a tick then finds no status line, and must
    # neither fail nor draw (a quit could end in a traceback).
    app = browser(home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await screen.query_one("#sessions-status").remove()
        screen._show_status()


async def test_a_subagents_long_file_name_keeps_its_start_and_end(tmp_path: Path) -> None:
    """A Claude Code subagent's file (``<session>/subagents/agent-<id>.jsonl``) is marked ↳ and,
    cut to the column, keeps both ends of its own name, as any file named alone does."""
    folder = tmp_path / "s" / "3f2a9c4e-1b7d-4e8a-9c2f-5d6e7f8a9b0c" / "subagents"
    folder.mkdir(parents=True)
    name = "agent-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8.jsonl"
    shutil.copyfile(SAMPLES / "claude-code" / "parallel-calls.jsonl", folder / name)
    app = SessionsApp(SessionsScreen([str(tmp_path / "s")], [], watch=False))
    async with app.run_test(size=(100, 20)) as pilot:
        await scanned(pilot, app.browser)
        [row] = app.browser.table.rows
        assert row.subagent
        line = app.browser.table.render_line(0).text
        cell = next(part for part in line.split("  ") if part.startswith("↳ "))
        head, tail = cell.removeprefix("↳ ").split("…")
        assert name.startswith(head) and len(head) >= 4 and name.endswith(tail) and len(tail) >= 4


async def test_a_folder_given_by_a_relative_path_keeps_one_row_per_file_as_files_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``suture sessions --only ss``: the watcher names what changed by its absolute path, the
    scan by the path under the folder as given. A session that grows, one that appears and one
    that goes each change their own row: none is listed twice, none stays after it went."""
    monkeypatch.setenv("SUTURE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "ss"
    folder.mkdir()
    grows = folder / "v1-clean.jsonl"
    goes = folder / "clean-rollout.jsonl"
    shutil.copyfile(SAMPLES / "pi" / "v1-clean.jsonl", grows)
    shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", goes)
    app = SessionsApp(SessionsScreen(["ss"], [], watch=True, debounce_ms=50))
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        assert sorted(r.path for r in app.browser.table.rows) == ["ss/clean-rollout.jsonl", "ss/v1-clean.jsonl"]
        await pilot.pause(0.3)  # the watcher starts once the scan is done
        with open(grows, "ab") as f:  # a result for no call: pi's history is rejected now
            f.write(
                b'{"type":"message","timestamp":"2025-11-20T10:05:00.000Z","message":{"role":"toolResult",'
                b'"toolCallId":"toolu_ORPHAN99","toolName":"read","content":[{"type":"text","text":"x"}],'
                b'"isError":false,"timestamp":1767880901000}}\n'
            )
        await until(pilot, lambda: any(r.verdict == REJECTED for r in app.browser.table.rows))
        assert sorted(r.path for r in app.browser.table.rows) == ["ss/clean-rollout.jsonl", "ss/v1-clean.jsonl"]
        shutil.copyfile(SAMPLES / "codex" / "broken-resumed.jsonl", folder / "new.jsonl")
        await until(pilot, lambda: len(app.browser.table.rows) == 3)
        assert "ss/new.jsonl" in {r.path for r in app.browser.table.rows}
        goes.unlink()
        await until(pilot, lambda: len(app.browser.table.rows) == 2)
        assert sorted(r.path for r in app.browser.table.rows) == ["ss/new.jsonl", "ss/v1-clean.jsonl"]


@pytest.mark.parametrize("width", [160, 100])
async def test_files_of_one_name_told_apart_by_a_folder_in_the_middle_show_that_folder(
    tmp_path: Path, width: int
) -> None:
    """One case recorded by several versions of an agent (``<agent-version>/orphan-result/
    session.jsonl``): the folders every row shares, before and after, are left out, so the
    version, which tells the rows apart, shows even in a 100-column terminal."""
    tree = tmp_path / "recorded"
    versions = ("codex-0.169.0", "codex-0.171.0", "claude-code-2.1.328", "claude-code-2.1.332")
    for version in versions:
        (tree / version / "orphan-result").mkdir(parents=True)
        shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", tree / version / "orphan-result" / "session.jsonl")
    app = SessionsApp(SessionsScreen([str(tree)], [], watch=False))
    async with app.run_test(size=(width, 30)) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        assert sorted(table.name_of(r.path) for r in table.rows) == sorted(
            f"{version}/…/session.jsonl" for version in versions
        )
        lines = [table.render_line(y).text for y in range(4)]
        for version in versions:  # each row shows enough of its version to tell it apart
            assert sum(version[-4:] in line for line in lines) == 1


async def test_the_same_path_in_two_folders_named_is_told_apart_by_the_folder(tmp_path: Path) -> None:
    """``suture sessions --only a b``, each holding x/session.jsonl: the folder named tells the
    two rows apart, where every folder inside them is alike."""
    for folder in ("a", "b"):
        (tmp_path / folder / "x").mkdir(parents=True)
        shutil.copyfile(SAMPLES / "codex" / "clean-rollout.jsonl", tmp_path / folder / "x" / "session.jsonl")
    app = SessionsApp(SessionsScreen([str(tmp_path / "a"), str(tmp_path / "b")], [], watch=False))
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot, app.browser)
        table = app.browser.table
        assert sorted(table.name_of(r.path) for r in table.rows) == ["a/x/session.jsonl", "b/x/session.jsonl"]


async def test_keys_bound_otherwise_act_in_the_browser_and_its_help_says_them(home: Path) -> None:
    env = {"HOME": str(home)}
    app = SessionsApp(SessionsScreen([], agent_places(env), watch=False), keymap={"sessions.rescan": "ctrl+r"})
    async with app.run_test(size=(160, 100)) as pilot:
        await scanned(pilot, app.browser)
        assert "^r Rescan" in app.screen.query_one(KeyBar).render().plain
        await pilot.press("question_mark")
        await pilot.pause()
        lines = help_lines(app)
        assert any(line.startswith("ctrl+r") and "Rescan" in line for line in lines), lines
        assert not any(line.startswith("r ") for line in lines)
