"""A file no format recognises: the error names the closest format and why it does not fit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from suture.formats import closest
from suture.io import parse_document


@pytest.mark.parametrize(
    ("data", "name", "why"),
    [
        (b'[{"role": "bot", "content": "hi"}]', "chat", "message 0 has the role 'bot', which chat never writes"),
        (b'{"hello": "world"}', "chat", "expected a list of messages or an object with messages"),
        (b'"just a string"', "chat", "expected a list of messages"),
    ],
)
def test_the_closest_format_and_why(data: bytes, name: str, why: str) -> None:
    found = closest(parse_document(data))
    assert found is not None
    adapter, said = found
    assert adapter.name == name
    assert why in said


def test_the_command_line_says_it_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bot.json"
    path.write_bytes(b'[{"role": "bot", "content": "hi"}]')
    r = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(path)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    line = r.stderr.strip()
    assert "\n" not in line
    assert "no format fits; closest: chat (message 0 has the role 'bot', which chat never writes)" in line


async def test_the_app_says_it_in_the_middle(tmp_path: Path) -> None:
    from suture.tui.app import SutureApp
    from tests.helpers.app import ready

    path = tmp_path / "bot.json"
    path.write_bytes(b'[{"role": "bot", "content": "hi"}]')
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        said = str(app.query_one("#state").render())
        assert "closest: chat (message 0 has the role 'bot', which chat never writes)" in said
