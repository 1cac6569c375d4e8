"""One table says how each kind of change is shown (suture.kinds): every kind has a record, the
command line and the app take their words and badges from it, and every widget that draws a
badge has a style for each kind, generated from the table, in a colour no other kind has in the
theme shown (suture.tui.palette)."""

from __future__ import annotations

import dataclasses
import itertools
import re
import shutil
from pathlib import Path

import pytest
from textual.color import Color
from textual.theme import BUILTIN_THEMES
from textual.widget import Widget

from suture.kinds import KINDS, badge_classes, badge_rules, badge_variable, counted
from suture.repair import ChangeKind
from suture.tui.app import SutureApp
from suture.tui.bars import InfoBar, StatusBar
from suture.tui.changes import ChangeList
from suture.tui.contrast import MINIMUM, contrast, readable
from suture.tui.palette import DISTINCT, badge_variables, distance
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
        variable = drawn.split(":")[1].format(colour=badge_variable(shown))
        assert name in widget.COMPONENT_CLASSES
        assert re.search(rf"\.{re.escape(name)} \{{[^}}]*\${re.escape(variable)};", widget.DEFAULT_CSS), name
    assert badge_classes(prefix) <= widget.COMPONENT_CLASSES


def test_the_rules_follow_the_table() -> None:
    rules = badge_rules("x--badge", "color: $text-{colour};")
    assert rules.count("& > .x--badge-") == len(KINDS)
    for shown in KINDS.values():
        assert f".x--badge-{shown.name} {{ color: $text-badge-{shown.name}; }}" in rules


async def test_each_kind_is_drawn_in_its_colour(tmp_path: Path) -> None:
    """The styles resolve in the running app: each kind's badge is drawn in its colour variable,
    in every widget that draws badges."""
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
                assert colour.triplet.hex.upper() == theme[variable.format(colour=badge_variable(shown))].upper()
                assert style.bold


def test_kinds_keep_their_theme_colours_where_they_differ() -> None:
    """In the default theme accent and warning are one orange: the kind drawn in warning keeps
    it, the one drawn in accent takes a colour no kind has; every other kind keeps its own."""
    theme = BUILTIN_THEMES["textual-dark"]
    generated = theme.to_color_system().generate()
    assert generated["accent"] == generated["warning"]
    chosen = badge_variables(theme)
    for kind, shown in KINDS.items():
        name = badge_variable(shown)
        if kind is ChangeKind.RENAMED_ID:
            assert chosen[name] not in {generated[other.colour] for other in KINDS.values()}
        else:
            assert chosen[name] == generated[shown.colour]
            assert chosen[f"text-{name}"] == generated[f"text-{shown.colour}"]
            assert chosen[f"{name}-muted"] == generated[f"{shown.colour}-muted"]


def test_a_theme_may_set_a_badge_colour_itself() -> None:
    theme = dataclasses.replace(BUILTIN_THEMES["nord"], name="mine", variables={"text-badge-moved": "#123456"})
    app = SutureApp(None, watch=False)
    app.register_theme(theme)
    app.theme = "mine"
    assert app.get_css_variables()["text-badge-moved"] == "#123456"
    assert app.get_css_variables()["badge-moved"] == badge_variables(theme)["badge-moved"]


def _pairs(colours: dict[str, Color]) -> list[tuple[float, str, str]]:
    return sorted((distance(colours[a], colours[b]), a, b) for a, b in itertools.combinations(colours, 2))


async def test_every_kind_has_a_colour_of_its_own_in_every_theme(tmp_path: Path) -> None:
    """In every theme the app offers, each kind's badge, as drawn in each widget (after the
    contrast filter), is a colour far from every other kind's, and still reads."""
    path = tmp_path / WORKED.name
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    assert DISTINCT >= 10  # told apart at a glance, not merely different
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert set(BUILTIN_THEMES) <= set(app.available_themes)
        failures = {}
        for theme_name in app.available_themes:
            app.theme = theme_name
            await pilot.pause()
            for widget_class, prefix, drawn in BADGED:
                widget = app.query_one(widget_class)
                back = widget.background_colors[1]
                colours: dict[str, Color] = {}
                names: dict[str, str] = {}
                for shown in KINDS.values():
                    style = widget.get_component_rich_style(f"{prefix}-{shown.name}", partial=True)
                    if drawn.startswith("color"):
                        assert style.color is not None
                        names[shown.name] = style.color.name
                        rgb = style.color.get_truecolor()
                        colour = Color(*readable((rgb.red, rgb.green, rgb.blue), back.rgb))
                        assert contrast(colour.rgb, back.rgb) >= MINIMUM
                    else:
                        assert style.bgcolor is not None
                        names[shown.name] = style.bgcolor.name
                        rgb = style.bgcolor.get_truecolor()
                        colour = Color(rgb.red, rgb.green, rgb.blue)
                    colours[shown.name] = colour
                if app.current_theme.ansi:  # the terminal's colours: distinct names
                    assert len(set(names.values())) == len(KINDS), (theme_name, names)
                    continue
                # A badge's muted background differs from another's a third as much as its text.
                floor = DISTINCT if drawn.startswith("color") else DISTINCT / 3
                closest = _pairs(colours)[0]
                if closest[0] < floor:
                    failures[(theme_name, widget_class.__name__)] = closest
        assert not failures
