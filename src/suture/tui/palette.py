"""Each kind of change in a colour of its own, in every theme.

A kind's record (:data:`suture.kinds.KINDS`) names the theme colour it is drawn in: ``primary``,
``warning``, ``accent`` and so on. Themes do not promise those colours differ: Textual's own dark
and light themes give ``accent`` and ``warning`` one orange, monokai gives ``secondary`` and
``error`` one pink, and several others put two of them a shade apart. Two kinds in one colour
cannot be told apart at a glance, so the app draws badges in colours of its own, chosen per theme
(:func:`badge_variables`): each kind keeps its theme colour where that stands apart from the
colours of the kinds chosen before it, else takes its colour turned round the colour wheel to
where it stands furthest from theirs and from ``success`` (the app's colour for what is fine).

The chosen colours are CSS variables named like Textual's own (``$badge-moved``,
``$text-badge-moved``, ``$badge-moved-muted``, made the way Textual makes ``$text-primary`` and
``$primary-muted``), which the badge styles of :func:`suture.kinds.badge_rules` use. A theme that
sets one of them itself keeps its own.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import App
from textual.color import Color, Lab, rgb_to_lab
from textual.theme import Theme

from suture.kinds import KINDS, Shown, badge_variable
from suture.tui.contrast import readable

__all__ = ["DISTINCT", "THEME_COLOURS", "BadgePalette", "badge_variables", "distance"]

THEME_COLOURS = ("error", "warning", "primary", "secondary", "accent", "success")
"""The theme colours, in the order kinds claim theirs: a kind drawn in a colour that means
something (``error``, ``warning``) keeps it before one drawn in an accent. One no kind is drawn in
(``success``) is kept for what it means: no kind takes a colour near it instead of its own."""

DISTINCT = 15.0
"""The least difference (CIE76 ΔE) between two kinds' badge colours as drawn: text in one colour
beside text in another, on the same background, is told apart at a glance (2 is the least an
eye sees side by side; 10 and up, at a glance)."""

_STEPS = 12
"""Turns of the colour wheel tried for a colour of one's own, in steps of 360/_STEPS degrees."""


def distance(a: Color, b: Color) -> float:
    """How far apart two colours look: CIE76 ΔE in CIE L*a*b*."""
    return _delta(rgb_to_lab(a), rgb_to_lab(b))


def _delta(x: Lab, y: Lab) -> float:
    """:func:`distance` of two colours already in CIE L*a*b*."""
    return float(((x.L - y.L) ** 2 + (x.a - y.a) ** 2 + (x.b - y.b) ** 2) ** 0.5)


def _solid(value: str, under: Color) -> Color:
    colour = Color.parse(value)
    return under + colour if colour.a < 1 else colour


def _drawn(text: Color, background: Color) -> Color:
    """``text`` as the app draws it on ``background``: moved, where it is too faint, to read."""
    return Color(*readable(text.rgb, background.rgb))


class _Choice:
    """One kind's colour: the variables that draw it, and how it looks on each background (in
    CIE L*a*b*, worked out once: a choice is compared with many others)."""

    def __init__(self, base: str, text: str, muted: str, backgrounds: list[Color]) -> None:
        self.base, self.text, self.muted = base, text, muted
        self.ansi = Color.parse(base).ansi is not None
        if self.ansi:
            self.looks: list[Lab] = []
            return
        back = backgrounds[0]
        drawn = [_drawn(_solid(text, bg), bg) for bg in backgrounds] + [_solid(muted, back)]
        self.looks = [rgb_to_lab(colour) for colour in drawn]

    def apart(self, other: _Choice) -> float:
        """How far this colour is from ``other`` where it looks least different (the badges in
        the panes' middle column, whose backgrounds are muted, count a third as much)."""
        if self.ansi or other.ansi:  # the terminal's colours: only their names can be told apart
            return DISTINCT if self.base != other.base else 0.0
        *texts, muted = (_delta(a, b) for a, b in zip(self.looks, other.looks, strict=True))
        return min(*texts, 3 * muted)


