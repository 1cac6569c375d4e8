"""SVG snapshots of the app: the main screen on the worked example, the detail view, the help.

Update them with ``pytest tests/test_tui_snapshots.py --snapshot-update`` after a deliberate
change of look, and read the diff before committing.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from suture.checks import PROVIDERS
from suture.tui.app import SutureApp
from tests.helpers.checks import checks_done

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"
SIZE = (160, 45)


@pytest.fixture
def app(tmp_path: Path) -> SutureApp:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    # A fixed title: the temporary path differs on every run.
    return SutureApp(path, watch=False, title="worked-example.json")


async def loaded(pilot: Any) -> None:
    """Wait for the load and for every provider's checks: the checks start after the first
    screen is drawn, so one wait for the workers can come before they have begun."""
    app = pilot.app
    for _ in range(200):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.model is not None and app.verdicts is not None and len(app.verdicts) == len(PROVIDERS):
            break
    await app.workers.wait_for_complete()
    if app.model is not None:  # (every figure after repair in too: worked out after the verdicts)
        await checks_done(pilot, app)
    # The footer recomposes after the focus settles (after a refresh), then draws its new keys.
    for _ in range(3):
        await pilot.pause()


def test_main_screen(app: SutureApp, snap_compare: Any) -> None:
    assert snap_compare(app, terminal_size=SIZE, run_before=loaded)


def test_main_screen_light_theme(app: SutureApp, snap_compare: Any) -> None:
    async def light(pilot: Any) -> None:
        pilot.app.theme = "textual-light"
        await loaded(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=light)


def test_detail_view(app: SutureApp, snap_compare: Any) -> None:
    async def open_renamed(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("n", "n", "n", "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=open_renamed)


def test_help_view(app: SutureApp, snap_compare: Any) -> None:
    async def help_open(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=help_open)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_main_screen_at_size(app: SutureApp, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app, terminal_size=size, run_before=loaded)


def test_lists_below_the_panes_at_80x24(app: SutureApp, snap_compare: Any) -> None:
    async def lists(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("c")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=lists)


def test_filter_changed_rows_at_80x24(app: SutureApp, snap_compare: Any) -> None:
    async def filtered(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("v")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=filtered)


def test_empty_file_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b"[]")
    app = SutureApp(path, watch=False, title="empty.json")
    assert snap_compare(app, terminal_size=(80, 24), run_before=loaded)


def test_broken_file_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b'[{"role": "user", "content": "hi"}')
    app = SutureApp(path, watch=False, title="broken.json")
    assert snap_compare(app, terminal_size=(80, 24), run_before=loaded)


def test_detail_view_at_80x24(app: SutureApp, snap_compare: Any) -> None:
    async def open_renamed(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("n", "n", "n", "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_renamed)


def test_detail_as_written_at_200x60(app: SutureApp, snap_compare: Any) -> None:
    async def as_written(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("n", "n", "n", "enter", "w")
        await loaded(pilot)

    assert snap_compare(app, terminal_size=(200, 60), run_before=as_written)


def test_synthetic_result_details_at_80x24(app: SutureApp, snap_compare: Any) -> None:
    async def synthetic(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("n", "n", "n", "n", "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=synthetic)


CLAUDE_CODE = ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"
COMPACTED = ROOT / "sample_sessions" / "real" / "claude-code" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


async def recorded(pilot: Any) -> None:
    """As ``loaded``, and the recorded API error read too."""
    await loaded(pilot)
    for _ in range(100):
        if pilot.app.recorded is None or pilot.app.recorded.explanation is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_recorded_api_error_banner(tmp_path: Path, snap_compare: Any, size: tuple[int, int]) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(CLAUDE_CODE, path)
    app = SutureApp(path, watch=False, title="session.jsonl")
    assert snap_compare(app, terminal_size=size, run_before=recorded)


def test_explain_screen_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(CLAUDE_CODE, path)
    app = SutureApp(path, watch=False, title="session.jsonl")

    async def explain(pilot: Any) -> None:
        await recorded(pilot)
        await pilot.press("E")
        await pilot.pause(0.1)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=explain)


def test_compaction_named_at_200x60(tmp_path: Path, snap_compare: Any) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(COMPACTED, path)
    app = SutureApp(path, watch=False, title="session.jsonl")
    assert snap_compare(app, terminal_size=(200, 60), run_before=recorded)


TEXT_BEFORE = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328" / "text-before-result"
PI = ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl"


def _session(tmp_path: Path, source: Path, name: str = "session.jsonl") -> SutureApp:
    path = tmp_path / name
    shutil.copy(source, path)
    return SutureApp(path, watch=False, title=name)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_session_judged_on_what_is_sent(tmp_path: Path, snap_compare: Any, size: tuple[int, int]) -> None:
    # The header and the problems list judge what Claude Code sends on resume; its own fix is a
    # note and the contract view is labelled (below the panes at 80 columns, shown with c).
    app = _session(tmp_path, TEXT_BEFORE / "session.jsonl")

    async def lists(pilot: Any) -> None:
        await recorded(pilot)
        if pilot.app.size.width < pilot.app.NARROW_BELOW:
            await pilot.press("c")
        await pilot.press("g", "x")  # the message Claude Code would be rejected for
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=lists)


def test_request_behind_the_recorded_400_at_200x60(tmp_path: Path, snap_compare: Any) -> None:
    app = _session(tmp_path, TEXT_BEFORE / "resumed.jsonl")
    assert snap_compare(app, terminal_size=(200, 60), run_before=recorded)


def test_not_sent_records_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    app = _session(tmp_path, PI)

    async def not_sent(pilot: Any) -> None:
        await recorded(pilot)
        await pilot.press("s")
        await pilot.press("j")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=not_sent)


def test_provider_picker_keys_at_80x24(app: SutureApp, snap_compare: Any) -> None:
    assert snap_compare(app, terminal_size=(80, 24), press=["p"], run_before=loaded)


def test_export_of_a_session_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    # What to write (the session Claude Code resumes, or its request body), what each writes.
    app = _session(tmp_path, TEXT_BEFORE / "session.jsonl")
    app.export_dir = Path("exports")  # a path the same on every run (nothing is written)

    async def export(pilot: Any) -> None:
        await recorded(pilot)
        await pilot.press("e")
        for _ in range(100):  # the bytes are made in a worker first
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            if type(pilot.app.screen).__name__ == "ExportScreen":
                break
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=export)
