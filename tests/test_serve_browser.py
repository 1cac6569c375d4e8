"""``suture serve`` in a real browser: Playwright drives the system's Chromium against a server on
127.0.0.1, as a person would: the panes, keys, the mouse, copy, export, live reload, and
transcript content that stays text.

The page draws the app with xterm.js on a canvas, so the tests read the screen from the page's
own terminal (its buffer is what the canvas shows). Skipped, with the reason, where Playwright
or Chromium is missing; ``SUTURE_BROWSER_TESTS=required`` (set by CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from suture import show
from tests.serving import serving

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"
WAIT_MS = 60_000
"""The longest any step waits for the page (the machine may be busy; nothing here is timed)."""

# Chromium as it must run here: headless, as root, with no network of its own.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# textual-serve's page keeps its xterm.js Terminal in a property named ``terminal``; catch it as
# it is set, so the tests can read the screen the page shows.
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && typeof value.onData === "function") { window.__sutureTerminal = value; }
  },
});
"""
SCREEN = """() => {
  const t = window.__sutureTerminal;
  if (!t) return "";
  const buffer = t.buffer.active, rows = [];
  for (let y = 0; y < t.rows; y++) { const line = buffer.getLine(y); rows.push(line ? line.translateToString(true) : ""); }
  return rows.join("\\n");
}"""
SHOWS_ALL = f"(wanted) => {{ const screen = ({SCREEN})(); return wanted.every((w) => screen.includes(w)); }}"
INFO_ROW = re.compile(r"^ ?row \d+/\d+.*$", re.MULTILINE)