def _theme_colour(name: str, variables: dict[str, str], backgrounds: list[Color]) -> _Choice:
    return _Choice(variables[name], variables[f"text-{name}"], variables[f"{name}-muted"], backgrounds)


def _apart(choice: _Choice, chosen: list[_Choice]) -> float:
    """How far ``choice`` stands from the nearest of ``chosen``."""
    return min((choice.apart(other) for other in chosen), default=DISTINCT)


def _candidates(shown: Shown, variables: dict[str, str], backgrounds: list[Color]) -> Iterator[_Choice]:
    """The colours a kind may take: its theme colour first, then that colour turned round the
    colour wheel (in a theme of the terminal's colours, which cannot be turned, the other
    kinds' theme colours)."""
    yield _theme_colour(shown.colour, variables, backgrounds)
    own = Color.parse(variables[shown.colour])
    if own.ansi is None:
        yield from _turned(own, backgrounds)
        return
    for name in THEME_COLOURS:
        if name != shown.colour:
            yield _theme_colour(name, variables, backgrounds)


def _turned(own: Color, backgrounds: list[Color]) -> Iterator[_Choice]:
    """``own`` turned round the colour wheel, a step at a time, made into badge colours the way
    Textual makes a theme colour's shades."""
    background = backgrounds[0]
    contrast_text = background.get_contrast_text(1.0)
    h, s, lightness = own.hsl
    for step in range(1, _STEPS):
        turned = Color.from_hsl((h + step / _STEPS) % 1.0, max(s, 0.5), lightness)
        text = contrast_text.tint(turned.with_alpha(0.66))  # as Textual makes $text-primary
        muted = turned.blend(background, 0.7)  # as Textual makes $primary-muted
        yield _Choice(turned.hex, text.hex, muted.hex, backgrounds)


def badge_variables(theme: Theme) -> dict[str, str]:
    """The CSS variables of each kind's badge colour in ``theme``: ``badge-moved``,
    ``text-badge-moved``, ``badge-moved-muted``, ..., each kind's colour at least
    :data:`DISTINCT` from every other's where the theme's colours allow."""
    variables = {**theme.to_color_system().generate(), **theme.variables}
    backgrounds: list[Color] = []
    if not theme.ansi:
        back = Color.parse(variables["background"])
        backgrounds = [back] + [_solid(variables[name], back) for name in ("surface", "panel")]
    # A colour a kind takes instead of its own must also stand apart from the theme's colours no
    # kind is drawn in: the app draws what is fine in ``success``.
    spare = [
        _theme_colour(name, variables, backgrounds)
        for name in THEME_COLOURS
        if name not in {kind.colour for kind in KINDS.values()}
    ]
    chosen: list[_Choice] = []
    out: dict[str, str] = {}
    for shown in sorted(KINDS.values(), key=lambda shown: THEME_COLOURS.index(shown.colour)):
        # The other candidates are made only for a kind whose own colour is taken (each is
        # worked out on every background): most kinds keep theirs.
        candidates = _candidates(shown, variables, backgrounds)
        choice = next(candidates)
        if _apart(choice, chosen) < DISTINCT:
            choice = max(candidates, key=lambda other: _apart(other, chosen + spare))
        chosen.append(choice)
        name = badge_variable(shown)
        out[name], out[f"text-{name}"], out[f"{name}-muted"] = choice.base, choice.text, choice.muted
    return out


class BadgePalette(App[None]):
    """The badge colours of :func:`badge_variables` as theme variables of the app (a base of
    :class:`~suture.tui.app.SutureApp`), made again whenever the theme changes."""

    _badges: tuple[Theme, dict[str, str]] | None = None

    def get_theme_variable_defaults(self) -> dict[str, str]:
        theme = self.current_theme
        if self._badges is None or self._badges[0] is not theme:
            self._badges = (theme, badge_variables(theme))
        return {**super().get_theme_variable_defaults(), **self._badges[1]}
