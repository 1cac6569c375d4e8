"""The panes' screen is styled once as its widgets mount: the restyle Textual does when a screen
is first shown is skipped (it changed nothing and took part of the first screen), and every
later resume restyles as Textual does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.dom import DOMNode

from suture.tui.app import PanesScreen, SutureApp
from tests.helpers.app import SIZE, line, ready, settle

MESSAGES = [
    {"role": "user", "content": "list the files"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
    },
    {"role": "user", "content": "and now?"},
]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "chat.jsonl"
    p.write_bytes(b"".join(line(m) for m in MESSAGES))
    return p


@pytest.fixture
def restyled(monkeypatch: pytest.MonkeyPatch) -> list[DOMNode]:
    """Every node whose styles, and its children's, were worked out again."""
    seen: list[DOMNode] = []
    real = DOMNode.update_node_styles

    def spy(self: DOMNode, animate: bool = True) -> None:
        seen.append(self)
        real(self, animate)

    monkeypatch.setattr(DOMNode, "update_node_styles", spy)
    return seen


async def test_the_first_showing_does_not_style_the_panes_again(path: Path, restyled: list[DOMNode]) -> None:
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        screen = app.screen_stack[0]
        assert isinstance(screen, PanesScreen)
        assert screen not in restyled
        shown = app.export_screenshot()
        # Styled again in full, the screen is drawn the same: the skipped restyle changed nothing.
        screen.update_node_styles(animate=False)
        await settle(app)
        assert screen in restyled
        assert app.export_screenshot() == shown


async def test_a_later_resume_restyles_as_textual_does(path: Path, restyled: list[DOMNode]) -> None:
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        screen = app.screen_stack[0]
        assert screen not in restyled
        screen.post_message(events.ScreenResume())
        await settle(app)
        assert screen in restyled
