"""Every text the app draws readable: at least 4.5:1 contrast (WCAG AA) against its background.

Themes pick their colours for their own widgets; a muted grey that reads on one theme's panel is
too faint on another's, and a success green that reads on black vanishes on a light grey. Rather
than trust every theme variable on every background, :class:`ContrastFilter` runs over each line
as it is drawn (a Textual line filter, after the styles are resolved to real colours) and moves a
foreground colour that is too close to its background towards white or black, just far enough.
Colours keep their hue where they already read. Cells with no text (spaces, box-drawing and block
characters: borders, scrollbars, span bands) are left alone. A theme of ANSI colours is left to
the terminal, which alone knows what they look like.

The work is per segment style and cached, and Textual caches a filtered line with the line.
The transcript view, which draws a page of new lines on every page key, makes its own styles
readable once per style (:func:`readable_style`) and skips the filter.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.color import ColorType
from rich.color_triplet import ColorTriplet
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

__all__ = ["MINIMUM", "ContrastFilter", "contrast", "readable", "readable_style"]

MINIMUM = 4.5
"""WCAG AA for text."""

_TRUE = (ColorType.TRUECOLOR, ColorType.EIGHT_BIT)


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


@lru_cache(4096)
def _luminance(rgb: tuple[int, int, int]) -> float:
    r, g, b = rgb
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = _luminance(a), _luminance(b)
    hi, lo = (la, lb) if la >= lb else (lb, la)
    return (hi + 0.05) / (lo + 0.05)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


@lru_cache(4096)
def readable(fg: tuple[int, int, int], bg: tuple[int, int, int], minimum: float = MINIMUM) -> tuple[int, int, int]:
    """``fg`` where it reads on ``bg``; else ``fg`` moved by the least that makes it read:
    away from ``bg`` (lighter on a darker background, darker on a lighter one) where that can
    read, else the other way, past ``bg``'s own lightness."""
    if contrast(fg, bg) >= minimum:
        return fg
    white, black = (255, 255, 255), (0, 0, 0)
    away, back = (white, black) if _luminance(fg) >= _luminance(bg) else (black, white)
    for target in (away, back):
        if contrast(target, bg) < minimum:
            continue
        # Towards ``away`` contrast only grows, so the first step that reads is the least;
        # towards ``back`` it falls, then grows past bg's lightness: the first that reads is
        # beyond it. Steps of 1/64 are finer than a terminal's colours need.
        for k in range(1, 65):
            moved = _mix(fg, target, k / 64)
            if contrast(moved, bg) >= minimum:
                return moved
    return white if contrast(white, bg) >= contrast(black, bg) else black


def _rgb(color: RichColor | None) -> tuple[int, int, int] | None:
    if color is None or color.type not in _TRUE:
        return None
    triplet = color.get_truecolor()
    return (triplet.red, triplet.green, triplet.blue)


# Characters that draw shapes, not text: box drawing, block elements, the eighths of a cell.
_SHAPES = frozenset(chr(c) for c in range(0x2500, 0x25A0)) | {" ", "\u00a0"}


def _is_text(text: str) -> bool:
    return not _SHAPES.issuperset(text)


_BLACK = RichColor.from_triplet(ColorTriplet(0, 0, 0))


def readable_style(style: Style) -> Style:
    """``style`` with its foreground made readable on its own background, for a widget that
    draws its lines from styles it has made readable and so skips the line filter (it must
    then lay no tint over them)."""
    return _fixed(style, style.bgcolor or _BLACK)


@lru_cache(4096)
def _fixed(style: Style, background: RichColor, minimum: float = MINIMUM) -> Style:
    fg = _rgb(style.bgcolor if style.reverse else style.color)
    bg = _rgb(style.color if style.reverse else style.bgcolor) or _rgb(background)
    if fg is None or bg is None:
        return style
    if style.dim:  # a terminal draws dim text halfway to its background
        fg = _mix(fg, bg, 0.5)
    good = readable(fg, bg, minimum)
    if good == fg and not style.dim:
        return style
    color = RichColor.from_triplet(ColorTriplet(*good))
    change = Style(bgcolor=color, dim=False) if style.reverse else Style(color=color, dim=False)
    return style + change


class ContrastFilter(LineFilter):
    """A line filter that keeps every text at :data:`MINIMUM` contrast or more."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        back = background.rich_color
        out: list[Segment] = []
        for segment in segments:
            text, style, control = segment
            if style is not None and not control and _is_text(text):
                fixed = _fixed(style, back)
                if fixed is not style:
                    segment = Segment(text, fixed)
            out.append(segment)
        return out
