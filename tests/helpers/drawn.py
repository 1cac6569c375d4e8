"""The app read as drawn: the screen's lines, the lines where a widget is, their words."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App
from textual.strip import Strip
from textual.widget import Widget


def _text(item: Strip | Iterable[Any]) -> str:
    if isinstance(item, Strip):
        return "".join(segment.text for segment in item)
    return "".join(_text(part) for part in item)


def drawn(app: App[Any]) -> list[str]:
    """The top screen's lines as drawn."""
    return [_text(line) for line in app.screen._compositor.render_full_update().strips]


def drawn_in(app: App[Any], widget: Widget) -> list[str]:
    """The lines drawn where ``widget`` is, border included."""
    region = widget.region
    return [line[region.x : region.right] for line in drawn(app)[region.y : region.bottom]]


def words(lines: Iterable[str]) -> str:
    return " ".join(" ".join(lines).split())
