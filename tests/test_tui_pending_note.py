"""The status line's note that the file's last line is still being written is about the file as
it reads now: once the file cannot be read, it goes; what is said of the version still shown
(the lines it skipped) stays."""

from __future__ import annotations

from pathlib import Path

import orjson

from suture.tui.app import SutureApp
from tests.helpers.app import SIZE, line, ready, settle

MESSAGES = [
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": "a.txt b.txt"},
]


async def test_a_line_still_being_written_is_not_said_of_a_file_gone(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    partial = orjson.dumps({"role": "user", "content": "and now?"})[:12]
    path.write_bytes(line(MESSAGES[0]) + b"{not json\n" + line(MESSAGES[1]) + partial)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        notes = app.status.state.notes
        assert any("line 4 is still being written" in n for n in notes), notes
        assert any(n.startswith("skipped line 2") for n in notes), notes
        path.unlink()
        await pilot.press("r")
        await settle(app)
        await pilot.pause()
        state = app.status.state
        assert "no such file" in state.error
        assert not any("still being written" in n for n in state.notes), state.notes
        assert any(n.startswith("skipped line 2") for n in state.notes), state.notes  # (the version shown)
