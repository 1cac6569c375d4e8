"""One table says how each kind of change is shown (suture.kinds): every kind has a record, the
command line and the app take their words and badges from it, and every widget that draws a
badge has a style for each kind, generated from the table."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from textual.widget import Widget

from suture.kinds import KINDS, badge_classes, badge_rules, counted
from suture.repair import ChangeKind
from suture.tui.app import SutureApp
from suture.tui.bars import InfoBar, StatusBar
from suture.tui.changes import ChangeList
from suture.tui.view import TranscriptView

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"

# Each widget that draws badges: its class, the prefix of its badge styles, and the theme
# variable the badge is drawn in: the text's colour (a list, a bar) or the cell's background
# (the panes' middle column).
BADGED: list[tuple[type[Widget], str, str]] = [
    (StatusBar, "bar--badge", "color:text-{colour}"),
    (InfoBar, "bar--badge", "color:text-{colour}"),
    (ChangeList, "changes--badge", "color:text-{colour}"),
    (TranscriptView, "transcript--badge", "bgcolor:{colour}-muted"),
]


def test_every_kind_has_one_record() -> None:
    assert set(KINDS) == set(ChangeKind)
    for field in ("word", "plural", "badge", "name", "colour"):
        values = [getattr(shown, field) for shown in KINDS.values()]
        assert len(set(values)) == len(values), field
    assert len({shown.symbol for shown in KINDS.values()}) == len(KINDS)
    for shown in KINDS.values():
        assert re.fullmatch(r"[a-z]+", shown.name)
        assert shown.badge[1] == " " and shown.badge[2:]


@pytest.mark.parametrize("kind", list(ChangeKind))
def test_words_count_one_and_many(kind: ChangeKind) -> None:
    assert counted(kind, 1) == f"1 {KINDS[kind].word}"
    assert counted(kind, 3) == f"3 {KINDS[kind].plural}"
    assert KINDS[kind].short_words(1) == KINDS[kind].short
    assert KINDS[kind].short_words(2) == KINDS[kind].short_plural


@pytest.mark.parametrize(("widget", "prefix", "drawn"), BADGED)
def test_each_widget_has_a_badge_rule_and_class_per_kind(widget: type[Widget], prefix: str, drawn: str) -> None:
    for shown in KINDS.values():
        name = f"{prefix}-{shown.name}"
        variable = drawn.split(":")[1].format(colour=shown.colour)
        assert name in widget.COMPONENT_CLASSES
        assert re.search(rf"\.{re.escape(name)} \{{[^}}]*\${re.escape(variable)};", widget.DEFAULT_CSS), name
    assert badge_classes(prefix) <= widget.COMPONENT_CLASSES


def test_the_rules_follow_the_table() -> None:
    rules = badge_rules("x--badge", "color: $text-{colour};")
    assert rules.count("& > .x--badge-") == len(KINDS)
    for shown in KINDS.values():
        assert f".x--badge-{shown.name} {{ color: $text-{shown.colour}; }}" in rules


async def test_each_kind_is_drawn_in_its_colour(tmp_path: Path) -> None:
    """The styles resolve in the running app: each kind's badge is drawn in the theme colour its
    record names, in every widget that draws badges."""
    path = tmp_path / WORKED.name
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        theme = app.get_css_variables()
        for widget_class, prefix, drawn in BADGED:
            widget = app.query_one(widget_class)
            attribute, variable = drawn.split(":")
            for shown in KINDS.values():
                style = widget.get_component_rich_style(f"{prefix}-{shown.name}", partial=True)
                colour = getattr(style, attribute)
                assert colour is not None, (widget_class.__name__, shown.name)
                assert colour.triplet.hex.upper() == theme[variable.format(colour=shown.colour)].upper()
                assert style.bold
