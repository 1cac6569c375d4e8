"""A first read that breaks partway: the app says why, and the progress line goes."""

from __future__ import annotations

from pathlib import Path

import pytest

import suture.tail
from suture.tui.app import Loading, SutureApp
from tests.helpers.app import ready
from tests.helpers.progressive import SIZE, records, until, write


async def test_a_first_read_broken_partway_leaves_no_loading_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "broken.json"
    write(path, records(300))
    data = path.read_bytes()
    cut = len(data) * 3 // 4
    # The document is read in pieces; three quarters in, a byte no JSON reader takes.
    path.write_bytes(data[:cut] + b"\x01" + data[cut:])
    monkeypatch.setattr(suture.tail, "FIRST_PIECE", 4000)
    monkeypatch.setattr(suture.tail, "MAX_PIECE", 8000)
    monkeypatch.setattr(suture.tail, "PROGRESS_EVERY", 0.0)
    seen: list[str] = []
    original = SutureApp.on_loading

    def noted(self: SutureApp, message: Loading) -> None:
        original(self, message)
        seen.append(self.status.render().plain)

    monkeypatch.setattr(SutureApp, "on_loading", noted)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.error is not None, "the read's error")
        await ready(pilot, app)
        assert any("loading" in said for said in seen), "the read showed its progress on the way"
        said = app.status.render().plain
        assert "loading" not in said
        assert app.error is not None and app.error.split(":")[0] in said
