"""How each kind of change is shown, in one table: the command line's words and the app's.

One record per :class:`~suture.repair.ChangeKind`: what a change is called (``moved result``,
``moved results``), the short words of the app's status line, the badge of its middle column
and lists, the name its styles are found by and the theme colour they use. The app's badge
styles are generated from the table (:func:`badge_rules`, :func:`badge_classes`), so adding a
kind means adding its record here and nowhere else. They draw each kind in a colour variable of
its own (:func:`badge_variable`), which the app sets per theme to the kind's theme colour, or to
another where the theme gives two kinds one colour (:mod:`suture.tui.palette`). This module
imports nothing from the app.
"""

from __future__ import annotations

from msgspec import Struct

from suture.repair import ChangeKind
from suture.words import count

__all__ = ["KINDS", "Shown", "badge_classes", "badge_rules", "badge_variable", "counted"]


class Shown(Struct, frozen=True):
    """How one kind of change is shown."""

    word: str
    """What one change of the kind is called: ``moved result``."""
    plural: str
    """What several are called: ``moved results``."""
    short: str
    """The status line's word for one, where the whole words do not fit: ``note``."""
    short_plural: str
    """The status line's word for several: ``notes``."""
    badge: str
    """The badge in the panes' middle column and the lists, a symbol then a word: ``✎ note``."""
    name: str
    """The name of the kind's styles (``transcript--badge-note``): one word, no spaces."""
    colour: str
    """The theme colour the kind is drawn in (``secondary``), where the theme gives it a colour
    no other kind has (else the app picks another: :mod:`suture.tui.palette`)."""

    @property
    def symbol(self) -> str:
        """The badge's symbol alone, for a narrow window: ``✎``."""
        return self.badge[0]

    def short_words(self, n: int) -> str:
        """The status line's word for ``n`` changes of the kind."""
        return self.short if n == 1 else self.short_plural


KINDS: dict[ChangeKind, Shown] = {
    ChangeKind.MOVED_RESULT: Shown(
        word="moved result",
        plural="moved results",
        short="moved",
        short_plural="moved",
        badge="↕ moved",
        name="moved",
        colour="primary",
    ),
    ChangeKind.SYNTHETIC_INTERRUPT: Shown(
        word="synthetic interrupt",
        plural="synthetic interrupts",
        short="interrupted",
        short_plural="interrupted",
        badge="+ interrupt",
        name="interrupt",
        colour="warning",
    ),
    ChangeKind.ORPHAN_NOTE: Shown(
        word="orphan note",
        plural="orphan notes",
        short="note",
        short_plural="notes",
        badge="✎ note",
        name="note",
        colour="secondary",
    ),
    ChangeKind.RENAMED_ID: Shown(
        word="renamed id",
        plural="renamed ids",
        short="renamed",
        short_plural="renamed",
        badge="≠ renamed",
        name="renamed",
        colour="accent",
    ),
    ChangeKind.DROPPED_PLACEHOLDER: Shown(
        word="dropped placeholder",
        plural="dropped placeholders",
        short="dropped",
        short_plural="dropped",
        badge="✕ dropped",
        name="dropped",
        colour="error",
    ),
}
"""Every kind of change, in the order the app lists them (the status line's counts)."""


def counted(kind: ChangeKind, n: int) -> str:
    """``1 moved result``, ``2 moved results``."""
    shown = KINDS[kind]
    return count(n, shown.word, shown.plural)


def badge_classes(prefix: str) -> set[str]:
    """The component classes of a widget's badges, one a kind: ``{prefix}-moved``, ..."""
    return {f"{prefix}-{shown.name}" for shown in KINDS.values()}


def badge_variable(shown: Shown) -> str:
    """The name of the CSS colour variable a kind's badges are drawn in: ``badge-moved`` (with
    ``text-badge-moved`` for text and ``badge-moved-muted`` for a background, as Textual names
    its theme colours' shades)."""
    return f"badge-{shown.name}"


def badge_rules(prefix: str, declarations: str) -> str:
    """The CSS rules of a widget's badges, one a kind, nested in the widget's own rule:
    ``& > .{prefix}-moved { ... }``, where ``{colour}`` in ``declarations`` is the kind's
    colour variable (``color: $text-{colour}; text-style: bold;`` draws in ``$text-badge-moved``)."""
    return "".join(
        f"        & > .{prefix}-{shown.name} {{ {declarations.format(colour=badge_variable(shown))} }}\n"
        for shown in KINDS.values()
    )