def _chromium() -> str | None:
    for name in (os.environ.get("SUTURE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) if name else None
        if found:
            return found
    return None


def _missing(reason: str) -> None:
    if os.environ.get("SUTURE_BROWSER_TESTS") == "required":
        pytest.fail(f"browser tests are required here, but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (pip install -e '.[web-test]')")
    executable = _chromium()
    if executable is None:
        _missing("no Chromium found (apt-get install chromium, or set SUTURE_CHROMIUM to its path)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, timeout=WAIT_MS)
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser: Any, url: str, *, clipboard: bool = False, query: str = "") -> Any:
    """A new page (its own context) on ``url``, with the keyboard on the terminal once it draws."""
    context = browser.new_context(viewport={"width": 1600, "height": 900})
    if clipboard:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.add_init_script(CATCH_TERMINAL)
    page.goto(url + query)
    page.wait_for_function("() => window.__sutureTerminal !== undefined")
    return page


def screen(page: Any) -> str:
    return str(page.evaluate(SCREEN))


def wait_for(page: Any, *wanted: str) -> str:
    """Wait until the page's screen shows every one of ``wanted``; the screen."""
    try:
        page.wait_for_function(SHOWS_ALL, arg=list(wanted))
    except Exception as e:
        raise AssertionError(f"the page never showed {wanted!r}; it shows:\n{screen(page)}") from e
    return screen(page)


def wait_until(page: Any, check: Any, what: str) -> str:
    """Poll the screen (in the page's own time) until ``check(screen)`` holds."""
    for _ in range(WAIT_MS // 100):
        shown = screen(page)
        if check(shown):
            return shown
        page.wait_for_timeout(100)
    raise AssertionError(f"the page never showed {what}; it shows:\n{screen(page)}")


def info_row(shown: str) -> str:
    found = INFO_ROW.search(shown)
    assert found, shown
    return found.group(0).strip()


def press(page: Any, key: str) -> None:
    page.focus("textarea.xterm-helper-textarea")
    page.keyboard.press(key)


def click_cell(page: Any, column: int, row: int) -> None:
    """Click the middle of a terminal cell."""
    box = page.locator(".xterm-screen").bounding_box()
    cols, rows = page.evaluate("() => [window.__sutureTerminal.cols, window.__sutureTerminal.rows]")
    width, height = box["width"] / cols, box["height"] / rows
    page.mouse.click(box["x"] + (column + 0.5) * width, box["y"] + (row + 0.5) * height)


def test_the_demo_in_a_browser(browser: Any, tmp_path: Path) -> None:
    with serving("--demo", cwd=tmp_path) as served:
        page = open_page(browser, served.url)
        assert page.title() == "demo · suture"
        shown = wait_for(page, "Original (13)", "Repaired (13)", "The CI build is red", "row ")
        before = info_row(shown).split()[1]
        press(page, "n")
        # "row 4/14" -> "row 5/14": another row (the rest of the line can change meanwhile: the
        # line of a record is named once found).
        moved = wait_until(page, lambda s: info_row(s).split()[1] != before, "the info bar move to the next change")
        assert info_row(moved).split()[1] != before
        if os.environ.get("SUTURE_SERVE_SCREENSHOT"):
            wait_for(page, "7 problems → 0 after repair")  # the provider checks are in
            page.screenshot(path=os.environ["SUTURE_SERVE_SCREENSHOT"])
        page.context.close()


def test_no_other_site_can_show_the_page_in_a_frame(browser: Any, tmp_path: Path) -> None:
    """A page of another site that frames the served page gets Chromium's error page in the
    frame, not the app (a framed app could be led into keys by clicks on the outer page)."""
    with serving("--demo", cwd=tmp_path) as served:
        page = browser.new_context().new_page()
        page.set_default_timeout(WAIT_MS)
        blocked: list[str] = []
        page.on("console", lambda message: blocked.append(message.text))
        page.set_content(f'<iframe src="{served.url}"></iframe>')  # (waits for the frame to load)
        framed = page.frames[1]
        assert framed.url.startswith("chrome-error://"), framed.url
        assert any("frame-ancestors 'none'" in line for line in blocked), blocked
        page.context.close()


HOSTILE = [
    {"role": "user", "content": "<script>alert('script')</script>"},
    {"role": "user", "content": "<img src=x onerror=alert('img')>"},
    {"role": "assistant", "content": "[bold red]not bold[/] [link=https://x.example]no link[/link]"},
    {"role": "user", "content": "esc \x1b]52;c;cHduZWQ=\x07 \x1b[2J \x1b]0;title\x07 end"},
]
HOSTILE_NAME = "<img src=x onerror=alert('name')>.json"


def test_transcript_content_is_text_in_the_page(browser: Any, tmp_path: Path) -> None:
    source = tmp_path / HOSTILE_NAME
    source.write_text(json.dumps(HOSTILE))
    with serving(source, cwd=tmp_path) as served:
        page = open_page(browser, served.url, clipboard=True, query="?fontsize=12")
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.evaluate("() => navigator.clipboard.writeText('clipboard before')")
        shown = wait_for(
            page,
            "<script>alert('script')</script>",
            "<img src=x onerror=alert('img')>",
            "[bold red]not bold[/] [link=https://x.example]",
            show.prose(HOSTILE[3]["content"]),  # the escapes, written out as the terminal app shows them
            "Original (4)",
        )
        assert "Repaired (4)" in shown and "no changes needed" in shown  # nothing cleared the screen
        assert page.title() == f"{HOSTILE_NAME} · suture"
        assert dialogs == []
        assert page.evaluate("() => document.querySelectorAll('img').length") == 0
        assert page.evaluate("() => navigator.clipboard.readText()") == "clipboard before"
        page.context.close()


def test_mouse_copy_export_and_live_reload_in_a_browser(browser: Any, tmp_path: Path) -> None:
    records = json.loads(WORKED.read_text())
    source = tmp_path / "session.json"
    source.write_text(json.dumps(records))
    with serving(source, cwd=tmp_path) as served:
        page = open_page(browser, served.url, clipboard=True)
        shown = wait_for(page, f"Original ({len(records)})", "also check the lint")

        # The mouse: a click on a row of the Original pane selects that message.
        lines = shown.splitlines()
        y = next(i for i, line in enumerate(lines) if "also check the lint" in line)
        number = re.match(r"\D*(\d+) ", lines[y])
        assert number, lines[y]
        index = int(number.group(1))
        assert f"Original #{index} " not in info_row(shown) + " "  # the click is what selects it
        click_cell(page, lines[y].index("also check the lint"), y)
        selected = wait_until(page, lambda s: f"Original #{index} " in info_row(s) + " ", f"Original #{index} selected")

        # Copy: the record goes to the browser's clipboard, as the file holds it.
        page.evaluate("() => navigator.clipboard.writeText('')")
        press(page, "y")
        wait_for(page, "copied the Original record")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert json.loads(copied) == records[index], selected

        # Export: written on the serving machine, the path shown in the page.
        press(page, "e")
        wait_for(page, "Export the repaired transcript")
        press(page, "Enter")
        target = tmp_path / "session.repaired.json"
        wait_for(page, "wrote", "session.repaired.json")
        repaired = subprocess.run(
            [sys.executable, "-m", "suture", "repair", str(source)], capture_output=True, check=True, timeout=120
        ).stdout
        assert target.read_bytes() == repaired

        # Live reload: the file grows on disk and the page follows.
        records.append({"role": "user", "content": "one more message, written later"})
        staged = tmp_path / "session.json.new"
        staged.write_text(json.dumps(records))
        staged.replace(source)
        wait_for(page, f"Original ({len(records)})")
        page.context.close()


def test_a_folder_in_a_browser_is_the_sessions_browser(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the served app's scan cache
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copyfile(WORKED, folder / "worked.json")
    shutil.copyfile(ROOT / "sample_sessions" / "claude-code" / "parallel-calls.jsonl", folder / "parallel.jsonl")
    elsewhere = tmp_path / "elsewhere.json"  # beside the folder, not in it: not shown
    shutil.copyfile(WORKED, elsewhere)
    with serving(folder, cwd=tmp_path) as served:
        page = open_page(browser, served.url)
        assert page.title() == "sessions/ · suture"
        shown = wait_for(page, "Sessions: 2", "worked.json", "parallel.jsonl")
        assert "elsewhere.json" not in shown
        # Enter opens the selected session side by side; Esc comes back to the list.
        press(page, "Enter")
        wait_for(page, "Original (", "Repaired (")
        press(page, "Escape")
        wait_for(page, "Sessions: 2")
        page.context.close()
