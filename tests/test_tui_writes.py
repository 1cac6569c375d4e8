"""The app's export through links and to special files, and its ways out (q, Ctrl+C)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson

from suture.tui.app import SutureApp, default_export_path
from suture.tui.screens import ConfirmScreen, ExportScreen
from tests.helpers.app import SIZE, WORKED, export, ready, suture_repair


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    real = tmp_path / "sessions" / "worked-example.json"
    real.parent.mkdir()
    shutil.copy(WORKED, real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    return real, link


async def test_export_to_a_link_writes_its_target(tmp_path: Path) -> None:
    real, _ = _setup(tmp_path)
    target = tmp_path / "out-real.json"
    target.write_bytes(b"old")
    out_link = tmp_path / "out-link.json"
    out_link.symlink_to(target)
    app = SutureApp(real, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(out_link))
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await ready(pilot, app)
    assert out_link.is_symlink() and os.readlink(out_link) == str(target)
    assert target.read_bytes() == suture_repair(real)


async def test_overwriting_the_input_opened_through_a_link_writes_the_file(tmp_path: Path) -> None:
    real, link = _setup(tmp_path)
    original = real.read_bytes()
    expected = suture_repair(real)
    app = SutureApp(link, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(link))
        assert isinstance(app.screen, ConfirmScreen)
        assert "is the file you opened" in str(app.screen.query_one("Label").render())
        await pilot.press("y")
        await ready(pilot, app)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == expected
    assert link.with_name(link.name + ".bak").read_bytes() == original


async def test_export_to_a_fifo_no_one_reads_says_so(tmp_path: Path, monkeypatch: object) -> None:
    import suture.io

    real, _ = _setup(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(suture.io, "OUTPUT_WAIT", 0.2)  # type: ignore[attr-defined]
    app = SutureApp(real, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await export(pilot, app, str(fifo))
        if isinstance(app.screen, ConfirmScreen):
            await pilot.press("y")
        for _ in range(50):
            await ready(pilot, app)
            if isinstance(app.screen, ExportScreen):
                break
        # Said in the dialog, asked again with the path typed, as any write that fails.
        assert isinstance(app.screen, ExportScreen)
        assert "no one reads" in str(app.screen.query_one("#export-why").render())
        assert app.is_running
        await pilot.press("escape", "q")
    assert not app.is_running


async def test_the_default_export_name_holding_controls_is_written_as_it_is(tmp_path: Path) -> None:
    """The dialog shows the name escaped; taken unchanged, it stands for the real name."""
    path = tmp_path / "n\x1b[2J.json"
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        from textual.widgets import Input

        assert app.screen.query_one("#export-path", Input).value.endswith("n\\x1b[2J.repaired.json")
        await pilot.press("enter")
        await ready(pilot, app)
    assert default_export_path(path).read_bytes() == suture_repair(path)


async def test_ctrl_c_quits(tmp_path: Path) -> None:
    real, _ = _setup(tmp_path)
    app = SutureApp(real, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.return_code is None
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0  # (asked to exit by the key, not by the test's end)
    assert not app.is_running


def test_the_app_is_not_opened_on_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "suture", str(fifo)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("suture: error: ") and "FIFO" in proc.stderr and proc.stderr.count("\n") == 1


def test_a_file_named_like_an_option_opens_after_two_dashes(tmp_path: Path) -> None:
    """``suture -- -x.json`` opens the app on -x.json (on a pseudo-terminal, then q)."""
    from tests.ptyrun import PtyRun

    path = tmp_path / "-x.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": "hello from a dash file"}]))
    run = PtyRun(["--", "-x.json"], tmp_path)
    try:
        assert run.read_until(b"hello from a dash file", 60), bytes(run.output[-2000:])
        run.send(b"q")
        assert run.finish(60) == 0
    finally:
        run.kill()
    missing = subprocess.run(
        [sys.executable, "-m", "suture", "--", "-y.json"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert missing.returncode == 2 and "-y.json: no such file" in missing.stderr
