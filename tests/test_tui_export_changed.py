"""The export of a session log whose file changed under the view: where the file no longer holds
what was read, the dialog says the session cannot be written back (in plain words) and offers,
chosen, what can be written of the version read; a last line still being written is left out of
what is written, and the dialog and the note once written say so."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from textual.widgets import Label, RadioButton

from suture.tui.screens import ConfirmScreen, ExportScreen
from tests.helpers.app import SIZE, app_on_copy, ready, suture_repair

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "sample_sessions" / "recorded" / "claude-code-2.1.328" / "text-before-result" / "session.jsonl"
FRAGMENT = b'{"parentUuid":"x","type":"user","mess'


def _dialog_words(screen: ExportScreen) -> str:
    """Every word the export dialog shows: its choices, what the chosen one writes, its notes."""
    choices = [button.label.plain for button in screen.query(RadioButton)]
    return "\n".join([*choices, *(str(label.render()) for label in screen.query(Label))])


@pytest.mark.parametrize("now", [b"not json at all\n", b"", None], ids=["not-json", "emptied", "deleted"])
async def test_a_session_its_file_no_longer_holds_is_said_and_the_body_chosen(
    tmp_path: Path, now: bytes | None
) -> None:
    app = app_on_copy(SESSION, tmp_path)
    path = tmp_path / "session.jsonl"
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        if now is None:
            path.unlink()
        else:
            path.write_bytes(now)
        await pilot.press("e")
        await ready(pilot, app)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        session, body = screen.options
        assert session.label == "Claude Code session"
        assert session.error == "the file no longer holds what was read"
        assert body.error is None and body.data is not None
        assert screen.chosen == 1  # what can be written is chosen, not the session
        words = _dialog_words(screen)
        assert "(cannot: the file no longer holds what was read)" in words
        assert "What to write (one can be written now):" in words and "ctrl+t" not in words
        assert "object" not in words and "NoneType" not in words  # no Python exception's words
        await pilot.press("enter")  # the file cannot be read now: asked before the old version is written
        await ready(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await ready(pilot, app)
        written = tmp_path / "session.repaired.json"
        assert orjson.loads(written.read_bytes()) == orjson.loads(body.data)
        assert [n.title for n in app._notifications] == ["exported"]


async def test_a_line_still_being_written_is_left_out_of_the_export_and_said(tmp_path: Path) -> None:
    app = app_on_copy(SESSION, tmp_path)
    path = tmp_path / "session.jsonl"
    whole = suture_repair(path)  # what suture repair writes of the complete lines
    lines = SESSION.read_bytes().count(b"\n")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        with path.open("ab") as f:
            f.write(FRAGMENT)
        await pilot.press("e")
        await ready(pilot, app)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        assert screen.chosen == 0 and screen.options[0].label.startswith("Claude Code session")
        assert f"Line {lines + 1} of the file is still being written: it is left out" in _dialog_words(screen)
        await pilot.press("enter")
        await ready(pilot, app)
        (note,) = [n.message for n in app._notifications if n.title == "exported"]
    assert f"line {lines + 1} left out: still being written" in note
    written = (tmp_path / "session.repaired.jsonl").read_bytes()
    assert FRAGMENT not in written
    assert written == whole
    assert path.read_bytes().endswith(FRAGMENT)  # the file itself is as the agent left it
