"""The app shows, and exports, what the file holds now: edits further back than the end, rewrites,
re-pointed links, ``r``, and an export made while the file changed. Waits are bounds, not timing
assertions."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from suture.tui.app import SutureApp, default_export_path
from suture.tui.screens import ConfirmScreen, ExportScreen
from tests.helpers.app import SIZE, USER, export, line, ready, screen_text

SECRET = {"role": "user", "content": "deploy with key sk-live-0123456789"}
REDACTED = {"role": "user", "content": "deploy with key [redacted-0123456]"}
FILLER = b"".join(line({"role": "assistant", "content": f"step {i}: " + "x" * 1500}) for i in range(6))


@pytest.fixture
def session(tmp_path: Path) -> Path:
    """A session whose secret is more than 4 KB before the end."""
    assert len(line(SECRET)) == len(line(REDACTED))
    path = tmp_path / "session.jsonl"
    path.write_bytes(line(SECRET) + FILLER)
    return path


def redact(path: Path) -> None:
    """What a careful person does: overwrite the secret in place, same length, same file."""
    with open(path, "r+b") as f:
        f.write(line(REDACTED))


def first_text(app: SutureApp) -> object:
    assert app.model is not None
    return app.model.transcript.messages[0].content


async def until(pilot: object, check: Callable[[], bool], what: str) -> None:
    for _ in range(400):  # a bound, not a timing assertion
        await pilot.pause(0.025)  # type: ignore[attr-defined]
        if check():
            return
    raise AssertionError(f"never happened: {what}")


async def test_a_same_length_redaction_in_place_shows_while_watched(session: Path) -> None:
    app = SutureApp(session, watch=True, debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.pause(0.2)  # let the watcher start
        assert "sk-live" in screen_text(app)
        redact(session)
        await until(pilot, lambda: first_text(app) == REDACTED["content"], "the redaction shown")
        await ready(pilot, app)
        assert "sk-live" not in screen_text(app)
        assert "[redacted-0123456]" in screen_text(app)
        # A rewrite by open(f, "w") that ends as the file did, and is longer.
        with open(session, "w") as f:
            f.write((line(USER) + FILLER + line(USER)).decode())
        await until(pilot, lambda: first_text(app) == "hi", "the rewrite shown")
        assert app.model is not None and len(app.model.transcript.messages) == 8


async def test_r_reads_the_whole_file(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = SutureApp(session, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        asked: list[dict[str, bool]] = []
        poll = app.live.poll

        def spy(**kwargs: bool) -> object:
            asked.append(kwargs)
            return poll(**kwargs)

        monkeypatch.setattr(app.live, "poll", spy)
        redact(session)
        await pilot.press("r")
        await ready(pilot, app)
        assert asked and asked[-1].get("whole")
        assert first_text(app) == REDACTED["content"]
        assert "sk-live" not in screen_text(app)


async def test_export_after_an_edit_further_back_never_writes_the_old_text(session: Path) -> None:
    app = SutureApp(session, watch=False)  # nothing tells the app the file changed
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        redact(session)
        await pilot.press("e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        assert "changed on disk" in app.screen.note
        assert first_text(app) == REDACTED["content"]  # the view shows it too
        await pilot.press("enter")
        await ready(pilot, app)
        written = default_export_path(session).read_bytes()
        assert b"sk-live" not in written
        assert b"[redacted-0123456]" in written


async def test_a_change_while_the_export_dialog_is_open_is_asked_about(session: Path) -> None:
    app = SutureApp(session, watch=False)
    target = default_export_path(session)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        assert "changed on disk" not in app.screen.note
        redact(session)  # while the dialog is open
        await pilot.press("enter")
        await ready(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        assert "changed on disk" in app.screen.question
        await pilot.press("n")
        await ready(pilot, app)
        assert not target.exists()  # the old text was not written
        await export(pilot, app)
        assert b"sk-live" not in target.read_bytes()
        # Asked again, and said yes: the current version is written.
        target.unlink()
        await pilot.press("e")
        await ready(pilot, app)
        with open(session, "r+b") as f:
            f.write(line(SECRET))  # put back while the dialog is open
        await pilot.press("enter")
        await ready(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await ready(pilot, app)
        assert b"sk-live" in target.read_bytes()


async def test_an_unreadable_file_at_export_is_said(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps([SECRET]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        path.write_bytes(b'[{"role": "user", "content": "half')
        await pilot.press("e")
        await ready(pilot, app)
        assert isinstance(app.screen, ExportScreen)
        assert "cannot be read now" in app.screen.note and "older than the file" in app.screen.note


async def test_a_watched_link_pointed_elsewhere_is_followed(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "one.jsonl", tmp_path / "b" / "two.jsonl"
    for p in (first, second):
        p.parent.mkdir()
    first.write_bytes(line(USER))
    second.write_bytes(line(SECRET) + line(USER))
    link = tmp_path / "current.jsonl"
    link.symlink_to(first)
    app = SutureApp(link, watch=True, debounce_ms=50)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.pause(0.2)
        assert first_text(app) == "hi"
        new = tmp_path / "next-link"
        new.symlink_to(second)
        os.replace(new, link)  # ln -sfn, atomically
        await until(pilot, lambda: first_text(app) == SECRET["content"], "the new target shown")
        # Its own folder is watched now: an append to it shows.
        await pilot.pause(0.2)
        with open(second, "ab") as f:
            f.write(line(USER))
        await until(
            pilot, lambda: app.model is not None and len(app.model.transcript.messages) == 3, "the append shown"
        )


async def test_a_read_that_lands_while_the_app_closes_is_ignored(session: Path) -> None:
    """The check once the file is quiet may finish as the app ends."""
    from suture.tui.app import Loaded
    from suture.tui.rows import RowModel

    app = SutureApp(session, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
    update = app.live.poll(whole=True)
    assert update.transcript is not None and update.repair is not None
    app.on_loaded(Loaded(update, RowModel(update.transcript, update.repair), False))
